/// One direction of the impairment proxy, without sockets: a discrete-event model of a
/// lossy, delaying, reordering path ending in a bottleneck link (see `ImpairmentSettings`
/// for the stages).
///
/// Deterministic: what happens to each packet, and when it leaves, is a function of the
/// seed, the settings and the arrival times passed to `arrive` — never of when `advance`
/// happens to be called. Every packet draws exactly three random numbers (loss, jitter,
/// reorder) whatever the settings, so turning one impairment on does not reshuffle the
/// others, and the same seed drops the same packets.
///
/// Ownership: the link owns every buffer given to `arrive` until `advance` hands it back
/// in `out` (the caller sends and releases it); dropped buffers go straight back to the
/// pool. Confined to one thread (the proxy's). Nothing allocates per packet: the delay
/// heap, the hold list and the bottleneck FIFO are sized to the pool up front.
public final class ImpairmentLink {
    /// The impairments applied to packets from now on.
    public var settings: ImpairmentSettings
    /// Where dropped buffers go back to.
    public let pool: PacketBufferPool
    let counterStorage: ImpairmentCounterStorage

    private struct Delayed {
        var release: UInt64
        var sequence: UInt64
        var hold: Bool
        var buffer: PacketBuffer
    }

    private struct Held {
        var expiry: UInt64
        var remaining: Int
        var buffer: PacketBuffer
    }

    private var random: ImpairmentRandom
    private var sequence: UInt64 = 0
    /// The latest arrival time seen (`arrive` keeps arrivals in order).
    private var lastArrival: UInt64 = 0
    /// Min-heap on (release, sequence).
    private var delayLine: [Delayed] = []
    /// Held packets in the order they were held.
    private var held: [Held] = []
    /// The bottleneck FIFO as a ring: departure time and buffer.
    private var fifo: [(departure: UInt64, buffer: PacketBuffer)?]
    private var fifoHead = 0
    private var fifoCount = 0
    private var queuedBytes = 0
    /// Token bucket state, in nanobits (bits x 10^9) so integer arithmetic is exact.
    private var tokens: Int64 = 0
    private var tokensTime: UInt64 = 0
    private var tokensStarted = false
    private var lastDeparture: UInt64 = 0

    /// A link with `settings` whose random choices follow `seed`, holding at most
    /// `pool.maximumCount` packets. Cost: three arrays of that size, once.
    public convenience init(settings: ImpairmentSettings = ImpairmentSettings(), seed: UInt64, pool: PacketBufferPool) {
        self.init(settings: settings, seed: seed, pool: pool, counters: ImpairmentCounterStorage())
    }

    /// A link that counts into storage someone else reads (the proxy's owner).
    init(settings: ImpairmentSettings, seed: UInt64, pool: PacketBufferPool, counters: ImpairmentCounterStorage) {
        counterStorage = counters
        self.settings = settings
        self.pool = pool
        random = ImpairmentRandom(seed: seed)
        delayLine.reserveCapacity(pool.maximumCount)
        held.reserveCapacity(pool.maximumCount)
        fifo = Array(repeating: nil, count: pool.maximumCount)
    }

    /// Gives every buffer still inside the link back to the pool.
    deinit { drain() }

    /// What this link has done so far.
    public var counters: ImpairmentCounters { counterStorage.snapshot }

    /// Packets inside the link (delayed, held or queued at the bottleneck).
    public var packetsInside: Int { delayLine.count + held.count + fifoCount }

    /// Takes ownership of `buffer`, which arrived at `time` (nanoseconds, the proxy's
    /// clock): drops it (blackhole, loss) or schedules it. Cost: three random numbers and
    /// a heap insertion, O(log n); no allocation.
    /// `time` never goes back: packets are handed over in the order the socket received
    /// them, and a receive stamp a slewed system clock put earlier than its predecessor's
    /// (kernel stamps are CLOCK_REALTIME) must not let it overtake that packet.
    public func arrive(_ buffer: PacketBuffer, at time: UInt64) {
        let time = max(time, lastArrival)
        lastArrival = time
        let size = UInt64(buffer.length)
        counterStorage.received.add(1, ordering: .relaxed)
        counterStorage.receivedBytes.add(size, ordering: .relaxed)
        let lossDraw = random.nextUnit()
        let jitterDraw = random.nextUnit()
        let reorderDraw = random.nextUnit()
        if settings.blackhole {
            counterStorage.droppedByBlackhole.add(1, ordering: .relaxed)
            pool.release(buffer)
            return
        }
        if lossDraw < settings.lossProbability {
            counterStorage.droppedByLoss.add(1, ordering: .relaxed)
            pool.release(buffer)
            return
        }
        let jitter = UInt64(jitterDraw * Double(settings.jitterNanoseconds))
        let holdable = settings.reorderPackets > 0 || settings.reorderNanoseconds > 0
        let hold = holdable && reorderDraw < settings.reorderProbability
        sequence += 1
        pushDelayed(Delayed(release: time &+ settings.delayNanoseconds &+ jitter, sequence: sequence, hold: hold, buffer: buffer))
    }

    /// Runs the model up to `now` and appends the packets that have left the bottleneck,
    /// in departure order, to `out` (the caller sends and releases them; keep `out`'s
    /// capacity reserved so appending does not allocate). Cost: O(log n) per event.
    public func advance(to now: UInt64, into out: inout [PacketBuffer]) {
        while true {
            // The earliest event; on a tie a departure goes first, then a hold expiry,
            // then a packet coming off the delay line.
            var kind = 0
            var time = UInt64.max
            if fifoCount > 0, let head = fifo[fifoHead] { kind = 1; time = head.departure }
            var heldIndex = -1
            for index in held.indices where held[index].expiry < time || (held[index].expiry == time && kind == 0) {
                heldIndex = index
                time = held[index].expiry
                kind = 2
            }
            if let top = delayLine.first, top.release < time || (top.release == time && kind == 0) {
                kind = 3
                time = top.release
            }
            guard kind != 0, time <= now else { return }
            switch kind {
            case 1:
                let entry = fifo[fifoHead]!
                fifo[fifoHead] = nil
                fifoHead = (fifoHead + 1) % fifo.count
                fifoCount -= 1
                depart(entry.buffer, at: entry.departure, into: &out)
            case 2:
                let entry = held.remove(at: heldIndex)
                enterBottleneck(entry.buffer, at: time)
            default:
                let entry = popDelayed()
                if entry.hold {
                    counterStorage.reordered.add(1, ordering: .relaxed)
                    let expiry = settings.reorderNanoseconds > 0 ? time &+ settings.reorderNanoseconds : UInt64.max
                    let remaining = settings.reorderPackets > 0 ? settings.reorderPackets : Int.max
                    held.append(Held(expiry: expiry, remaining: remaining, buffer: entry.buffer))
                } else {
                    enterBottleneck(entry.buffer, at: time)
                    passHeldPackets(at: time)
                }
            }
        }
    }

    /// When `advance` next has something to do, or nil if the link is empty.
    public var nextDeadline: UInt64? {
        var deadline = UInt64.max
        if fifoCount > 0, let head = fifo[fifoHead] { deadline = head.departure }
        for entry in held where entry.expiry < deadline { deadline = entry.expiry }
        if let top = delayLine.first, top.release < deadline { deadline = top.release }
        return deadline == .max ? nil : deadline
    }

    /// Drops everything inside the link back into the pool (not counted as drops).
    public func drain() {
        for entry in delayLine { pool.release(entry.buffer) }
        delayLine.removeAll(keepingCapacity: true)
        for entry in held { pool.release(entry.buffer) }
        held.removeAll(keepingCapacity: true)
        while fifoCount > 0 {
            if let entry = fifo[fifoHead] { pool.release(entry.buffer) }
            fifo[fifoHead] = nil
            fifoHead = (fifoHead + 1) % fifo.count
            fifoCount -= 1
        }
        queuedBytes = 0
    }

    // MARK: - Stages

    /// A packet that was not held has passed every held packet: count it against their
    /// packet limits and release the ones whose limit is reached, in the order they were held.
    private func passHeldPackets(at time: UInt64) {
        var index = 0
        while index < held.count {
            held[index].remaining -= held[index].remaining == Int.max ? 0 : 1
            if held[index].remaining <= 0 {
                let entry = held.remove(at: index)
                enterBottleneck(entry.buffer, at: time)
            } else {
                index += 1
            }
        }
    }

    /// The bottleneck: drop-tail against the queue limit, then a departure time from the
    /// token bucket (or `time` itself without a cap). Departures never go backwards.
    private func enterBottleneck(_ buffer: PacketBuffer, at time: UInt64) {
        let size = buffer.length
        var departure = max(time, lastDeparture)
        if let rate = settings.bandwidthBitsPerSecond, rate > 0 {
            if queuedBytes > 0 && queuedBytes + size > settings.queueLimitBytes {
                counterStorage.droppedByCap.add(1, ordering: .relaxed)
                pool.release(buffer)
                return
            }
            let rateValue = Int64(clamping: rate)
            let burst = Int64(max(settings.burstBytes, 1)) * 8_000_000_000
            let need = Int64(min(size, max(settings.burstBytes, 1))) * 8_000_000_000
            let available = tokens(at: departure, rate: rateValue, burst: burst)
            if available < need {
                departure += UInt64((need - available + rateValue - 1) / rateValue)
            }
            tokens = tokens(at: departure, rate: rateValue, burst: burst) - Int64(size) * 8_000_000_000
            tokensTime = departure
            tokensStarted = true
        }
        lastDeparture = departure
        queuedBytes += size
        fifo[(fifoHead + fifoCount) % fifo.count] = (departure, buffer)
        fifoCount += 1
    }

    /// The bucket's content at `time` (full before the first packet).
    private func tokens(at time: UInt64, rate: Int64, burst: Int64) -> Int64 {
        guard tokensStarted else { return burst }
        let elapsed = Int64(clamping: time &- tokensTime)
        let (refill, overflow) = elapsed.multipliedReportingOverflow(by: rate)
        if overflow { return burst }
        let (sum, overflowSum) = tokens.addingReportingOverflow(refill)
        return overflowSum ? burst : min(burst, sum)
    }

    private func depart(_ buffer: PacketBuffer, at time: UInt64, into out: inout [PacketBuffer]) {
        queuedBytes -= buffer.length
        if counterStorage.forwarded.load(ordering: .relaxed) == 0 {
            counterStorage.firstForward.store(time, ordering: .relaxed)
        }
        counterStorage.forwarded.add(1, ordering: .relaxed)
        counterStorage.forwardedBytes.add(UInt64(buffer.length), ordering: .relaxed)
        counterStorage.lastForward.store(time, ordering: .relaxed)
        out.append(buffer)
    }

    // MARK: - Delay heap

    private func earlier(_ a: Delayed, _ b: Delayed) -> Bool {
        a.release < b.release || (a.release == b.release && a.sequence < b.sequence)
    }

    private func pushDelayed(_ entry: Delayed) {
        delayLine.append(entry)
        var child = delayLine.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard earlier(delayLine[child], delayLine[parent]) else { break }
            delayLine.swapAt(child, parent)
            child = parent
        }
    }

    private func popDelayed() -> Delayed {
        let top = delayLine[0]
        let last = delayLine.removeLast()
        if !delayLine.isEmpty {
            delayLine[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < delayLine.count && earlier(delayLine[left], delayLine[smallest]) { smallest = left }
                if right < delayLine.count && earlier(delayLine[right], delayLine[smallest]) { smallest = right }
                if smallest == parent { break }
                delayLine.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return top
    }
}
