/// Orders a video stream's RTP packets, finds complete frames, asks for what is missing
/// (NACK) and for a keyframe (PLI) when a frame cannot be completed, and never holds a
/// frame that lost a packet longer than its wait: `maximumWait` until a retransmission round trip
/// has been measured (NACK → retransmitted packet, the largest of the last 8), then long
/// enough for a NACK, one retry and its answer (2.25 × that round trip + 15 ms), at most
/// `maximumAdaptiveWait`; a frame whose loss would cost a keyframe (see below) waits for
/// a second retry too (3.25 × the round trip + 25 ms), at most `maximumBaseLayerWait`.
/// Retries of a NACK follow the same round trip. A frame still arriving (no hole, no end
/// yet: a keyframe paced over a slow link) is no loss: it waits while its packets keep
/// coming, up to `maximumBaseLayerWait` after the last one, and meanwhile no other
/// keyframe is asked for.
///
/// A frame that cannot be decoded is dropped. Which ones follow from the VP8 temporal
/// layer fields (`TemporalLayerDependencies`): a lost upper-layer frame costs only the
/// frames that read it, and the stream goes on; only a broken base layer (a lost TL0
/// frame or keyframe, any loss in a stream without layers, or a frame the decoder
/// refused) waits for a keyframe and asks for one at once.
///
/// A pure state machine: time comes in as arguments (the pipeline's injected clock),
/// packets are opaque handles (`Int`, e.g. a packet-pool slot) the caller owns; every
/// handle the buffer lets go of comes back through a `discard` callback or inside a
/// released frame, so no packet buffer leaks. Complete frames leave at once (latency
/// before smoothing: the decoder paces by timestamp).
///
/// Cost: `insert` is O(1) except after a gap (marks the hole: O(gap)); `nextFrame` and
/// `collectNACKs` are O(packets buffered). Storage is allocated once at `init`; nothing
/// is allocated per packet. Not thread-safe: one receive thread owns it.
public final class VideoJitterBuffer {
    /// What `insert` did with a packet.
    public enum InsertResult: Sendable, Equatable {
        /// Buffered; the handle now belongs to the buffer.
        case stored
        /// The same sequence number is already buffered; the caller keeps the handle.
        case duplicate
        /// Older than what was already released or given up; the caller keeps the handle.
        case tooLate
        /// So far ahead of the buffer that everything buffered was discarded and the
        /// buffer restarted at this packet (stored; a keyframe is now needed).
        case restarted
    }

    /// A complete frame ready to depacketize: its packets' handles are the first
    /// `packetCount` entries of the buffer given to `nextFrame`, in sequence order.
    public struct FrameInfo: Sendable, Equatable {
        /// Sequence number of the first packet.
        public var firstSequence: UInt16
        /// Packets in the frame.
        public var packetCount: Int
        /// RTP timestamp of the frame.
        public var timestamp: UInt32
        /// Whether the frame is a keyframe.
        public var isKeyframe: Bool
        /// Arrival of the first and of the last packet (ns): the gap is the time the frame
        /// spent incomplete (retransmissions show up here).
        public var firstArrivalNanoseconds: UInt64
        /// See `firstArrivalNanoseconds`.
        public var lastArrivalNanoseconds: UInt64
    }

    /// Counters since creation.
    public struct Statistics: Sendable, Equatable {
        /// Packets accepted.
        public var packetsStored: UInt64 = 0
        /// Packets already held.
        public var duplicates: UInt64 = 0
        /// Packets that came after their frame was released or given up.
        public var latePackets: UInt64 = 0
        /// Packets that filled a hole after a NACK asked for them.
        public var recoveredPackets: UInt64 = 0
        /// Complete frames handed out.
        public var framesReleased: UInt64 = 0
        /// Frames given up (incomplete past the wait), skipped while waiting for a keyframe,
        /// or skipped because a frame they depend on was lost.
        public var framesDropped: UInt64 = 0
        /// Sequence numbers listed in NACKs (a packet asked for twice counts twice).
        public var nackedSequences: UInt64 = 0
        /// Keyframe requests due (the caller sends a PLI for each).
        public var keyframeRequests: UInt64 = 0
        /// Restarts after a jump beyond the capacity.
        public var restarts: UInt64 = 0
        /// Retransmission round trips measured (NACK → the packet's arrival).
        public var retransmissionSamples: UInt64 = 0
        /// All zeros.
        public init() {}
    }

    private enum SlotState: UInt8 { case empty, present, missing }

    private struct Slot {
        var state: SlotState = .empty
        var extended: Int64 = 0
        var info = JitterPacketInfo(sequence: 0, timestamp: 0, isFrameEnd: false, isFrameStart: false,
                                    isKeyframe: false, arrivalNanoseconds: 0)
        var handle = 0
        var missingSince: UInt64 = 0
        var nacksSent = 0
        var firstNack: UInt64 = 0
        var lastNack: UInt64 = 0
    }

    /// The limits this buffer runs with.
    public let configuration: JitterBufferConfiguration
    /// Counters since creation.
    public private(set) var statistics = Statistics()

    private let slots: UnsafeMutableBufferPointer<Slot>
    private let mask: Int64
    private var started = false
    /// Extended sequence number of the next packet to release.
    private var head: Int64 = 0
    /// Highest extended sequence number seen.
    private var highest: Int64 = 0
    /// Which frames can still be decoded; its base layer broken = waiting for a keyframe.
    private var dependencies = TemporalLayerDependencies()
    /// Whether any packet has left (released or discarded) since the start.
    private var hasReleased = false
    private var lastKeyframeRequest: UInt64 = 0
    /// Set when a frame is lost: the first request after a loss goes out at once.
    private var keyframeRequestImmediately = false
    /// Retransmission round trip: the largest of the last 8 samples (ns; 0: not measured).
    private var smoothedRetransmit: UInt64 = 0
    private var recentSamples: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    /// The wait of an incomplete frame now (follows the measured round trip), and of one
    /// whose loss would break the base layer.
    private var currentWait: UInt64
    private var baseLayerWait: UInt64

    /// Creates an empty buffer; `configuration.capacity` must be a power of two.
    public init(configuration: JitterBufferConfiguration = JitterBufferConfiguration()) {
        precondition(configuration.capacity > 0 && configuration.capacity & (configuration.capacity - 1) == 0,
                     "jitter buffer capacity must be a power of two")
        self.configuration = configuration
        self.mask = Int64(configuration.capacity - 1)
        self.slots = .allocate(capacity: configuration.capacity)
        self.currentWait = configuration.maximumWaitNanoseconds
        self.baseLayerWait = configuration.maximumWaitNanoseconds
        slots.initialize(repeating: Slot())
    }

    deinit { slots.deallocate() }

    /// Whether the decoder is waiting for a keyframe (at start and after a lost frame).
    public var isWaitingForKeyframe: Bool { dependencies.needsKeyframe }

    /// The time from a NACK to the retransmitted packet's arrival (ns; the largest of the
    /// last 8 measured, so reordered packets do not shorten it), nil until
    /// one has been measured.
    public var retransmissionRoundTripNanoseconds: UInt64? { smoothedRetransmit > 0 ? smoothedRetransmit : nil }

    /// The least time between two NACKs of one packet now, without a caller's RTT (ns).
    public var nackRetryNanoseconds: UInt64 { retryInterval }

    /// How long an incomplete frame blocks the ones behind it now (ns).
    public var waitNanoseconds: UInt64 { currentWait }

    /// How long an incomplete frame whose loss would cost a keyframe blocks the ones behind
    /// it now (ns): a keyframe or TL0 frame, a frame of a stream without layers, or a hole
    /// before a frame whose TL0PICIDX shows a TL0 frame in it.
    public var baseLayerWaitNanoseconds: UInt64 { baseLayerWait }

    /// Packets currently buffered.
    public var bufferedPacketCount: Int {
        guard started, highest >= head else { return 0 }
        var count = 0
        for e in head...highest where slot(e).state == .present { count += 1 }
        return count
    }

    /// Takes one packet. On `.stored` and `.restarted` the buffer owns `handle`; packets
    /// it had to drop to restart come back through `discard`.
    public func insert(_ info: JitterPacketInfo, handle: Int, discard: (Int) -> Void) -> InsertResult {
        guard started else {
            start(at: Int64(info.sequence), now: info.arrivalNanoseconds)
            store(info, handle: handle, extended: head)
            return .stored
        }
        let extended = unwrap(info.sequence)
        if extended < head && !hasReleased && highest - extended < Int64(configuration.capacity) {
            // Before anything left, a packet older than the first one is the stream's
            // real beginning arriving reordered: reach back for it.
            var hole = extended + 1
            while hole < head {
                slots[Int(hole & mask)] = Slot(state: .missing, extended: hole, missingSince: info.arrivalNanoseconds)
                hole += 1
            }
            head = extended
        }
        if extended < head {
            statistics.latePackets += 1
            // A retransmission that came after its frame was given up still tells the
            // round trip (its slot keeps the NACK times until reused).
            let late = slots[Int(extended & mask)]
            if late.state == .empty, late.extended == extended, late.nacksSent > 0 {
                sampleRetransmit(late, arrival: info.arrivalNanoseconds)
            }
            return .tooLate
        }
        if extended - head >= Int64(configuration.capacity) {
            discardAll(discard)
            statistics.restarts += 1
            start(at: extended, now: info.arrivalNanoseconds)
            // Mid-stream, the decoder has certainly lost its reference: ask at once
            // (only a brand-new stream waits an interval for its opening keyframe).
            keyframeRequestImmediately = true
            store(info, handle: handle, extended: extended)
            return .restarted
        }
        let index = Int(extended & mask)
        switch slots[index].state {
        case .present where slots[index].extended == extended:
            statistics.duplicates += 1
            return .duplicate
        case .missing where slots[index].nacksSent > 0:
            statistics.recoveredPackets += 1
            sampleRetransmit(slots[index], arrival: info.arrivalNanoseconds)
        default:
            break
        }
        if extended > highest {
            // Everything between the old highest and this packet is now a hole.
            var hole = highest + 1
            while hole < extended {
                let i = Int(hole & mask)
                slots[i] = Slot(state: .missing, extended: hole, missingSince: info.arrivalNanoseconds)
                hole += 1
            }
            highest = extended
        }
        store(info, handle: handle, extended: extended)
        return .stored
    }

    /// The next complete, decodable frame, its packet handles written to `handles` in
    /// order; nil when the head frame is still incomplete (and within its wait) or nothing
    /// is buffered. Frames that cannot be completed in time, and frames that cannot be
    /// decoded (a keyframe is awaited, or a frame they depend on was lost) are dropped
    /// here: their handles go to `discard`. A frame with more packets than `handles` holds
    /// is dropped too.
    public func nextFrame(now: UInt64, handles: UnsafeMutableBufferPointer<Int>, discard: (Int) -> Void) -> FrameInfo? {
        guard started else { return nil }
        while head <= highest {
            let first = slot(head)
            if first.state == .present, first.info.isFrameStart {
                switch scanFrame(from: head) {
                case .complete(let last):
                    let count = Int(last - head + 1)
                    let frame = first.info.dependencyFrame
                    let decodable = count <= handles.count
                        ? updateDependencies { $0.admit(frame) }
                        : updateDependencies { $0.notDecoded(frame); return false }
                    if !decodable {
                        // Undecodable (a reference is missing), or too big for the caller: drop.
                        release(through: last, into: nil, discard: discard)
                        statistics.framesDropped += 1
                        continue
                    }
                    let info = FrameInfo(firstSequence: first.info.sequence, packetCount: count,
                                         timestamp: first.info.timestamp, isKeyframe: first.info.isKeyframe,
                                         firstArrivalNanoseconds: first.info.arrivalNanoseconds,
                                         lastArrivalNanoseconds: lastArrival(from: head, through: last))
                    release(through: last, into: handles, discard: discard)
                    statistics.framesReleased += 1
                    return info
                case .arriving(let lastArrival):
                    // Nothing says a packet is lost: it goes on arriving (a keyframe paced
                    // over a slow link takes longer than any wait; giving it up asks for
                    // another, paced the same way). Only a stream gone quiet mid-frame ends it.
                    guard elapsed(since: lastArrival, now: now) > configuration.maximumBaseLayerWaitNanoseconds else { return nil }
                case .incomplete:
                    guard mayGiveUpHead(waited: elapsed(since: first.info.arrivalNanoseconds, now: now))
                          || keyframeWaitsBehindHead() else { return nil }
                }
            } else if first.state == .present {
                // A frame's middle at the head: its start may still come (reordered).
                guard mayGiveUpHead(waited: elapsed(since: first.info.arrivalNanoseconds, now: now))
                      || keyframeWaitsBehindHead() else { return nil }
            } else if first.state == .missing {
                guard mayGiveUpHead(waited: elapsed(since: first.missingSince, now: now))
                      || keyframeWaitsBehindHead() else { return nil }
            }
            // The head frame is broken (its start is missing or late past the wait): skip to
            // the next frame start; what that costs the frames after it depends on its layer.
            giveUpHeadFrame(discard: discard)
        }
        return nil
    }

    /// While the decoder waits for a keyframe, true when a complete one is already
    /// buffered behind the head: nothing before it could be decoded, so the head is given
    /// up at once instead of after its retransmissions' wait (up to the base-layer wait;
    /// a sender that drops its stale frames on a PLI leaves holes right before the
    /// keyframe it sends). Cost: O(packets buffered), only while a keyframe is awaited
    /// and the head blocks.
    private func keyframeWaitsBehindHead() -> Bool {
        guard dependencies.needsKeyframe else { return false }
        return bufferedKeyframe(from: head + 1) { if case .complete = $0 { true } else { false } }
    }

    /// True when a keyframe's packets are coming in without a hole so far: asking for
    /// another while a slow link paces this one would only add a second keyframe to the
    /// queue. Cost: O(packets buffered), only while a keyframe is awaited.
    private func keyframeArriving() -> Bool {
        bufferedKeyframe(from: head) { if case .arriving = $0 { true } else { false } }
    }

    /// Whether a keyframe starts at or after `start` whose packets scan as `wanted`.
    /// O(packets buffered).
    private func bufferedKeyframe(from start: Int64, _ wanted: (Scan) -> Bool) -> Bool {
        var e = start
        while e <= highest {
            let s = slot(e)
            if s.state == .present, s.extended == e, s.info.isFrameStart, s.info.isKeyframe, wanted(scanFrame(from: e)) {
                return true
            }
            e += 1
        }
        return false
    }

    /// Writes the sequence numbers to NACK now into `sequences` and returns how many:
    /// holes older than `nackDelay`, not asked for within the retry interval, and asked
    /// fewer than the maximum times. The retry interval is 1.5 × `roundTripNanoseconds`
    /// when given, else the measured retransmission round trip plus its variation (a
    /// retry never goes out before the answer to the last NACK could have come), else
    /// `nackRetryInterval`.
    public func collectNACKs(now: UInt64, roundTripNanoseconds: UInt64? = nil,
                             into sequences: UnsafeMutableBufferPointer<UInt16>) -> Int {
        guard started, highest >= head else { return 0 }
        let retry = roundTripNanoseconds.map { max($0 + $0 / 2, 10_000_000) } ?? retryInterval
        var count = 0
        var e = head
        while e <= highest && count < sequences.count {
            let i = Int(e & mask)
            if slots[i].state == .missing,
               elapsed(since: slots[i].missingSince, now: now) >= configuration.nackDelayNanoseconds,
               slots[i].nacksSent < configuration.maximumNACKsPerPacket,
               slots[i].nacksSent == 0 || elapsed(since: slots[i].lastNack, now: now) >= retry {
                if slots[i].nacksSent == 0 { slots[i].firstNack = now }
                slots[i].nacksSent += 1
                slots[i].lastNack = now
                sequences[count] = UInt16(truncatingIfNeeded: e)
                count += 1
            }
            e += 1
        }
        statistics.nackedSequences += UInt64(count)
        return count
    }

    /// True when a keyframe request (PLI) should go out now: the decoder waits for a
    /// keyframe and none was asked for within `keyframeRequestInterval`.
    public func keyframeRequestDue(now: UInt64) -> Bool {
        guard started, dependencies.needsKeyframe,
              keyframeRequestImmediately || elapsed(since: lastKeyframeRequest, now: now) >= configuration.keyframeRequestIntervalNanoseconds,
              !keyframeArriving()
        else { return false }
        lastKeyframeRequest = now
        keyframeRequestImmediately = false
        statistics.keyframeRequests += 1
        return true
    }

    /// Tells the buffer that the decoder refused a frame it released (a corrupt
    /// bitstream): the frames after it cannot be decoded either, so the buffer drops
    /// deltas until a keyframe and asks for one at once.
    public func decoderLostReference() {
        markReferenceLost()
    }

    /// Drops every buffered packet (handles to `discard`) and starts over, waiting for a
    /// keyframe: for a new stream or an SSRC change.
    public func reset(discard: (Int) -> Void) {
        discardAll(discard)
        started = false
        dependencies.reset()
    }

    // MARK: - Internals

    /// Between two NACKs of one packet: the measured retransmission round trip (already
    /// the largest recent one) plus 10 ms, else the configured interval.
    private var retryInterval: UInt64 {
        guard smoothedRetransmit > 0 else { return configuration.nackRetryIntervalNanoseconds }
        return smoothedRetransmit + 10_000_000
    }

    /// One retransmission round trip: NACK → arrival. Asked once, the sample is exact;
    /// asked more often it is ambiguous (Karn). Asked three times or more: from the first
    /// NACK. Retries that fast mean the estimate is too short (a hole filled by a reordered
    /// packet just after its NACK gives a tiny first sample), and measured from the last
    /// NACK every sample is shorter than the retry spacing it came from, so the estimate
    /// could never grow back (a 5 % loss + 100 ms test sat at 13-110 ms against a real
    /// 200-240 ms and gave up frames before any retransmission could come); the last
    /// NACK's answer would need two NACKs or answers lost in a row. Asked twice: from the
    /// last (the first NACK or its answer lost), unless the retry came sooner than the
    /// estimate. The estimate is the largest of
    /// the last `sampleWindow` samples: a hole filled by a reordered packet just after
    /// its NACK gives a short sample that is no round trip, and an average of those would
    /// make the wait too short for the real retransmissions. The wait then covers a NACK,
    /// one retry and its answer: nackDelay + retry interval + 1.25 × RTT (through a router,
    /// its own NACK and retry upstream come first), within
    /// [maximumWait, maximumAdaptiveWait]; the base-layer wait one retry interval more,
    /// within [that wait, maximumBaseLayerWait].
    private func sampleRetransmit(_ slot: Slot, arrival: UInt64) {
        // Which NACK was answered: see above.
        let fromFirst = slot.nacksSent > 2
            || slot.nacksSent == 2 && (smoothedRetransmit == 0 || slot.lastNack - slot.firstNack < smoothedRetransmit)
        let sample = max(elapsed(since: fromFirst ? slot.firstNack : slot.lastNack, now: arrival), 1_000_000)
        recentSamples.0 = recentSamples.1; recentSamples.1 = recentSamples.2; recentSamples.2 = recentSamples.3
        recentSamples.3 = recentSamples.4; recentSamples.4 = recentSamples.5; recentSamples.5 = recentSamples.6
        recentSamples.6 = recentSamples.7; recentSamples.7 = sample
        let r = recentSamples
        smoothedRetransmit = max(max(max(r.0, r.1), max(r.2, r.3)), max(max(r.4, r.5), max(r.6, r.7)))
        statistics.retransmissionSamples += 1
        let wanted = configuration.nackDelayNanoseconds + retryInterval + smoothedRetransmit + smoothedRetransmit / 4
        currentWait = min(max(wanted, configuration.maximumWaitNanoseconds),
                          max(configuration.maximumAdaptiveWaitNanoseconds, configuration.maximumWaitNanoseconds))
        // Giving up a base-layer frame costs a keyframe round (a PLI's trip, the keyframe's
        // encode and its packets): a second retry is worth waiting for.
        let wantedBase = wanted + retryInterval
        baseLayerWait = min(max(wantedBase, currentWait), max(configuration.maximumBaseLayerWaitNanoseconds, currentWait))
    }

    /// Whether the head frame, incomplete for `waited`, may be given up: past the wait,
    /// and past the base-layer wait when giving it up would cost a keyframe.
    private func mayGiveUpHead(waited: UInt64) -> Bool {
        guard waited > currentWait else { return false }
        return waited > baseLayerWait || !headLossBreaksBaseLayer()
    }

    /// Whether giving up what lies before the next packet that arrived would break the
    /// base layer: that packet's frame too when its start is missing (it is at the head,
    /// or the hole before it may hold its start). O(hole).
    private func headLossBreaksBaseLayer() -> Bool {
        var e = head
        while e < highest && slot(e).state != .present { e += 1 }
        let next = slot(e)
        guard next.state == .present else { return true }
        let includingIt = e == head || !next.info.isFrameStart
        if dependencies.needsKeyframe {
            // Only a keyframe at stake is worth it (the rest is dropped anyway); without its
            // first packet, any frame that may be one is.
            let mayBeKeyframe = next.info.isFrameStart ? next.info.isKeyframe : (next.info.temporalLayer ?? 0) == 0
            return includingIt && mayBeKeyframe
        }
        return dependencies.lossBreaksBaseLayer(upTo: next.info.dependencyFrame, includingIt: includingIt)
    }

    /// What `scanFrame` found: the frame whole (through `last`); still arriving (every
    /// packet from its start to the newest one present, no end yet, the newest arrived at
    /// `lastArrival`); or missing a packet.
    private enum Scan { case complete(last: Int64), arriving(lastArrival: UInt64), incomplete }

    /// Time since `moment`, 0 if `now` is earlier (a caller's clock read before an
    /// arrival stamp must not look like an eternity).
    private func elapsed(since moment: UInt64, now: UInt64) -> UInt64 { now > moment ? now - moment : 0 }

    private func slot(_ extended: Int64) -> Slot { slots[Int(extended & mask)] }

    private func start(at extended: Int64, now: UInt64) {
        started = true
        hasReleased = false
        head = extended
        highest = extended
        dependencies.reset()
        // The first request waits one interval: the stream usually starts with a keyframe.
        lastKeyframeRequest = now
    }

    private func store(_ info: JitterPacketInfo, handle: Int, extended: Int64) {
        slots[Int(extended & mask)] = Slot(state: .present, extended: extended, info: info, handle: handle)
        statistics.packetsStored += 1
    }

    /// Extends a 16-bit sequence number to the one nearest the highest seen.
    private func unwrap(_ sequence: UInt16) -> Int64 {
        let delta = Int64(RTPSerial.distance(from: UInt16(truncatingIfNeeded: highest), to: sequence))
        return highest + delta
    }

    /// From a frame start: complete when every packet through a marker is present with
    /// the frame's timestamp; incomplete on a hole or when the marker has not arrived.
    private func scanFrame(from start: Int64) -> Scan {
        let timestamp = slot(start).info.timestamp
        var e = start
        var lastArrival: UInt64 = 0
        while e <= highest {
            let s = slot(e)
            guard s.state == .present, s.extended == e, s.info.timestamp == timestamp else { return .incomplete }
            if s.info.isFrameEnd { return .complete(last: e) }
            lastArrival = max(lastArrival, s.info.arrivalNanoseconds)
            e += 1
        }
        return .arriving(lastArrival: lastArrival)
    }

    private func lastArrival(from start: Int64, through last: Int64) -> UInt64 {
        var latest: UInt64 = 0
        for e in start...last { latest = max(latest, slot(e).info.arrivalNanoseconds) }
        return latest
    }

    /// Frees slots head...last; present handles go to `handles` (in order) or `discard`.
    private func release(through last: Int64, into handles: UnsafeMutableBufferPointer<Int>?, discard: (Int) -> Void) {
        var n = 0
        hasReleased = true
        while head <= last {
            let i = Int(head & mask)
            if slots[i].state == .present {
                if let handles { handles[n] = slots[i].handle; n += 1 } else { discard(slots[i].handle) }
            }
            slots[i].state = .empty
            head += 1
        }
    }

    private func giveUpHeadFrame(discard: (Int) -> Void) {
        // The next frame start after the head, if one has arrived.
        var next = head + 1
        while next <= highest {
            let s = slot(next)
            if s.state == .present && s.info.isFrameStart { break }
            next += 1
        }
        updateDependencies { noteGivenUp(through: next - 1, in: &$0) }
        release(through: next - 1, into: nil, discard: discard)
        statistics.framesDropped += 1
    }

    /// Tells `dependencies` what the given-up packets head...last held: each frame with
    /// a packet there is not decoded (any packet tells its layer), and a hole longer than
    /// the packets its neighbours lack (a frame not ended before it: its marker; a frame
    /// not started after it: its first packet) held whole frames. (PictureIDs cannot tell
    /// more: a router counting the frames it forwards hides the ones it never got.)
    private func noteGivenUp(through last: Int64, in dependencies: inout TemporalLayerDependencies) {
        var lastTimestamp: UInt32?
        // The frame before head left whole, or so we assume: that counts more holes as
        // whole frames, the safe side.
        var previousEnded = true
        var hole = 0
        var wholeFramesLost = false
        var e = head
        while e <= last {
            let s = slot(e)
            e += 1
            guard s.state == .present else {
                hole += 1
                continue
            }
            if lastTimestamp != s.info.timestamp || s.info.isFrameStart {
                dependencies.notDecoded(s.info.dependencyFrame)
                if hole > (previousEnded ? 0 : 1) + (s.info.isFrameStart ? 0 : 1) { wholeFramesLost = true }
            }
            hole = 0
            previousEnded = s.info.isFrameEnd
            lastTimestamp = s.info.timestamp
        }
        // A hole at the end lies before the next frame start.
        if hole > (previousEnded ? 0 : 1) { wholeFramesLost = true }
        if wholeFramesLost { dependencies.framesLostWhole() }
    }

    /// Runs one step of the dependency rules; when it breaks the base layer, the
    /// keyframe request goes out at once (at start the first request waits an interval:
    /// streams open with a keyframe, and the base layer starts broken).
    private func updateDependencies<R>(_ step: (inout TemporalLayerDependencies) -> R) -> R {
        let wasWaiting = dependencies.needsKeyframe
        let result = step(&dependencies)
        if !wasWaiting && dependencies.needsKeyframe { keyframeRequestImmediately = true }
        return result
    }

    /// The decoder lost a reference: wait for a keyframe, and ask at once if it had one.
    private func markReferenceLost() {
        updateDependencies { $0.referenceLost() }
    }

    private func discardAll(_ discard: (Int) -> Void) {
        guard started else { return }
        if highest >= head { release(through: highest, into: nil, discard: discard) }
        head = highest + 1
    }
}
