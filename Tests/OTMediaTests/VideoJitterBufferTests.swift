import Testing
@testable import OTMedia

/// Drives the jitter buffer with a synthetic packet stream: frames of `packetsPerFrame`
/// packets, keyframe every `keyframeEvery` frames, 33 ms apart, on a manual clock.
private struct Stream {
    var packetsPerFrame = 3
    var keyframeEvery = 30
    var firstSequence: UInt16 = 100

    func packet(_ n: Int, arrival: UInt64) -> JitterPacketInfo {
        let frame = n / packetsPerFrame, part = n % packetsPerFrame
        return JitterPacketInfo(
            sequence: firstSequence &+ UInt16(truncatingIfNeeded: n),
            timestamp: UInt32(truncatingIfNeeded: frame * 3000),
            isFrameEnd: part == packetsPerFrame - 1,
            isFrameStart: part == 0,
            isKeyframe: frame % keyframeEvery == 0,
            arrivalNanoseconds: arrival)
    }
}

private final class Harness {
    let buffer: VideoJitterBuffer
    var discarded: [Int] = []
    var released: [(VideoJitterBuffer.FrameInfo, [Int])] = []
    let handles = UnsafeMutableBufferPointer<Int>.allocate(capacity: 64)
    let nacks = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: 256)

    init(_ configuration: JitterBufferConfiguration = JitterBufferConfiguration()) {
        buffer = VideoJitterBuffer(configuration: configuration)
    }
    deinit { handles.deallocate(); nacks.deallocate() }

    @discardableResult
    func insert(_ info: JitterPacketInfo, _ handle: Int) -> VideoJitterBuffer.InsertResult {
        buffer.insert(info, handle: handle) { discarded.append($0) }
    }

    func drain(now: UInt64) {
        while let frame = buffer.nextFrame(now: now, handles: handles, discard: { discarded.append($0) }) {
            released.append((frame, Array(handles.prefix(frame.packetCount))))
        }
    }

    func collectNACKs(now: UInt64, rtt: UInt64? = nil) -> [UInt16] {
        let n = buffer.collectNACKs(now: now, roundTripNanoseconds: rtt, into: nacks)
        return Array(nacks.prefix(n))
    }
}

@Suite struct VideoJitterBufferTests {
    let ms: UInt64 = 1_000_000

    @Test func inOrderFramesLeaveAtOnceWithTheirHandlesInOrder() {
        let h = Harness(), s = Stream()
        for n in 0..<30 {
            h.insert(s.packet(n, arrival: UInt64(n) * ms), n)
            h.drain(now: UInt64(n) * ms)
        }
        #expect(h.released.count == 10)
        #expect(h.released.map(\.1) == (0..<10).map { f in [3 * f, 3 * f + 1, 3 * f + 2] })
        #expect(h.released.first?.0.isKeyframe == true)
        #expect(h.discarded.isEmpty)
        #expect(h.buffer.bufferedPacketCount == 0)
    }

    @Test func reorderedPacketsAreReassembled() {
        let h = Harness(), s = Stream()
        for n in [0, 2, 1, 3, 5, 4, 8, 6, 7] {
            h.insert(s.packet(n, arrival: 0), n)
            h.drain(now: 0)
        }
        #expect(h.released.map(\.1) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]])
        #expect(h.collectNACKs(now: 100 * ms).isEmpty, "nothing is missing")
    }

    @Test func holeIsNackedAfterTheReorderDelayThenRecovered() {
        let h = Harness(), s = Stream()
        for n in [0, 1, 2, 3, 5, 6, 7, 8] { h.insert(s.packet(n, arrival: 10 * ms), n) }
        h.drain(now: 10 * ms)
        #expect(h.released.count == 1, "frame 1 waits for packet 4; frame 2 waits behind it")
        #expect(h.collectNACKs(now: 12 * ms).isEmpty, "within the reorder tolerance")
        #expect(h.collectNACKs(now: 16 * ms) == [104])
        #expect(h.collectNACKs(now: 20 * ms).isEmpty, "not again before the retry interval")
        #expect(h.collectNACKs(now: 16 * ms + 41 * ms) == [104], "asked again after the retry interval")
        // The retransmission arrives: both frames complete.
        #expect(h.insert(s.packet(4, arrival: 60 * ms), 4) == .stored)
        h.drain(now: 60 * ms)
        #expect(h.released.map(\.1) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]])
        #expect(h.buffer.statistics.recoveredPackets == 1)
        #expect(h.buffer.statistics.nackedSequences == 2)
        #expect(h.released[1].0.lastArrivalNanoseconds - h.released[1].0.firstArrivalNanoseconds == 50 * ms)
    }

    @Test func rttSetsTheNackRetryInterval() {
        let h = Harness(), s = Stream()
        for n in [0, 1, 2, 4] { h.insert(s.packet(n, arrival: 0), n) }
        #expect(h.collectNACKs(now: 10 * ms, rtt: 100 * ms) == [103])
        #expect(h.collectNACKs(now: 100 * ms, rtt: 100 * ms).isEmpty, "1.5 RTT has not passed")
        #expect(h.collectNACKs(now: 161 * ms, rtt: 100 * ms) == [103])
    }

    @Test func lostFrameIsGivenUpAfterTheWaitAndAKeyframeIsRequested() {
        let h = Harness(), s = Stream()
        for n in 0..<3 { h.insert(s.packet(n, arrival: 0), n) }
        // Frame 1 loses packet 3 for good; frames 2 and 3 arrive.
        for n in 4..<12 { h.insert(s.packet(n, arrival: 33 * ms), n) }
        h.drain(now: 33 * ms)
        #expect(h.released.count == 1)
        #expect(!h.buffer.keyframeRequestDue(now: 100 * ms), "still waiting within the limit")
        h.drain(now: 33 * ms + 151 * ms)
        // Frame 1 is given up; 2 and 3 are deltas that need it, so they are dropped too.
        #expect(h.released.count == 1)
        #expect(h.buffer.isWaitingForKeyframe)
        #expect(h.buffer.statistics.framesDropped == 3)
        #expect(Set(h.discarded) == Set(4..<12))
        #expect(h.buffer.keyframeRequestDue(now: 33 * ms + 151 * ms))
        #expect(!h.buffer.keyframeRequestDue(now: 33 * ms + 200 * ms), "rate-limited")
        // A late retransmission of packet 3 is refused, the caller keeps it.
        #expect(h.insert(s.packet(3, arrival: 200 * ms), 3) == .tooLate)
        // The next keyframe restores the stream.
        let k = Stream(packetsPerFrame: 3, keyframeEvery: 4)
        for n in 12..<15 { h.insert(k.packet(n, arrival: 300 * ms), n) }
        h.drain(now: 300 * ms)
        #expect(h.released.count == 2)
        #expect(h.released.last?.0.isKeyframe == true)
        #expect(!h.buffer.isWaitingForKeyframe)
    }

    @Test func sequenceNumbersWrapAround() {
        let h = Harness(), s = Stream(packetsPerFrame: 2, keyframeEvery: 1000, firstSequence: 65530)
        for n in 0..<20 {
            h.insert(s.packet(n, arrival: 0), n)
            h.drain(now: 0)
        }
        #expect(h.released.count == 10)
        #expect(h.released[3].0.firstSequence == 0, "65530 + 6 wraps to 0")
        #expect(h.discarded.isEmpty)
    }

    @Test func duplicatesAreRefusedAndCounted() {
        let h = Harness(), s = Stream()
        #expect(h.insert(s.packet(0, arrival: 0), 0) == .stored)
        #expect(h.insert(s.packet(0, arrival: 0), 99) == .duplicate)
        #expect(h.buffer.statistics.duplicates == 1)
    }

    @Test func aJumpBeyondCapacityRestartsAndReturnsEveryHandle() {
        var configuration = JitterBufferConfiguration()
        configuration.capacity = 64
        let h = Harness(configuration), s = Stream()
        h.insert(s.packet(0, arrival: 0), 0)
        h.insert(s.packet(1, arrival: 0), 1)
        #expect(h.insert(s.packet(300, arrival: 0), 300) == .restarted)
        #expect(h.discarded.sorted() == [0, 1])
        #expect(h.buffer.statistics.restarts == 1)
        #expect(h.buffer.keyframeRequestDue(now: 0), "a mid-stream restart asks for a keyframe at once")
        #expect(h.buffer.bufferedPacketCount == 1)
    }

    @Test func deltaFramesBeforeTheFirstKeyframeAreDropped() {
        let h = Harness(), s = Stream(packetsPerFrame: 1, keyframeEvery: 5)
        for n in 1..<7 {
            h.insert(s.packet(n, arrival: 0), n)
            h.drain(now: 0)
        }
        #expect(h.released.map(\.1) == [[5], [6]], "frames 1-4 are deltas without a reference")
        #expect(h.discarded == [1, 2, 3, 4])
    }

    @Test func everyHandleComesBackOnceUnderRandomLossAndReordering() {
        var configuration = JitterBufferConfiguration()
        configuration.capacity = 256
        let h = Harness(configuration), s = Stream(packetsPerFrame: 4, keyframeEvery: 10)
        var seed: UInt64 = 42
        func random(_ n: UInt64) -> UInt64 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return (seed >> 33) % n }
        var stored = Set<Int>(), refused = 0
        var pending: [Int] = []
        var lost = Set<Int>()
        for n in 0..<4000 {
            if random(100) < 5 { lost.insert(n); continue }  // 5 % loss
            pending.append(n)
            if pending.count < 3 && random(2) == 0 { continue }  // hold some back: reordering
            var generator = SplitMix64(seed: UInt64(n))
            pending.shuffle(using: &generator)
            for p in pending {
                let now = UInt64(p / 4) * 33 * ms
                switch h.insert(s.packet(p, arrival: now), p) {
                case .stored, .restarted: stored.insert(p)
                default: refused += 1
                }
                h.drain(now: now)
            }
            pending.removeAll()
        }
        h.drain(now: UInt64.max / 2)
        let released = h.released.flatMap(\.1)
        #expect(Set(released).isDisjoint(with: Set(h.discarded)))
        #expect(released.count + h.discarded.count + h.buffer.bufferedPacketCount == stored.count)
        // Every stored handle came back (none twice, none lost): the sets match exactly.
        #expect(h.buffer.bufferedPacketCount == 0)
        #expect(Set(released + h.discarded) == stored)
        // Without retransmissions, exactly the frames whose packets all arrived and whose
        // chain back to a keyframe is intact are decodable; reordering must cost nothing.
        var decodable = 0, chainIntact = false
        for frame in 0..<1000 {
            let complete = (0..<4).allSatisfy { !lost.contains(frame * 4 + $0) }
            chainIntact = complete && (frame % 10 == 0 || chainIntact)
            if chainIntact { decodable += 1 }
        }
        #expect(h.released.count == decodable)
        #expect(refused == 0)
    }
}

/// While a keyframe is awaited, a complete one behind a broken head is decoded at once,
/// not after the head's wait: the frames before it could not be decoded anyway.
@Suite struct VideoJitterBufferKeyframeJumpTests {
    let ms: UInt64 = 1_000_000

    @Test func aBufferedKeyframeIsTakenAtOnceWhileOneIsAwaited() {
        let h = Harness(), s = Stream(packetsPerFrame: 2, keyframeEvery: 3)
        for n in 0..<2 { h.insert(s.packet(n, arrival: 0), n) }
        h.drain(now: 0)
        h.buffer.decoderLostReference()
        // Frame 1 lost its second packet, frame 2 lost everything, keyframe 3 is whole.
        h.insert(s.packet(2, arrival: 33 * ms), 2)
        for n in 6..<8 { h.insert(s.packet(n, arrival: 40 * ms), n) }
        h.drain(now: 41 * ms)
        #expect(h.released.map(\.1) == [[0, 1], [6, 7]], "the keyframe leaves 8 ms after it arrived, not after a wait")
        #expect(!h.buffer.isWaitingForKeyframe)
        #expect(h.discarded == [2])
    }

    @Test func withoutAKeyframeAwaitedTheHeadStillGetsItsWait() {
        let h = Harness(), s = Stream(packetsPerFrame: 2, keyframeEvery: 3)
        for n in 0..<2 { h.insert(s.packet(n, arrival: 0), n) }
        h.drain(now: 0)
        h.insert(s.packet(2, arrival: 33 * ms), 2)
        for n in 6..<8 { h.insert(s.packet(n, arrival: 40 * ms), n) }
        h.drain(now: 41 * ms)
        #expect(h.released.count == 1, "frame 1 may still be repaired: the keyframe waits behind it")
    }
}

@Suite struct VideoJitterBufferDecoderFeedbackTests {
    @Test func aFrameTheDecoderRefusedMakesTheBufferWaitForAKeyframeAndAskAtOnce() {
        let h = Harness(), s = Stream(packetsPerFrame: 1, keyframeEvery: 5)
        h.insert(s.packet(0, arrival: 0), 0)
        h.drain(now: 0)
        #expect(!h.buffer.isWaitingForKeyframe)
        h.buffer.decoderLostReference()
        #expect(h.buffer.keyframeRequestDue(now: 1), "asked at once, not after an interval")
        for n in 1..<6 { h.insert(s.packet(n, arrival: 0), n) }
        h.drain(now: 2)
        #expect(h.released.map(\.1) == [[0], [5]], "deltas 1-4 are dropped until keyframe 5")
    }
}
