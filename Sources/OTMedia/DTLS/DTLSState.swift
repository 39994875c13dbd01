/// Where a `DTLSTransport` is in its life.
public enum DTLSState: Sendable, Equatable, CustomStringConvertible {
    /// Created; the server waits for a ClientHello, the client for `start`.
    case new
    /// Flights are being exchanged.
    case handshaking
    /// The handshake finished, the peer's certificate matched its fingerprint, an SRTP
    /// profile was agreed and the keys exported (`DTLSTransport.srtpKeys`).
    case connected
    /// The handshake or association failed; the SSL object has been freed.
    case failed(DTLSFailure)
    /// Closed by `close` or by the peer's close_notify; the SSL object has been freed.
    case closed

    /// True for `.failed` and `.closed`: nothing more will happen.
    public var isFinal: Bool {
        switch self {
        case .failed, .closed: true
        case .new, .handshaking, .connected: false
        }
    }

    /// "new", "handshaking", "connected", "failed: <reason>", "closed".
    public var description: String {
        switch self {
        case .new: "new"
        case .handshaking: "handshaking"
        case .connected: "connected"
        case let .failed(reason): "failed: \(reason)"
        case .closed: "closed"
        }
    }
}
