import Synchronization

/// What a `WebServer`'s limits have done, counted from the service thread and read from
/// any thread. Cost: a relaxed atomic add per event.
final class WebServerCounters: Sendable {
    /// Requests answered 400/411 and closed for their framing.
    let framingRefused = Atomic<UInt64>(0)
    /// Unauthenticated WebSockets closed to make room for a newer one at the cap.
    let unauthenticatedEvicted = Atomic<UInt64>(0)
    /// WebSockets that closed while unauthenticated (deadline or client).
    let unauthenticatedClosed = Atomic<UInt64>(0)
    /// Connections closed on accept because they landed in the descriptor reserve.
    let descriptorRefused = Atomic<UInt64>(0)

    /// A copy of the counts.
    var snapshot: WebServerStatistics {
        WebServerStatistics(
            framingRefused: framingRefused.load(ordering: .relaxed),
            unauthenticatedEvicted: unauthenticatedEvicted.load(ordering: .relaxed),
            unauthenticatedClosed: unauthenticatedClosed.load(ordering: .relaxed),
            descriptorRefused: descriptorRefused.load(ordering: .relaxed),
            acceptFailures: LWSLogging.acceptFailures.load(ordering: .relaxed))
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
    /// `accept` failures (EMFILE/ENFILE) lws met in this process; the service loop backs
    /// off after each instead of spinning.
    public var acceptFailures: UInt64 = 0

    /// All zero.
    public init() {}

    /// Every count given.
    public init(framingRefused: UInt64, unauthenticatedEvicted: UInt64, unauthenticatedClosed: UInt64,
                descriptorRefused: UInt64, acceptFailures: UInt64) {
        self.framingRefused = framingRefused
        self.unauthenticatedEvicted = unauthenticatedEvicted
        self.unauthenticatedClosed = unauthenticatedClosed
        self.descriptorRefused = descriptorRefused
        self.acceptFailures = acceptFailures
    }
}
