import Synchronization

/// The publisher's memory of recently sent video packets, so a NACK can be answered by
/// sending the same protected bytes again: plain retransmission (same SSRC and sequence
/// number), which costs no second SRTP pass, and the receiver's replay window accepts
/// it because it never saw the lost packet's index.
///
/// The capture thread stores a frame's packets after sending them (one lock per frame,
/// one copy per packet); the feedback thread copies one out per NACKed sequence (one lock
/// each). The lock covers memcpys only: no I/O, no allocation. A packet is resent at
/// most once per `minimumResendIntervalNanoseconds`, so a NACK storm does not multiply
/// traffic. Slots are `sequence mod capacity` (a power of two divides 65536, so the ring
/// stays aligned across the sequence wrap).
///
/// Cost: `capacity` × 1500 bytes at creation; nothing after.
final class RetransmissionStore: @unchecked Sendable {
    static let slotBytes = 1500

    /// Counters since creation.
    struct Statistics: Sendable, Equatable {
        /// Sequence numbers asked for.
        var requested: UInt64 = 0
        /// Packets copied out for resending.
        var resent: UInt64 = 0
        /// Requests for packets no longer (or never) stored.
        var missing: UInt64 = 0
        /// Requests refused because the packet was resent too recently.
        var throttled: UInt64 = 0
    }

    private struct Slot {
        var used = false
        var sequence: UInt16 = 0
        var length = 0
        var resends = 0
        var resentAt: UInt64 = 0
    }

    // `lock` guards everything below; they are only touched inside it.
    private let lock = Mutex(())
    private let arena: UnsafeMutableRawPointer
    private let slots: UnsafeMutableBufferPointer<Slot>
    private var counters = Statistics()
    private let mask: Int
    let minimumResendIntervalNanoseconds: UInt64

    /// Remembers the last `capacity` (a power of two up to 32768) packets.
    init(capacity: Int = 512, minimumResendIntervalNanoseconds: UInt64 = 10_000_000) {
        precondition(capacity > 0 && capacity <= 32768 && capacity & (capacity - 1) == 0,
                     "capacity must be a power of two up to 32768")
        mask = capacity - 1
        self.minimumResendIntervalNanoseconds = minimumResendIntervalNanoseconds
        arena = UnsafeMutableRawPointer.allocate(byteCount: capacity * Self.slotBytes, alignment: 64)
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot())
    }

    deinit {
        arena.deallocate()
        slots.deallocate()
    }

    /// Keeps a copy of each sent RTP packet in `packets` (its sequence number is read
    /// from bytes 2–3), replacing whatever held its slot.
    func store(_ packets: [PacketBuffer]) {
        lock.withLock { _ in
            // Indexed: a for-in over the array allocates in debug builds (a capture
            // thread's direct send stores its frame, and its turns are counted).
            for index in 0..<packets.count {
                let bytes = packets[index].bytes
                guard bytes.count >= 4, bytes.count <= Self.slotBytes, let base = bytes.baseAddress else { continue }
                let sequence = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
                let slot = Int(sequence) & mask
                (arena + slot * Self.slotBytes).copyMemory(from: base, byteCount: bytes.count)
                slots[slot] = Slot(used: true, sequence: sequence, length: bytes.count)
            }
        }
    }

    /// Copies the packet NACKed as `sequence` into `buffer` for resending; false when it
    /// is gone (overwritten, never sent) or was resent within the minimum interval.
    func copy(sequence: UInt16, now: UInt64, into buffer: PacketBuffer) -> Bool {
        lock.withLock { _ in
            counters.requested += 1
            let slot = Int(sequence) & mask
            guard slots[slot].used, slots[slot].sequence == sequence else {
                counters.missing += 1
                return false
            }
            if slots[slot].resends > 0 && now < slots[slot].resentAt + minimumResendIntervalNanoseconds {
                counters.throttled += 1
                return false
            }
            slots[slot].resends += 1
            slots[slot].resentAt = now
            counters.resent += 1
            return buffer.assign(UnsafeRawBufferPointer(start: arena + slot * Self.slotBytes, count: slots[slot].length))
        }
    }

    /// Requests, resends, misses and throttled requests so far.
    var statistics: Statistics { lock.withLock { _ in counters } }
}
