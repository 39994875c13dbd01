/// Estimates the standing queueing delay on the path: each packet's one-way delay offset
/// (arrival on the receiver's clock minus send on the sender's) minus the smallest offset
/// seen recently, the base delay.
///
/// The two clocks are unrelated, so the offset itself means nothing, but its minimum is the
/// propagation delay plus the clock offset, and the excess over it is time spent in queues.
/// The base delay is the minimum over the last ``Configuration/bucketCount`` buckets of
/// ``Configuration/bucketNanoseconds`` each (default 10 x 60 s), as LEDBAT keeps it (RFC 6817
/// §3.4.2: BASE_HISTORY of 10 one-minute minima, so a route change or clock drift ages out).
///
/// The delay-based controller only sees changes in delay (draft-ietf-rmcat-gcc-02 §5.1); a
/// queue that filled and stays full (drop-tail at its limit) looks steady to it. The AIMD
/// controller uses this estimate to drain such a queue on a decrease.
///
/// Cost: O(1) per packet, O(bucketCount) per bucket change; a fixed array of 10 minima.
public struct QueueDelayEstimator: Sendable {
    /// History of the base delay.
    public struct Configuration: Sendable, Equatable {
        /// Length of one bucket, nanoseconds (RFC 6817: one minute).
        public var bucketNanoseconds: UInt64
        /// Buckets kept (RFC 6817 BASE_HISTORY: 10).
        public var bucketCount: Int
        /// Creates a configuration with RFC 6817's defaults.
        public init(bucketNanoseconds: UInt64 = 60_000_000_000, bucketCount: Int = 10) {
            self.bucketNanoseconds = max(1, bucketNanoseconds)
            self.bucketCount = max(1, bucketCount)
        }
    }

    /// History in use.
    public let configuration: Configuration
    private var minima: [Int64]
    private var bucketStart: UInt64?
    private var bucketIndex = 0
    /// The last packet's queueing delay, nanoseconds (0 before any packet).
    public private(set) var queueingDelayNanoseconds: UInt64 = 0

    /// An empty estimator; allocates its bucket array once.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        minima = [Int64](repeating: .max, count: configuration.bucketCount)
    }

    /// Forgets the history (e.g. after the receiver's clock jumped). O(buckets).
    public mutating func reset() {
        for i in minima.indices { minima[i] = .max }
        bucketStart = nil
        queueingDelayNanoseconds = 0
    }

    /// Feeds one packet; lost packets are ignored. Buckets advance on the send clock. O(1)
    /// amortized.
    public mutating func add(_ packet: PacketResult) {
        guard let arrival = packet.arrivalNanoseconds else { return }
        let offset = Int64(bitPattern: arrival &- packet.sendNanoseconds)
        let start = bucketStart ?? packet.sendNanoseconds
        bucketStart = start
        if packet.sendNanoseconds >= start &+ configuration.bucketNanoseconds {
            bucketIndex = (bucketIndex + 1) % configuration.bucketCount
            minima[bucketIndex] = .max
            bucketStart = packet.sendNanoseconds
        }
        minima[bucketIndex] = min(minima[bucketIndex], offset)
        let base = minima.min() ?? offset
        queueingDelayNanoseconds = UInt64(max(0, offset &- base))
    }
}
