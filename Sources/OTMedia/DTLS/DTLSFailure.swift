/// Why a DTLS handshake or association failed: the reason a `DTLSTransport` ends in
/// `.failed`. None of the cases carries key material.
public enum DTLSFailure: Sendable, Equatable, CustomStringConvertible {
    /// The peer's certificate does not hash to the fingerprint its SDP announced
    /// (`expected`), so the peer is not who signaling said: `actual` is what it presented.
    case fingerprintMismatch(expected: DTLSFingerprint, actual: DTLSFingerprint)
    /// The peer finished the handshake without a certificate.
    case noPeerCertificate
    /// The handshake completed but the peers share no SRTP protection profile (OpenSSL
    /// completes it anyway; WebRTC cannot use it).
    case noCommonSRTPProfile
    /// The peers agreed on an SRTP profile OTKit has no libsrtp2 mapping for.
    case unsupportedSRTPProfile(String)
    /// The handshake did not finish before the deadline; its SSL object has been freed.
    case handshakeTimedOut
    /// OpenSSL ended the handshake or the association (a fatal alert received or sent, a
    /// protocol violation); `detail` is OpenSSL's error queue.
    case protocolError(String)
    /// The keying-material exporter failed after the handshake.
    case exporterFailed

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case let .fingerprintMismatch(expected, actual):
            "DTLS peer certificate fingerprint \(actual.sdpValue) does not match the SDP's a=fingerprint \(expected.sdpValue)"
        case .noPeerCertificate: "the DTLS peer presented no certificate"
        case .noCommonSRTPProfile: "the DTLS peers share no SRTP protection profile (use_srtp)"
        case let .unsupportedSRTPProfile(name): "the DTLS peers agreed on SRTP profile \(name), which OTKit does not support"
        case .handshakeTimedOut: "the DTLS handshake did not finish before its deadline"
        case let .protocolError(detail): "DTLS protocol error: \(detail)"
        case .exporterFailed: "the DTLS-SRTP keying material exporter failed"
        }
    }
}
