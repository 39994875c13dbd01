import Synchronization

/// The sent video packets a NACK may ask for, as protected bytes, shared between the
/// capture thread (which stores each packet after sending it) and the feedback thread
/// (which copies one out to resend it). The lock covers one copy of at most one MTU:
/// no I/O, no allocation.
///
/// Cost: one memcpy per packet in and per resend out; `capacity` × 1500 bytes at start.
final class RetransmissionStore: @unchecked Sendable {
    static let slotBytes = 1500

    // `lock` guards the three below; they are only touched inside it.
    private let lock = Mutex(())
    private let history: RetransmissionHistory
    private let arena: UnsafeMutableRawPointer
    private let lengths: UnsafeMutableBufferPointer<Int>
    private let capacity: Int

    /// Remembers the last `capacity` (a power of two) packets.
    init(capacity: Int = 512) {
        self.capacity = capacity
        arena = UnsafeMutableRawPointer.allocate(byteCount: capacity * Self.slotBytes, alignment: 64)
        lengths = UnsafeMutableBufferPointer<Int>.allocate(capacity: capacity)
        lengths.initialize(repeating: 0)
        history = RetransmissionHistory(capacity: capacity)
    }

    deinit {
        arena.deallocate()
        lengths.deallocate()
    }

    /// Keeps a copy of a sent packet.
    func store(sequence: UInt16, packet: UnsafeRawBufferPointer, now: UInt64) {
        guard packet.count <= Self.slotBytes, let base = packet.baseAddress else { return }
        let slot = Int(sequence) & (capacity - 1)
        lock.withLock { _ in
            (arena + slot * Self.slotBytes).copyMemory(from: base, byteCount: packet.count)
            lengths[slot] = packet.count
            _ = history.remember(sequence: sequence, handle: slot, sentAt: now)
        }
    }

    /// Copies the packet NACKed as `sequence` into `buffer` for resending; false when it
    /// is gone or was resent too recently.
    func copy(sequence: UInt16, now: UInt64, into buffer: PacketBuffer) -> Bool {
        lock.withLock { _ in
            guard let slot = history.packetToResend(sequence: sequence, now: now) else { return false }
            return buffer.assign(UnsafeRawBufferPointer(start: arena + slot * Self.slotBytes, count: lengths[slot]))
        }
    }

    /// The history's counters (requests, resends, misses, throttled).
    var statistics: RetransmissionHistory.Statistics { lock.withLock { _ in history.statistics } }
}
