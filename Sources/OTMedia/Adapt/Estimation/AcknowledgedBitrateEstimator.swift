/// The received (acknowledged) bitrate R_hat: bytes that arrived in the last `window` of the
/// receiver's clock, divided by the window (draft-ietf-rmcat-gcc-02 §5.5: `R_hat(i) = 1/T *
/// sum(L(j))`, T between 0.5 and 1 s; default 0.5 s so a capacity drop shows within half a
/// second).
///
/// Lost packets count nothing. Arrivals may come slightly out of order (reordering); each
/// packet is kept until the newest arrival is a window past it. Until the first arrival is a
/// window old, the rate is taken over the time actually covered, and reported only once
/// that reaches ``Configuration/minimumSpanNanoseconds`` (too few packets otherwise).
///
/// Cost: O(1) amortized per packet; a ring of ``Configuration/capacity`` entries allocated once
/// in `init`. When the ring is full the oldest entry goes early (the window shrinks to what
/// it holds), so there is never an allocation per packet.
public struct AcknowledgedBitrateEstimator: Sendable {
    /// Window and storage.
    public struct Configuration: Sendable, Equatable {
        /// T of §5.5, nanoseconds (0.5 s).
        public var windowNanoseconds: UInt64
        /// Shortest covered span before a rate is reported, nanoseconds (our choice: 100 ms).
        public var minimumSpanNanoseconds: UInt64
        /// Packets the ring holds (4096: 0.5 s at 78 Mbit/s of 1200-byte packets).
        public var capacity: Int
        /// Creates a configuration; defaults as documented.
        public init(windowNanoseconds: UInt64 = 500_000_000, minimumSpanNanoseconds: UInt64 = 100_000_000,
                    capacity: Int = 4096) {
            self.windowNanoseconds = max(1, windowNanoseconds)
            self.minimumSpanNanoseconds = minimumSpanNanoseconds
            self.capacity = max(2, capacity)
        }
    }

    /// Window and storage in use.
    public let configuration: Configuration
    private var arrivals: [UInt64]
    private var sizes: [Int]
    private var head = 0
    private var count = 0
    private var bytesInWindow = 0
    private var newestArrival: UInt64?
    private var firstArrival: UInt64?

    /// An empty estimator; allocates the ring once.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        arrivals = [UInt64](repeating: 0, count: configuration.capacity)
        sizes = [Int](repeating: 0, count: configuration.capacity)
    }

    /// Forgets every packet (keeps the storage). O(1).
    public mutating func reset() {
        head = 0; count = 0; bytesInWindow = 0; newestArrival = nil; firstArrival = nil
    }

    /// Adds one packet result; lost packets are ignored. O(1) amortized.
    public mutating func add(_ packet: PacketResult) {
        guard let arrival = packet.arrivalNanoseconds else { return }
        if count == configuration.capacity { evictOldest() }
        let tail = (head + count) % configuration.capacity
        arrivals[tail] = arrival
        sizes[tail] = packet.size
        count += 1
        bytesInWindow += packet.size
        if firstArrival == nil { firstArrival = arrival }
        let newest = max(newestArrival ?? arrival, arrival)
        newestArrival = newest
        while count > 0, arrivals[head] &+ configuration.windowNanoseconds <= newest { evictOldest() }
    }

    private mutating func evictOldest() {
        bytesInWindow -= sizes[head]
        head = (head + 1) % configuration.capacity
        count -= 1
    }

    /// R_hat in bits/s, or nil while less than the minimum span has been seen. O(1).
    public var bitrate: Int? {
        guard let newest = newestArrival, let first = firstArrival, count > 0 else { return nil }
        let covered = newest &- first
        guard covered >= configuration.minimumSpanNanoseconds else { return nil }
        var span = min(covered, configuration.windowNanoseconds)
        if count == configuration.capacity {
            // The ring is full and dropped packets early: use the span it actually holds.
            span = min(span, max(1, newest &- arrivals[head]))
        }
        return Int(Double(bytesInWindow) * 8 * 1e9 / Double(span))
    }
}
