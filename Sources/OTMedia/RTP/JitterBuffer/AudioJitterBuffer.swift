/// Holds an audio stream's RTP packets (one Opus frame each) until their playout slot,
/// and says for every slot what the decoder should do: decode the packet, rebuild a lost
/// one from the next packet's in-band FEC, or conceal (Opus PLC). The output never has a
/// gap: every pull yields exactly one frame's worth of instruction.
///
/// Playout is pulled by the audio clock (a speaker or a file writer, every frame
/// duration); the first packet starts playing `targetDelay` after it arrived, which is
/// the room reordered and jittered packets have. When more than `maximumBuffered`
/// frames wait (the sender's clock runs fast, or a burst arrived after a stall), the
/// oldest are dropped to catch up (counted).
///
/// Cost: O(1) per insert and pull; storage allocated once. Handles are the caller's
/// packet buffers: every stored handle comes back exactly once, through a pull result
/// or `discard`. Not thread-safe: one thread owns it.
public final class AudioJitterBuffer {
    /// What to play in the next slot.
    public enum Playout: Sendable, Equatable {
        /// Nothing yet: the stream has not started (or waits out its initial delay).
        case waiting
        /// Decode this packet; the handle goes back to the caller.
        case decode(handle: Int)
        /// The slot's packet is lost but the next one has arrived: decode its FEC data for
        /// this slot. The handle stays in the buffer (it is played normally next time).
        case recoverWithFEC(nextHandle: Int)
        /// The slot's packet is lost: conceal (PLC).
        case conceal
    }

    /// What `insert` did with a packet.
    public enum InsertResult: Sendable, Equatable {
        /// Buffered; the buffer owns the handle now.
        case stored
        /// Already buffered or its slot has been played; the caller keeps the handle.
        case refused
    }

    /// Counters since creation.
    public struct Statistics: Sendable, Equatable {
        /// Packets stored.
        public var packetsStored: UInt64 = 0
        /// Packets that came after their slot was played, or twice.
        public var packetsRefused: UInt64 = 0
        /// Slots played from their packet.
        public var decoded: UInt64 = 0
        /// Slots rebuilt from the next packet's FEC.
        public var recoveredWithFEC: UInt64 = 0
        /// Slots concealed.
        public var concealed: UInt64 = 0
        /// Packets dropped to bring the delay back down.
        public var droppedToCatchUp: UInt64 = 0
        /// Times playout started over behind a packet it had outrun (the sender paused
        /// or skipped frames, its clock is slow, or the network delay grew).
        public var resynchronizations: UInt64 = 0
        /// All zeros.
        public init() {}
    }

    /// Nanoseconds the first packet waits before it plays.
    public let targetDelayNanoseconds: UInt64
    /// Frames that may wait before the oldest are dropped.
    public let maximumBuffered: Int
    /// Counters since creation.
    public private(set) var statistics = Statistics()

    private struct Slot { var present = false; var extended: Int64 = 0; var handle = 0 }
    private let slots: UnsafeMutableBufferPointer<Slot>
    private let mask: Int64
    private var started = false
    private var playing = false
    private var startAt: UInt64 = 0
    private var head: Int64 = 0       // next slot to play
    private var highest: Int64 = 0
    private var refusedInARow = 0

    /// A buffer of `capacity` packets (a power of two) that starts playing
    /// `targetDelayMilliseconds` after the first packet and keeps at most
    /// `maximumBuffered` frames waiting.
    public init(targetDelayMilliseconds: Int = 60, maximumBuffered: Int = 15, capacity: Int = 64) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "capacity must be a power of two")
        precondition(maximumBuffered > 0 && maximumBuffered < capacity, "maximumBuffered must be below capacity")
        targetDelayNanoseconds = UInt64(max(targetDelayMilliseconds, 0)) * 1_000_000
        self.maximumBuffered = maximumBuffered
        mask = Int64(capacity - 1)
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot())
    }

    deinit { slots.deallocate() }

    /// Frames waiting to play.
    public var bufferedCount: Int {
        guard started, highest >= head else { return 0 }
        var n = 0
        for e in head...highest where slots[Int(e & mask)].present && slots[Int(e & mask)].extended == e { n += 1 }
        return n
    }

    /// Takes a packet by its RTP sequence number, arrived at `now` (ns).
    public func insert(sequence: UInt16, handle: Int, now: UInt64, discard: (Int) -> Void) -> InsertResult {
        if !started {
            started = true
            head = Int64(sequence)
            highest = head
            startAt = now + targetDelayNanoseconds
        }
        let delta = Int64(RTPSerial.distance(from: UInt16(truncatingIfNeeded: highest), to: sequence))
        let extended = highest + delta
        if extended < head && !playing && highest - extended < Int64(maximumBuffered) {
            head = extended  // the stream's real first packet, reordered before playout began
        }
        if playing && extended < head && (bufferedCount == 0 || refusedInARow >= Self.refusalsBeforeResync) {
            // Playout has outrun the stream: nothing of it is waiting (or only stale
            // packets), so every new packet would count as late. Start over behind this
            // one with the full target delay rather than conceal for good.
            resynchronize(at: extended, now: now, discard)
        } else if extended - head >= Int64(mask) {
            // Far ahead of playout (a long stall): start over at this packet, with the delay.
            resynchronize(at: extended, now: now, discard)
        }
        let index = Int(extended & mask)
        guard extended >= head, !(slots[index].present && slots[index].extended == extended) else {
            statistics.packetsRefused += 1
            refusedInARow += 1
            return .refused
        }
        refusedInARow = 0
        slots[index] = Slot(present: true, extended: extended, handle: handle)
        highest = max(highest, extended)
        statistics.packetsStored += 1
        // Too much waiting: drop the oldest to bring the delay back to the target.
        while playing && highest - head + 1 > Int64(maximumBuffered) {
            let i = Int(head & mask)
            if slots[i].present && slots[i].extended == head {
                discard(slots[i].handle)
                statistics.droppedToCatchUp += 1
            }
            slots[i].present = false
            head += 1
        }
        return .stored
    }

    /// The instruction for the next playout slot (call once per frame duration).
    public func pull(now: UInt64) -> Playout {
        guard started else { return .waiting }
        if !playing {
            guard now >= startAt else { return .waiting }
            playing = true
        }
        let index = Int(head & mask)
        defer { head += 1 }
        if slots[index].present && slots[index].extended == head {
            slots[index].present = false
            statistics.decoded += 1
            highest = max(highest, head)
            return .decode(handle: slots[index].handle)
        }
        let next = Int((head + 1) & mask)
        highest = max(highest, head)
        if slots[next].present && slots[next].extended == head + 1 {
            statistics.recoveredWithFEC += 1
            return .recoverWithFEC(nextHandle: slots[next].handle)
        }
        statistics.concealed += 1
        return .conceal
    }

    /// Late packets in a row after which playout starts over behind them.
    static let refusalsBeforeResync = 5

    private func resynchronize(at extended: Int64, now: UInt64, _ discard: (Int) -> Void) {
        dropAll(discard)
        head = extended
        highest = extended
        playing = false
        startAt = now + targetDelayNanoseconds
        refusedInARow = 0
        statistics.resynchronizations += 1
    }

    /// Drops everything (handles to `discard`) and waits for a new first packet.
    public func reset(discard: (Int) -> Void) {
        dropAll(discard)
        started = false
        playing = false
    }

    private func dropAll(_ discard: (Int) -> Void) {
        for i in 0..<slots.count where slots[i].present {
            discard(slots[i].handle)
            slots[i].present = false
        }
    }
}
