import OTMedia

/// Why the edge ended a leg's handshake on its own; told to the router through its
/// `EdgeLegEndedHandler` so it can tear the leg down or ask the peer to start over.
/// Lost ICE consent is not an ending: the leg lapses (nothing sent to it) and stays
/// registered until the router removes it; the next valid check resumes it.
public enum EdgeLegEnding: Sendable, Equatable, CustomStringConvertible {
    /// The DTLS handshake failed or timed out; its transport was freed. The leg stays
    /// registered (ICE still answers) but will get no keys: the router decides what next.
    case handshakeFailed(DTLSFailure)

    /// A short sentence for logs.
    public var description: String {
        switch self {
        case let .handshakeFailed(failure): "DTLS handshake failed: \(failure)"
        }
    }
}

/// Called on a worker thread (outside every lock) when the edge ends a leg or its
/// handshake by itself; it must not block.
public typealias EdgeLegEndedHandler = @Sendable (_ leg: EdgeLegID, _ ending: EdgeLegEnding) -> Void
