import Testing
@testable import OTMedia

/// A VP8 stream with this package's 3 temporal layers (TID 0,2,1,2 per 4-frame period,
/// TL0PICIDX = period, Y and N as the encoder sets them), `packetsPerFrame` packets per
/// frame, 33 ms apart; keyframes every `keyframeEvery` frames.
private struct LayeredStream {
    var packetsPerFrame = 2
    var keyframeEvery = 40
    var layered = true

    func packet(_ n: Int, arrival: UInt64) -> JitterPacketInfo {
        let frame = n / packetsPerFrame, part = n % packetsPerFrame
        let position = frame % 4
        var info = JitterPacketInfo(
            sequence: UInt16(truncatingIfNeeded: 500 + n), timestamp: UInt32(truncatingIfNeeded: frame * 3000),
            isFrameEnd: part == packetsPerFrame - 1, isFrameStart: part == 0,
            isKeyframe: frame % keyframeEvery == 0, arrivalNanoseconds: arrival)
        guard layered else { return info }
        info.temporalLayer = [0, 2, 1, 2][position]
        info.layerSync = position == 1 || position == 2 || frame % keyframeEvery == 0
        info.isNonReference = position == 1 || position == 3
        info.tl0PicIdx = UInt8(truncatingIfNeeded: frame / 4)
        return info
    }

    /// The frames frame `f` reads (directly), by the encoder's pattern.
    func references(of f: Int) -> [Int] {
        if f % keyframeEvery == 0 { return [] }
        switch f % 4 {
        case 0: return [f - 4]
        case 3: return [f - 3, f - 1]
        default: return [f - f % 4]
        }
    }
}

private final class Harness {
    let buffer: VideoJitterBuffer
    var released: [Int] = []
    var discarded: [Int] = []
    let handles = UnsafeMutableBufferPointer<Int>.allocate(capacity: 64)
    /// A long keyframe request interval by default: a request that goes out was asked at once.
    init(keyframeRequestInterval: UInt64 = 60_000_000_000) {
        var configuration = JitterBufferConfiguration()
        configuration.keyframeRequestIntervalNanoseconds = keyframeRequestInterval
        buffer = VideoJitterBuffer(configuration: configuration)
    }
    deinit { handles.deallocate() }

    /// Feeds packets `0..<count` of `stream` except `lost`, one frame every 33 ms, draining
    /// as it goes; `released` collects frame numbers.
    func run(_ stream: LayeredStream, count: Int, lost: Set<Int>, until end: UInt64? = nil) {
        for n in 0..<count where !lost.contains(n) {
            let now = UInt64(n / stream.packetsPerFrame) * 33_000_000
            _ = buffer.insert(stream.packet(n, arrival: now), handle: n) { discarded.append($0) }
            drain(stream, now: now)
        }
        if let end { drain(stream, now: end) }
    }

    func drain(_ stream: LayeredStream, now: UInt64) {
        while buffer.nextFrame(now: now, handles: handles, discard: { discarded.append($0) }) != nil {
            released.append(handles[0] / stream.packetsPerFrame)
        }
    }
}

@Suite struct VideoJitterBufferLayerTests {
    let ms: UInt64 = 1_000_000
    /// Long after the last frame: every wait is over.
    let late: UInt64 = 10_000_000_000

    @Test func aLostTL2FrameCostsOnlyItselfAndAsksForNoKeyframe() {
        let h = Harness(), s = LayeredStream()
        h.run(s, count: 24, lost: [11], until: late)  // frame 5 (TL2, N) loses its second packet
        #expect(h.released == (0..<12).filter { $0 != 5 })
        #expect(h.buffer.statistics.framesDropped == 1)
        #expect(!h.buffer.isWaitingForKeyframe)
        #expect(h.buffer.statistics.keyframeRequests == 0 && !h.buffer.keyframeRequestDue(now: late))
    }

    @Test func aLostTL1FrameCostsTheTL2FrameThatReadsItThenTheNextPeriodDecodes() {
        let h = Harness(), s = LayeredStream()
        h.run(s, count: 24, lost: [12], until: late)  // frame 6 (TL1) loses its first packet
        #expect(h.released == (0..<12).filter { $0 != 6 && $0 != 7 })
        #expect(h.buffer.statistics.framesDropped == 2)
        #expect(!h.buffer.isWaitingForKeyframe && !h.buffer.keyframeRequestDue(now: late))
    }

    @Test func aLostTL0FrameWaitsForAKeyframeAndAsksAtOnce() {
        let h = Harness(), s = LayeredStream()
        h.run(s, count: 24, lost: [9])  // frame 4 (TL0) loses its second packet
        let givenUp = UInt64(4) * 33 * ms + h.buffer.waitNanoseconds + 1
        h.drain(s, now: givenUp)
        #expect(h.released == [0, 1, 2, 3])
        #expect(h.buffer.isWaitingForKeyframe)
        #expect(h.buffer.keyframeRequestDue(now: givenUp), "at once, not after the request interval")
        h.drain(s, now: late)
        #expect(h.released == [0, 1, 2, 3], "every later delta needs frame 4")
        #expect(h.buffer.statistics.framesDropped == 8)
    }

    @Test func aWholeUpperFrameLostCostsOnlyWhatMayReadIt() {
        let h = Harness(), s = LayeredStream()
        h.run(s, count: 24, lost: [10, 11], until: late)  // frame 5 (TL2) lost whole: its layer is unknown
        #expect(h.released == (0..<12).filter { $0 != 5 && $0 != 7 }, "7 reads GOLDEN, which frame 5 might have written")
        #expect(!h.buffer.isWaitingForKeyframe && !h.buffer.keyframeRequestDue(now: late))
    }

    @Test func wholeFramesLostWithATL0AmongThemWaitForAKeyframe() {
        let h = Harness(), s = LayeredStream()
        h.run(s, count: 24, lost: [8, 9, 10, 11])  // frames 4 (TL0) and 5 lost whole
        let givenUp = UInt64(6) * 33 * ms + h.buffer.waitNanoseconds + 1
        h.drain(s, now: givenUp)
        #expect(h.released == [0, 1, 2, 3], "frame 6's TL0PICIDX is new: its TL0 frame is missing")
        #expect(h.buffer.isWaitingForKeyframe && h.buffer.keyframeRequestDue(now: givenUp))
    }

    @Test func aStreamWithoutLayersWaitsForAKeyframeAfterAnyLoss() {
        let h = Harness(), s = LayeredStream(layered: false)
        h.run(s, count: 24, lost: [11], until: late)  // frame 5 loses a packet
        #expect(h.released == [0, 1, 2, 3, 4])
        #expect(h.buffer.isWaitingForKeyframe)
        #expect(h.buffer.statistics.keyframeRequests == 0 && h.buffer.keyframeRequestDue(now: late))
    }

    @Test func aMissingFirstPacketAndLastPacketOfNeighboursAreNotWholeFrames() {
        let h = Harness(), s = LayeredStream()
        // Frame 5 (TL2, N) loses its last packet, frame 6 (TL1) its first: both known.
        h.run(s, count: 24, lost: [11, 12], until: late)
        #expect(h.released == (0..<12).filter { $0 != 5 && $0 != 6 && $0 != 7 })
        #expect(!h.buffer.isWaitingForKeyframe)
    }

    /// At a 200 ms retransmission round trip, a lost TL2 packet is given up at the wait
    /// (one retry: 465 ms), while a lost TL0 packet, whose loss would cost a keyframe, is
    /// waited for through its second retry (675 ms) and recovered.
    @Test func aBaseLayerFrameWaitsForASecondRetryAnUpperLayerFrameDoesNot() {
        let h = Harness(), s = LayeredStream()
        let nacks = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: 16)
        defer { nacks.deallocate() }
        func insert(_ n: Int, at now: UInt64) { _ = h.buffer.insert(s.packet(n, arrival: now), handle: n) { h.discarded.append($0) } }
        func nack(at now: UInt64) -> [UInt16] { Array(nacks.prefix(h.buffer.collectNACKs(now: now, into: nacks))) }
        // The keyframe, then frames 1...11, one every 300 ms, each losing its first packet,
        // answered 200 ms after the NACK.
        insert(0, at: 0); insert(1, at: 0)
        var now: UInt64 = 300 * ms
        for f in 1..<12 {
            insert(2 * f + 1, at: now)
            #expect(nack(at: now + 5 * ms) == [UInt16(500 + 2 * f)])
            insert(2 * f, at: now + 205 * ms)
            h.drain(s, now: now + 205 * ms)
            now += 300 * ms
        }
        #expect(h.released == Array(0..<12))
        #expect(h.buffer.waitNanoseconds == 465 * ms && h.buffer.baseLayerWaitNanoseconds == 675 * ms)

        // Frame 13 (TL2) loses its second packet for good: given up at 465 ms, 14 and 15 go on.
        insert(24, at: now); insert(25, at: now)
        h.drain(s, now: now)
        let tl2 = now + 33 * ms
        insert(26, at: tl2)
        for n in 28..<32 { insert(n, at: tl2 + 33 * ms) }
        h.drain(s, now: tl2 + 460 * ms)
        #expect(h.released.last == 12, "kept at 460 ms")
        h.drain(s, now: tl2 + 470 * ms)
        #expect(h.released.suffix(3) == [12, 14, 15] && !h.buffer.isWaitingForKeyframe)

        // Frame 16 (TL0) loses its second packet twice; the second retry's answer comes at 640 ms.
        let tl0 = tl2 + 500 * ms
        insert(32, at: tl0)
        for n in 34..<40 { insert(n, at: tl0 + 33 * ms) }
        #expect(nack(at: tl0 + 38 * ms) == [533], "once frame 17 shows the hole")
        #expect(nack(at: tl0 + 250 * ms) == [533], "the retry")
        h.drain(s, now: tl0 + 600 * ms)
        #expect(h.released.last == 15, "still waiting at 600 ms")
        insert(33, at: tl0 + 640 * ms)
        h.drain(s, now: tl0 + 640 * ms)
        #expect(h.released.suffix(4) == [16, 17, 18, 19])
        #expect(!h.buffer.isWaitingForKeyframe && h.buffer.statistics.keyframeRequests == 0)
    }

    /// Random loss without retransmissions: a released frame always had every frame it
    /// reads released before it (never a decode on a missing reference), and a frame
    /// whose references came and whose period lost nothing before it is released.
    @Test(arguments: [1, 2, 3])
    func randomLossNeverDecodesOnAMissingReference(packetsPerFrame: Int) {
        let h = Harness(), s = LayeredStream(packetsPerFrame: packetsPerFrame, keyframeEvery: 40)
        let frames = 1200
        var seed: UInt64 = 7 &+ UInt64(packetsPerFrame)
        func random(_ n: UInt64) -> UInt64 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return (seed >> 33) % n }
        var lost = Set<Int>()
        for n in 0..<(frames * packetsPerFrame) where random(100) < 5 { lost.insert(n) }
        h.run(s, count: frames * packetsPerFrame, lost: lost, until: UInt64(frames) * 33 * ms + late)
        let released = Set(h.released)
        let arrived = { (f: Int) in (0..<packetsPerFrame).allSatisfy { !lost.contains(f * packetsPerFrame + $0) } }
        for f in h.released {
            #expect(arrived(f) && s.references(of: f).allSatisfy(released.contains), "frame \(f)")
        }
        for f in 0..<frames where arrived(f) && s.references(of: f).allSatisfy(released.contains) {
            let periodStart = f - f % 4
            if (periodStart..<f).allSatisfy(arrived) { #expect(released.contains(f), "frame \(f)") }
        }
        #expect(h.released == h.released.sorted())
        #expect(h.buffer.bufferedPacketCount == 0)
        let returned = h.discarded + h.released.flatMap { f in (0..<packetsPerFrame).map { f * packetsPerFrame + $0 } }
        #expect(returned.count == frames * packetsPerFrame - lost.count, "every handle came back once")
        #expect(Set(returned).symmetricDifference(Set(0..<(frames * packetsPerFrame)).subtracting(lost)).isEmpty)
    }
}
