/// The sender's memory of recently sent packets, so a NACK can be answered by sending
/// the same protected bytes again (plain retransmission, same SSRC and sequence number:
/// the receiver's SRTP replay window has not seen a lost packet's index, so it accepts
/// it, and the sender spends no second encryption).
///
/// Packets are the caller's handles (send buffers kept out of the pool while
/// remembered): `remember` returns the handle it evicts, which the caller recycles.
/// A packet is resent at most once per `minimumResendIntervalNanoseconds` (a NACK
/// storm does not multiply traffic).
///
/// Cost: O(1) per packet and per NACKed sequence; storage allocated once. Not
/// thread-safe: one owner at a time (it may move between threads, hence `Sendable`).
public final class RetransmissionHistory: @unchecked Sendable {
    private struct Entry { var used = false; var sequence: UInt16 = 0; var handle = 0; var sentAt: UInt64 = 0; var resentAt: UInt64 = 0; var resends = 0 }

    /// Counters since creation.
    public struct Statistics: Sendable, Equatable {
        /// Sequence numbers asked for.
        public var requested: UInt64 = 0
        /// Packets handed back for resending.
        public var resent: UInt64 = 0
        /// Requests for packets no longer (or never) remembered.
        public var missing: UInt64 = 0
        /// Requests refused because the packet was resent too recently.
        public var throttled: UInt64 = 0
        /// All zeros.
        public init() {}
    }

    /// Counters since creation.
    public private(set) var statistics = Statistics()
    /// The least time between two resends of one packet.
    public var minimumResendIntervalNanoseconds: UInt64
    private let entries: UnsafeMutableBufferPointer<Entry>

    /// Remembers the last `capacity` packets (a power of two; by sequence number modulo it).
    public init(capacity: Int = 512, minimumResendIntervalNanoseconds: UInt64 = 10_000_000) {
        // A power of two divides 65536, so the ring stays aligned across the sequence wrap.
        precondition(capacity > 0 && capacity <= 32768 && capacity & (capacity - 1) == 0, "capacity must be a power of two up to 32768")
        self.minimumResendIntervalNanoseconds = minimumResendIntervalNanoseconds
        entries = .allocate(capacity: capacity)
        entries.initialize(repeating: Entry())
    }

    deinit { entries.deallocate() }

    /// Remembers a sent packet; returns the handle of the packet it replaces, if any.
    public func remember(sequence: UInt16, handle: Int, sentAt: UInt64) -> Int? {
        let i = Int(sequence) % entries.count
        let evicted = entries[i].used ? entries[i].handle : nil
        entries[i] = Entry(used: true, sequence: sequence, handle: handle, sentAt: sentAt)
        return evicted
    }

    /// The handle to resend for a NACKed sequence, or nil if it is gone or was resent
    /// within the minimum interval. The handle stays remembered.
    public func packetToResend(sequence: UInt16, now: UInt64) -> Int? {
        statistics.requested += 1
        let i = Int(sequence) % entries.count
        guard entries[i].used, entries[i].sequence == sequence else {
            statistics.missing += 1
            return nil
        }
        if entries[i].resends > 0 && now < entries[i].resentAt + minimumResendIntervalNanoseconds {
            statistics.throttled += 1
            return nil
        }
        entries[i].resends += 1
        entries[i].resentAt = now
        statistics.resent += 1
        return entries[i].handle
    }

    /// Forgets everything; every remembered handle goes to `release`.
    public func removeAll(release: (Int) -> Void) {
        for i in 0..<entries.count where entries[i].used {
            release(entries[i].handle)
            entries[i].used = false
        }
    }
}
