import Glibc

/// The bounded hand-off between a forwarding thread and a recorder's writer thread: a ring
/// of preallocated packet slots behind one mutex.
///
/// `push` copies the packet into the next free slot; when every slot is taken it drops the
/// packet and counts it, so a stalled writer never slows the producer. The writer polls
/// (it waits up to its poll period on an empty queue) and is signalled only when a quarter
/// of the ring has filled: a live stream's packets are written in batches of a poll period
/// instead of waking the writer (and making a futex call on the forwarding thread) per packet.
/// The single consumer reads the head slot in place (the producer never touches an
/// occupied slot) and releases it afterwards.
///
/// Cost: `capacity × slotSize` bytes allocated once; per push one short lock and one copy
/// (a condition signal once per quarter ring), no allocation. Safe for any number of producers and one consumer.
final class RecordingPacketQueue: @unchecked Sendable {
    /// What a slot holds besides the bytes.
    struct Entry {
        /// 0 video RTP, 1 audio RTP, 2 video SR, 3 audio SR.
        var kind: UInt8 = 0
        /// Bytes used in the slot (RTP packets only).
        var length: Int = 0
        /// Arrival time on the monotonic clock.
        var arrival: UInt64 = 0
        /// Sender reports: the NTP timestamp.
        var ntp: UInt64 = 0
        /// Sender reports: the RTP timestamp paired with it.
        var rtpTimestamp: UInt32 = 0
    }

    let capacity: Int
    let slotSize: Int
    private let storage: UnsafeMutableRawPointer
    private let entries: UnsafeMutablePointer<Entry>
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    // Guarded by `mutex`.
    private var head = 0
    private var count = 0
    private var closed = false
    private(set) var pushed = 0
    private(set) var dropped = 0
    private(set) var oversized = 0
    /// The backlog at which `push` wakes the writer before its poll period ends.
    private let wakeThreshold: Int

    init(capacity: Int, slotSize: Int) {
        self.capacity = max(1, capacity)
        self.slotSize = max(64, slotSize)
        wakeThreshold = max(1, self.capacity / 4)
        storage = .allocate(byteCount: self.capacity * self.slotSize, alignment: 16)
        entries = .allocate(capacity: self.capacity)
        entries.initialize(repeating: Entry(), count: self.capacity)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        // The writer waits with a timeout on the monotonic clock, so the wall clock being set cannot stretch it.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
        entries.deinitialize(count: capacity)
        entries.deallocate()
        storage.deallocate()
    }

    /// Copies `bytes` (may be empty for sender reports) into a free slot; false when the
    /// queue is full, closed, or the packet is larger than a slot (each counted).
    func push(_ entry: Entry, bytes: UnsafeRawBufferPointer) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !closed else { return false }
        guard bytes.count <= slotSize else {
            oversized += 1
            return false
        }
        guard count < capacity else {
            dropped += 1
            return false
        }
        let index = (head + count) % capacity
        if let base = bytes.baseAddress, bytes.count > 0 {
            (storage + index * slotSize).copyMemory(from: base, byteCount: bytes.count)
        }
        var stored = entry
        stored.length = bytes.count
        entries[index] = stored
        count += 1
        pushed += 1
        // The writer polls; wake it early only when a quarter of the ring is waiting.
        if count == wakeThreshold { pthread_cond_signal(condition) }
        return true
    }

    /// Runs `body` on the oldest entry and frees its slot afterwards. Waits up to
    /// `timeoutNanoseconds` for one; returns false when none came (or the queue is closed
    /// and empty). Consumer thread only.
    func pop(timeoutNanoseconds: UInt64, _ body: (Entry, UnsafeRawBufferPointer) -> Void) -> Bool {
        pthread_mutex_lock(mutex)
        if count == 0 && !closed {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let total = UInt64(now.tv_nsec) + timeoutNanoseconds
            var deadline = timespec(tv_sec: now.tv_sec + Int(total / 1_000_000_000), tv_nsec: Int(total % 1_000_000_000))
            _ = pthread_cond_timedwait(condition, mutex, &deadline)
        }
        guard count > 0 else {
            pthread_mutex_unlock(mutex)
            return false
        }
        consumeHeadAndUnlock(body)
        return true
    }

    /// Runs `body` on the oldest entry, if it arrived at or before `limit` (monotonic clock),
    /// and frees its slot afterwards; false when the queue is empty or the oldest came later.
    /// Never waits. Lets a consumer running behind real time take only what had arrived by
    /// the instant it is working on. Consumer thread only; two short locks.
    func pop(arrivedBy limit: UInt64, _ body: (Entry, UnsafeRawBufferPointer) -> Void) -> Bool {
        pthread_mutex_lock(mutex)
        guard count > 0, entries[head].arrival <= limit else {
            pthread_mutex_unlock(mutex)
            return false
        }
        consumeHeadAndUnlock(body)
        return true
    }

    /// Called with the lock held and the queue non-empty: reads the oldest entry outside the
    /// lock, then frees its slot. The slot stays counted while `body` reads it, so no producer
    /// writes it meanwhile.
    private func consumeHeadAndUnlock(_ body: (Entry, UnsafeRawBufferPointer) -> Void) {
        let index = head
        let entry = entries[index]
        pthread_mutex_unlock(mutex)
        body(entry, UnsafeRawBufferPointer(start: storage + index * slotSize, count: entry.length))
        pthread_mutex_lock(mutex)
        head = (head + 1) % capacity
        count -= 1
        pthread_mutex_unlock(mutex)
    }

    /// Refuses further pushes and wakes the consumer; entries already queued stay poppable.
    func close() {
        pthread_mutex_lock(mutex)
        closed = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// True once closed and drained.
    var isClosedAndEmpty: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return closed && count == 0
    }

    /// (pushed, dropped, oversized) read together.
    var counters: (pushed: Int, dropped: Int, oversized: Int) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return (pushed, dropped, oversized)
    }
}
