/// Why a DTLS setup step failed (certificate, context, transport creation, parsing a
/// peer's fingerprint). A handshake that fails carries a `DTLSFailure` in its state instead.
public enum DTLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A peer's `a=fingerprint` value is not "sha-256" and 32 hex bytes; the text says why.
    case malformedFingerprint(String)
    /// OpenSSL refused a setup call; `step` names it, `detail` is OpenSSL's error queue.
    case openSSL(step: String, detail: String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case let .malformedFingerprint(reason): "malformed DTLS fingerprint: \(reason)"
        case let .openSSL(step, detail): "OpenSSL failed at \(step): \(detail)"
        }
    }
}
