/// Spreads packets out at a pacing rate so a keyframe's burst does not hit the network
/// at once (draft-ietf-rmcat-gcc-02 section 4, "Sending Engine": the pacer sends a group
/// of packets every burst_time; a burst that overflows a bottleneck queue shows up as
/// delay and loss the estimator then blames on the network).
///
/// Model: a token budget refilled at `pacingRate` (bits/s) that may hold at most
/// `burstNanoseconds` worth (5 ms, gcc-02 section 4's RECOMMENDED burst_time), so a long
/// idle period never banks a burst. A packet may leave while the budget is not negative;
/// leaving subtracts its size, so the budget can go at most one packet into debt: at
/// least one packet can always leave (however large), and the most that leaves at one
/// instant is the burst plus one packet. Three fixed-capacity FIFO queues: audio always
/// leaves first (audio keeps priority in every queue, issue 5), then retransmissions (a
/// frame the receiver waits for is older than any new one), then video. When a queue is full the oldest packet of
/// that queue is dropped and returned to the caller (video drops never touch audio).
/// When both queues are empty and a padding rate is set (bandwidth probing), the pacer
/// asks for padding packets, paced by a second budget at the padding rate that every
/// sent byte draws down, so padding only fills the gap up to the probe rate.
///
/// The caller sets the rate (typically `pacingFactor` × the estimator's target), queues
/// handles with `enqueue`, calls `dequeue(now:)` until it returns nil, sends those, and
/// sleeps until `nextSendTime(now:)`. Pure: `now` is the caller's monotonic nanoseconds.
/// Cost: two preallocated rings; every call is O(1) with no allocation.
public struct Pacer: Sendable {
    /// The usual pacing rate as a multiple of the target bitrate: faster than the target
    /// so the encoder's overshoot and keyframes drain within a frame or two
    /// (draft-ietf-rmcat-gcc-02 section 4 paces at a multiple of the target; 2.5 is the
    /// factor issue 5's plan names). The pacer itself only sees the rate.
    public static let pacingFactor = 2.5

    /// Settings fixed at creation.
    public struct Configuration: Sendable, Equatable {
        /// Most budget the pacer banks: 5 ms worth (draft-ietf-rmcat-gcc-02 section 4,
        /// burst_time RECOMMENDED 5 ms).
        public var burstNanoseconds: UInt64 = 5_000_000
        /// Audio queue slots (50 packets/s of 20 ms Opus: 64 slots is over a second).
        public var audioCapacity: Int = 64
        /// Video queue slots (a 720p keyframe is ~30–100 packets; 1024 is several).
        public var videoCapacity: Int = 1024
        /// Retransmission queue slots (128: a NACK lists at most a few dozen).
        public var retransmissionCapacity: Int = 128
        /// Bytes of one padding request. RTP padding's length is one octet (RFC 3550
        /// section 5.1), so one padding-only packet carries at most 255 padding bytes;
        /// the caller adds its headers.
        public var paddingPacketSize: Int = 255

        /// The defaults above.
        public init() {}

        /// Explicit settings.
        public init(burstNanoseconds: UInt64, audioCapacity: Int, videoCapacity: Int, paddingPacketSize: Int = 255) {
            self.burstNanoseconds = burstNanoseconds
            self.audioCapacity = audioCapacity
            self.videoCapacity = videoCapacity
            self.paddingPacketSize = paddingPacketSize
        }
    }

    /// Running totals.
    public struct Counters: Sendable, Equatable {
        /// Media packets (audio, video, retransmission) that left.
        public var sentPackets: UInt64 = 0
        /// Their bytes.
        public var sentBytes: UInt64 = 0
        /// Padding requests handed out.
        public var paddingPackets: UInt64 = 0
        /// Their bytes.
        public var paddingBytes: UInt64 = 0
        /// Video or retransmission packets dropped because the video queue was full.
        public var droppedVideoPackets: UInt64 = 0
        /// Audio packets dropped because the audio queue was full.
        public var droppedAudioPackets: UInt64 = 0

        /// All zero.
        public init() {}
    }

    /// One nanosecond of budget at 1 bit/s: budgets count bits × 10^9 so that
    /// `elapsed_ns × rate_bps` adds exactly, with no rounding.
    static let unitsPerBit: Int64 = 1_000_000_000

    /// The settings.
    public let configuration: Configuration
    /// Bits per second media may leave at.
    public private(set) var pacingRate: UInt64
    /// Bits per second padding fills up to when the queues are empty (0: no padding).
    public private(set) var paddingRate: UInt64 = 0
    /// Totals so far.
    public private(set) var counters = Counters()

    private var audio: PacedPacketRing
    private var video: PacedPacketRing
    private var retransmissions: PacedPacketRing
    private var budget: Int64 = 0
    private var paddingBudget: Int64 = 0
    private var lastUpdate: UInt64

    /// A pacer with empty queues and an empty budget (the first packet leaves at once,
    /// the next after its own size at `pacingRate`). Allocates both rings.
    public init(configuration: Configuration = Configuration(), pacingRate: UInt64, now: UInt64) {
        self.configuration = configuration
        self.pacingRate = pacingRate
        audio = PacedPacketRing(capacity: configuration.audioCapacity)
        video = PacedPacketRing(capacity: configuration.videoCapacity)
        retransmissions = PacedPacketRing(capacity: max(1, configuration.retransmissionCapacity))
        lastUpdate = now
    }

    // MARK: Rates

    /// Changes the pacing rate from `now` on (the budget earned so far at the old rate
    /// is kept, within the new burst bound). 0 pauses media. Cost: O(1).
    public mutating func setPacingRate(_ bitsPerSecond: UInt64, now: UInt64) {
        advance(to: now)
        pacingRate = bitsPerSecond
        budget = min(budget, Self.cap(rate: bitsPerSecond, burst: configuration.burstNanoseconds))
    }

    /// Sets the rate padding fills up to while probing (0 stops padding). Cost: O(1).
    public mutating func setPaddingRate(_ bitsPerSecond: UInt64, now: UInt64) {
        advance(to: now)
        paddingRate = bitsPerSecond
        paddingBudget = min(paddingBudget, Self.cap(rate: bitsPerSecond, burst: configuration.burstNanoseconds))
    }

    // MARK: Queues

    /// Queues a packet: `.audio`, `.retransmission` and `.video` each in its own queue
    /// (`.padding` is refused and returned as is). When that queue is full its
    /// oldest packet is dropped, counted, and returned so the caller can free its buffer;
    /// otherwise returns nil. Cost: O(1), no allocation.
    @discardableResult
    public mutating func enqueue(handle: UInt32, size: Int, kind: SentPacketKind, now: UInt64) -> PacedPacket? {
        let packet = PacedPacket(handle: handle, size: size, kind: kind, enqueueNanoseconds: now)
        switch kind {
        case .padding:
            return packet
        case .audio:
            let dropped = audio.pushDroppingOldest(packet)
            if dropped != nil { counters.droppedAudioPackets += 1 }
            return dropped
        case .retransmission:
            let dropped = retransmissions.pushDroppingOldest(packet)
            if dropped != nil { counters.droppedVideoPackets += 1 }
            return dropped
        case .video:
            let dropped = video.pushDroppingOldest(packet)
            if dropped != nil { counters.droppedVideoPackets += 1 }
            return dropped
        }
    }

    /// Calls `body` with the handle of each queued new-video packet, oldest first.
    /// Cost: O(queued video), no allocation.
    public func forEachQueuedVideo(_ body: (UInt32) -> Void) {
        video.forEach { body($0.handle) }
    }

    /// Drops the queued new-video packets (not retransmissions, not audio) whose handle
    /// `belongs` picks, handing each to `dropped`; counted in `droppedVideoPackets`.
    /// Returns how many went. For frames that can no longer help their receiver (it asked
    /// for a keyframe and they would leave late). Cost: O(queued video), no allocation.
    @discardableResult
    public mutating func dropVideo(where belongs: (UInt32) -> Bool, dropped: (PacedPacket) -> Void) -> Int {
        let gone = video.removeAll(where: { belongs($0.handle) }, removed: dropped)
        counters.droppedVideoPackets += UInt64(gone)
        return gone
    }

    /// The next packet allowed to leave at `now` (audio first, then video, then a padding
    /// request when probing), its size taken from the budget; nil when nothing may leave
    /// yet. Call until nil, then sleep until `nextSendTime(now:)`. Cost: O(1).
    public mutating func dequeue(now: UInt64) -> PacedPacket? {
        advance(to: now)
        guard budget >= 0, pacingRate > 0 else { return nil }
        if let packet = audio.popFirst() ?? retransmissions.popFirst() ?? video.popFirst() {
            spend(packet.size)
            counters.sentPackets += 1
            counters.sentBytes += UInt64(packet.size)
            return packet
        }
        guard paddingRate > 0, paddingBudget >= 0 else { return nil }
        let size = configuration.paddingPacketSize
        spend(size)
        counters.paddingPackets += 1
        counters.paddingBytes += UInt64(size)
        return PacedPacket(handle: 0, size: size, kind: .padding, enqueueNanoseconds: now)
    }

    /// When `dequeue` will next return something: `now` if it would now, a later time if
    /// the budget must refill first, nil if there is nothing to send (queues empty and no
    /// padding) or the pacing rate is 0. Cost: O(1), does not change the pacer.
    public func nextSendTime(now: UInt64) -> UInt64? {
        guard pacingRate > 0 else { return nil }
        let elapsed = now > lastUpdate ? now - lastUpdate : 0
        let media = Self.refilled(budget, rate: pacingRate, elapsed: elapsed, burst: configuration.burstNanoseconds)
        let mediaWait = Self.wait(for: media, rate: pacingRate)
        if !audio.isEmpty || !video.isEmpty || !retransmissions.isEmpty { return now + mediaWait }
        guard paddingRate > 0 else { return nil }
        let padding = Self.refilled(paddingBudget, rate: paddingRate, elapsed: elapsed,
                                    burst: configuration.burstNanoseconds)
        return now + max(mediaWait, Self.wait(for: padding, rate: paddingRate))
    }

    /// Audio packets queued.
    public var queuedAudioPackets: Int { audio.count }
    /// Video and retransmission packets queued.
    public var queuedVideoPackets: Int { video.count + retransmissions.count }
    /// Bytes queued in all queues.
    public var queuedBytes: Int { audio.bytes + video.bytes + retransmissions.bytes }

    /// How long the oldest queued packet has waited at `now` (0 when empty): the
    /// pushback signal for an encoder that produces more than the pacer lets out.
    public func queueDelay(now: UInt64) -> UInt64 {
        let audioOldest = audio.first?.enqueueNanoseconds ?? UInt64.max
        let oldest = min(audioOldest, video.first?.enqueueNanoseconds ?? UInt64.max,
                         retransmissions.first?.enqueueNanoseconds ?? UInt64.max)
        guard oldest != UInt64.max, now > oldest else { return 0 }
        return now - oldest
    }

    /// How long the queued bytes take to leave at the current rate (nil at rate 0).
    public var drainNanoseconds: UInt64? {
        guard pacingRate > 0 else { return nil }
        return UInt64(queuedBytes) * 8 * 1_000_000_000 / pacingRate
    }

    // MARK: Budget arithmetic

    private mutating func advance(to now: UInt64) {
        guard now > lastUpdate else { return }
        let elapsed = now - lastUpdate
        budget = Self.refilled(budget, rate: pacingRate, elapsed: elapsed, burst: configuration.burstNanoseconds)
        paddingBudget = Self.refilled(paddingBudget, rate: paddingRate, elapsed: elapsed,
                                      burst: configuration.burstNanoseconds)
        lastUpdate = now
    }

    private mutating func spend(_ bytes: Int) {
        let cost = Int64(bytes) * 8 * Self.unitsPerBit
        budget -= cost
        paddingBudget -= cost
        // Media above the probe rate would bank unbounded padding debt; one burst plus a
        // packet of debt is enough to hold padding off while media flows.
        let floor = -Self.cap(rate: paddingRate, burst: configuration.burstNanoseconds) - cost
        if paddingBudget < floor { paddingBudget = floor }
    }

    /// Most budget at `rate` (`burst` nanoseconds' worth), saturating.
    static func cap(rate: UInt64, burst: UInt64) -> Int64 {
        let (product, overflow) = UInt64(burst).multipliedReportingOverflow(by: rate)
        return overflow || product > UInt64(Int64.max / 2) ? Int64.max / 2 : Int64(product)
    }

    /// `budget` after `elapsed` ns at `rate`, capped at the burst. The elapsed time is
    /// clamped to what reaching the cap needs first, so the product cannot overflow.
    static func refilled(_ budget: Int64, rate: UInt64, elapsed: UInt64, burst: UInt64) -> Int64 {
        guard rate > 0 else { return budget }
        let cap = cap(rate: rate, burst: burst)
        guard budget < cap else { return cap }
        let needed = UInt64(cap - budget) / rate + 1
        let gained = Int64(min(elapsed, needed) * rate)
        return min(cap, budget + gained)
    }

    /// Nanoseconds until `budget` is no longer negative at `rate` (rate > 0).
    static func wait(for budget: Int64, rate: UInt64) -> UInt64 {
        guard budget < 0 else { return 0 }
        let debt = UInt64(-budget)
        return (debt + rate - 1) / rate
    }
}
