import OTMedia

/// Why the edge ended a leg, or its handshake, on its own; told to the router through its
/// `EdgeLegEndedHandler` so it can tear the leg down or ask the peer to start over.
public enum EdgeLegEnding: Sendable, Equatable, CustomStringConvertible {
    /// No valid check for `consentTimeout` (RFC 7675): the leg was removed from the edge.
    case consentExpired
    /// The DTLS handshake failed or timed out; its transport was freed. The leg stays
    /// registered (ICE still answers) but will get no keys: the router decides what next.
    case handshakeFailed(DTLSFailure)

    /// A short sentence for logs.
    public var description: String {
        switch self {
        case .consentExpired: "ICE consent expired"
        case let .handshakeFailed(failure): "DTLS handshake failed: \(failure)"
        }
    }
}

/// Called on a worker thread (outside every lock) when the edge ends a leg or its
/// handshake by itself; it must not block.
public typealias EdgeLegEndedHandler = @Sendable (_ leg: EdgeLegID, _ ending: EdgeLegEnding) -> Void
