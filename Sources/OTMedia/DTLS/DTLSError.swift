/// Why a DTLS setup step failed (certificate, context, transport creation). A handshake
/// that fails carries a `DTLSFailure` in its state instead.
public enum DTLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// OpenSSL refused a setup call; `step` names it, `detail` is OpenSSL's error queue.
    case openSSL(step: String, detail: String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case let .openSSL(step, detail): "OpenSSL failed at \(step): \(detail)"
        }
    }
}
