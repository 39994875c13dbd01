import Glibc
import OTMedia

/// A subscriber leg's retransmission history: the video packets it sent (SRTP-protected,
/// as sent, so a resend never protects an index twice), found by sequence number for the
/// subscriber's NACKs (RFC 4585 6.2.1) while younger than `ageNanoseconds`.
///
/// Why not one pooled 2 KiB buffer per kept packet (as before): the kept packets are
/// ~1 KB on average and a 512-slot ring of buffers stays full whatever the leg's rate, so
/// each leg held ~1.2 MiB. Here the bytes go back to back into one arena, and the arena
/// is reused from its lowest address as soon as the oldest kept packets there expired
/// (with a quarter of the kept bytes spare), so the memory a leg touches is about 1.25 ×
/// one `ageNanoseconds` of its video (~80 KiB for a 500 kbit/s stream), not the worst case: the arena is reserved with `mmap` (address
/// space only) and a page becomes resident when first written.
///
/// Packets leave in the order they came (a FIFO of entries); a packet also leaves when
/// it is older than the age, when the FIFO is full (`slots` packets), or when its bytes
/// are needed for a newer one: a stream faster than `arenaBytes` per age, or, while the
/// arena is wrapped, a burst beyond the quarter spare (a rate step up), which then keeps
/// about 1.25 × the bytes of the previous age (the newest packets; the oldest, least
/// likely NACKed, go first) until the arena unwraps and grows to the new rate. Lookup: the
/// entry index for `sequence % slots`, checked against the entry's own sequence number.
///
/// Threads: the leg's forwarding thread only (no lock). Cost: per leg, one `mmap` of
/// `arenaBytes` at open (resident: what is written), `slots` × 18 bytes of tables; per
/// kept packet one copy of its bytes, O(1) amortized; per lookup O(1). No allocation
/// after `init`.
final class LegHistory: @unchecked Sendable {
    /// One kept packet: where its bytes are, its sequence number and when it went.
    private struct Entry {
        var offset: UInt32
        var length: UInt16
        var sequence: UInt16
        var sentAt: UInt64
    }

    /// The most packets kept (and the size of the sequence-number index).
    let slots: Int
    /// Address space reserved for packet bytes.
    let arenaBytes: Int
    /// How old a kept packet may be and still be found.
    let ageNanoseconds: UInt64
    private let arena: UnsafeMutableRawPointer
    private let entries: UnsafeMutablePointer<Entry>
    private let index: UnsafeMutablePointer<UInt16>
    /// The oldest entry, how many there are, and where the next packet's bytes may start.
    private var front = 0
    private var count = 0
    private var head = 0
    /// The highest arena offset ever written: an upper bound of its resident bytes.
    private(set) var highWater = 0

    /// Reserves the arena (`mmap`, no memory committed) and the tables. Throws when the
    /// address space cannot be reserved.
    init(slots: Int, arenaBytes: Int, ageNanoseconds: UInt64) throws(MediaError) {
        precondition(slots > 0 && slots <= Int(UInt16.max) + 1 && arenaBytes > 0 && arenaBytes <= Int(UInt32.max),
                     "history sizes out of range")
        let mapped = mmap(nil, arenaBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let mapped, mapped != MAP_FAILED else {
            throw MediaError(.systemError, "cannot reserve \(arenaBytes) bytes of retransmission history")
        }
        // Small pages only: with transparent huge pages on ("always" is common), the
        // kernel could back the arena with 2 MiB pages and make all of it resident.
        _ = madvise(mapped, arenaBytes, MADV_NOHUGEPAGE)
        arena = mapped
        self.slots = slots
        self.arenaBytes = arenaBytes
        self.ageNanoseconds = ageNanoseconds
        entries = .allocate(capacity: slots)
        entries.initialize(repeating: Entry(offset: 0, length: 0, sequence: 0, sentAt: 0), count: slots)
        index = .allocate(capacity: slots)
        index.initialize(repeating: 0, count: slots)
    }

    deinit {
        munmap(arena, arenaBytes)
        entries.deallocate()
        index.deallocate()
    }

    /// Packets kept now (some may be too old to be found).
    var keptCount: Int { count }

    /// Keeps a copy of `packet` (sent at `now`) under `sequence`, dropping the packets that
    /// expired and, if needed, the oldest ones; false when it cannot be kept (empty, or
    /// larger than half the arena). O(1) amortized, no allocation.
    @discardableResult
    func remember(_ packet: UnsafeRawBufferPointer, sequence: UInt16, now: UInt64) -> Bool {
        let length = packet.count
        guard let source = packet.baseAddress, length > 0, length <= Int(UInt16.max), length <= arenaBytes / 2 else { return false }
        while count > 0, now &- entries[front].sentAt > ageNanoseconds { dropOldest() }
        if count == slots { dropOldest() }
        let offset = place(length)
        (arena + offset).copyMemory(from: source, byteCount: length)
        let position = (front + count) % slots
        entries[position] = Entry(offset: UInt32(offset), length: UInt16(length), sequence: sequence, sentAt: now)
        index[Int(sequence) % slots] = UInt16(truncatingIfNeeded: position)
        count += 1
        head = offset + length
        if head > highWater { highWater = head }
        return true
    }

    /// The bytes kept for `sequence` if they are still there and no older than the age;
    /// valid until the next `remember` or `removeAll`. O(1).
    func kept(_ sequence: UInt16, now: UInt64) -> UnsafeRawBufferPointer? {
        guard count > 0 else { return nil }
        let position = Int(index[Int(sequence) % slots])
        guard (position - front + slots) % slots < count else { return nil }
        let entry = entries[position]
        guard entry.sequence == sequence, now &- entry.sentAt <= ageNanoseconds else { return nil }
        return UnsafeRawBufferPointer(start: arena + Int(entry.offset), count: Int(entry.length))
    }

    /// Forgets every packet (the arena's pages stay until the history is freed).
    func removeAll() {
        front = 0
        count = 0
        head = 0
    }

    /// Where `length` bytes go: the arena's start when the oldest kept bytes begin past
    /// them and a quarter of the kept bytes more (reuse low pages first), else after the newest; drops the oldest packets
    /// until one of the two fits. Invariant with packets kept: `head` ≠ the oldest's offset.
    private func place(_ length: Int) -> Int {
        while count > 0 {
            let tail = Int(entries[front].offset)
            if head > tail {
                // Kept bytes are [tail, head): [0, tail) and [head, end) are free. Wrap
                // once the freed bottom leaves a quarter of the kept bytes spare, so a
                // burst (a keyframe) on the wrapped arena does not evict young packets.
                if length + (head - tail) / 4 < tail { return 0 }
                if head + length <= arenaBytes { return head }
            } else if head + length < tail {
                // Wrapped: kept bytes are [tail, …) and [0, head).
                return head
            }
            dropOldest()
        }
        return 0
    }

    private func dropOldest() {
        front = (front + 1) % slots
        count -= 1
        if count == 0 {
            front = 0
            head = 0
        }
    }
}
