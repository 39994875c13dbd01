import Synchronization

/// What a `WebServer`'s limits have done, counted from the service thread and read from
/// any thread. Cost: a relaxed atomic add per event.
final class WebServerCounters: Sendable {
    /// Requests answered 400/411 and closed for their framing (or an upgrade with a body).
    let framingRefused = Atomic<UInt64>(0)
    /// Unauthenticated WebSockets closed to make room for a newer one at the cap.
    let unauthenticatedEvicted = Atomic<UInt64>(0)
    /// WebSockets that closed while unauthenticated (deadline or client).
    let unauthenticatedClosed = Atomic<UInt64>(0)
    /// Connections closed on accept because they landed in the descriptor reserve.
    let descriptorRefused = Atomic<UInt64>(0)
    /// `accept` failures for lack of descriptors (each followed by a pause).
    let acceptFailures = Atomic<UInt64>(0)
    /// Requests refused for their syntax or size limits (400/414/431/501/505, upgrades 400/426).
    let malformedRequests = Atomic<UInt64>(0)
    /// WebSockets failed for breaking RFC 6455 (1002, 1007, 1009).
    let webSocketProtocolErrors = Atomic<UInt64>(0)
    /// Of those, for an unmasked client frame (§5.1).
    let unmaskedFrames = Atomic<UInt64>(0)

    /// A copy of the counts.
    var snapshot: WebServerStatistics {
        WebServerStatistics(
            framingRefused: framingRefused.load(ordering: .relaxed),
            unauthenticatedEvicted: unauthenticatedEvicted.load(ordering: .relaxed),
            unauthenticatedClosed: unauthenticatedClosed.load(ordering: .relaxed),
            descriptorRefused: descriptorRefused.load(ordering: .relaxed),
            acceptFailures: acceptFailures.load(ordering: .relaxed),
            malformedRequests: malformedRequests.load(ordering: .relaxed),
            webSocketProtocolErrors: webSocketProtocolErrors.load(ordering: .relaxed),
            unmaskedFrames: unmaskedFrames.load(ordering: .relaxed))
    }
}

/// A snapshot of what a `WebServer` refused, for metrics. A plain value.
public struct WebServerStatistics: Sendable, Equatable {
    /// HTTP requests refused for their framing (both Content-Length and
    /// Transfer-Encoding, a bad or repeated length, an unknown coding): 400/411, closed.
    public var framingRefused: UInt64 = 0
    /// The oldest unauthenticated WebSockets closed to make room at the cap.
    public var unauthenticatedEvicted: UInt64 = 0
    /// WebSockets that ended before the application vouched for them (most by the deadline).
    public var unauthenticatedClosed: UInt64 = 0
    /// Connections closed as accepted because they fell in the descriptor reserve.
    public var descriptorRefused: UInt64 = 0
    /// `accept` failures (EMFILE/ENFILE) the server met; it stops accepting for 50 ms
    /// after each instead of spinning.
    public var acceptFailures: UInt64 = 0
    /// Requests refused for their syntax or size limits (a malformed request line or
    /// header, a head over 16 KiB or 100 fields, an unknown method or HTTP version, a
    /// broken WebSocket upgrade): answered 400/414/426/431/501/505 and closed.
    public var malformedRequests: UInt64 = 0
    /// WebSockets closed for breaking RFC 6455: an unmasked frame, RSV bits, a reserved
    /// opcode, a bad fragment or control frame (1002), text that is not UTF-8 (1007), a
    /// message over the size cap (1009).
    public var webSocketProtocolErrors: UInt64 = 0
    /// Of `webSocketProtocolErrors`, those for an unmasked client frame (RFC 6455 §5.1).
    public var unmaskedFrames: UInt64 = 0

    /// All zero.
    public init() {}

    /// Every count given.
    public init(framingRefused: UInt64, unauthenticatedEvicted: UInt64, unauthenticatedClosed: UInt64,
                descriptorRefused: UInt64, acceptFailures: UInt64, malformedRequests: UInt64 = 0,
                webSocketProtocolErrors: UInt64 = 0, unmaskedFrames: UInt64 = 0) {
        self.framingRefused = framingRefused
        self.unauthenticatedEvicted = unauthenticatedEvicted
        self.unauthenticatedClosed = unauthenticatedClosed
        self.descriptorRefused = descriptorRefused
        self.acceptFailures = acceptFailures
        self.malformedRequests = malformedRequests
        self.webSocketProtocolErrors = webSocketProtocolErrors
        self.unmaskedFrames = unmaskedFrames
    }
}
