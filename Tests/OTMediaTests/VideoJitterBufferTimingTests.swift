import Testing
@testable import OTMedia

/// The video jitter buffer's wait and NACK retries following the measured retransmission
/// round trip (NACK → retransmitted packet), on a synthetic clock.
@Suite struct VideoJitterBufferTimingTests {
    static let ms: UInt64 = 1_000_000

    /// Two-packet frames; frame 0 is the keyframe.
    private static func packet(_ n: Int, arrival: UInt64) -> JitterPacketInfo {
        JitterPacketInfo(sequence: UInt16(truncatingIfNeeded: 1000 + n), timestamp: UInt32(n / 2 * 3000),
                         isFrameEnd: n % 2 == 1, isFrameStart: n % 2 == 0, isKeyframe: n < 2, arrivalNanoseconds: arrival)
    }

    /// A buffer and its clock: `recover` loses the second packet of a frame, NACKs it and
    /// lets the retransmission arrive `roundTrip` after the NACK.
    private final class Rig {
        let buffer = VideoJitterBuffer()
        let handles = UnsafeMutableBufferPointer<Int>.allocate(capacity: 16)
        let nacks = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: 64)
        var next = 0, now: UInt64 = 0, released = 0, discarded = 0
        deinit { handles.deallocate(); nacks.deallocate() }

        func insert(_ n: Int) { _ = buffer.insert(packet(n, arrival: now), handle: n) { _ in discarded += 1 } }
        func drain() {
            while buffer.nextFrame(now: now, handles: handles, discard: { _ in self.discarded += 1 }) != nil { released += 1 }
        }
        func collect() -> [UInt16] { Array(nacks.prefix(buffer.collectNACKs(now: now, into: nacks))) }

        /// One frame whose second packet is lost then retransmitted, and the frame after.
        func recover(roundTrip: UInt64) {
            let lost = next + 1
            insert(next); insert(next + 2); insert(next + 3)
            next += 4
            now += 5 * ms
            precondition(collect() == [UInt16(1000 + lost)])
            now += roundTrip
            insert(lost)
            drain()
            now += 50 * ms
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var roundTripMs: UInt64, samples: Int, retryMs: UInt64, waitMs: UInt64, baseWaitMs: Double, shorter = 0
        var testDescription: String {
            "RTT \(roundTripMs) ms × \(samples) + \(shorter) shorter → retry \(retryMs), wait \(waitMs), base-layer wait \(baseWaitMs)"
        }
    }

    /// Retry RTT + 10 ms, wait 5 + retry + 1.25 × RTT within [150, 600] ms, the wait of a
    /// frame whose loss costs a keyframe one retry more, within [wait, 900] ms; RTT the
    /// largest of the last 8 samples (`shorter`: samples of a quarter of it came after, as
    /// holes filled by reordering just after their NACK: they do not shorten it until they
    /// are all that is left).
    @Test(arguments: [
        Case(roundTripMs: 20, samples: 1, retryMs: 30, waitMs: 150, baseWaitMs: 150),
        Case(roundTripMs: 100, samples: 1, retryMs: 110, waitMs: 240, baseWaitMs: 350),
        Case(roundTripMs: 200, samples: 1, retryMs: 210, waitMs: 465, baseWaitMs: 675),
        Case(roundTripMs: 40, samples: 60, retryMs: 50, waitMs: 150, baseWaitMs: 155),
        Case(roundTripMs: 200, samples: 60, retryMs: 210, waitMs: 465, baseWaitMs: 675),
        Case(roundTripMs: 400, samples: 60, retryMs: 410, waitMs: 600, baseWaitMs: 900),
        Case(roundTripMs: 200, samples: 4, retryMs: 210, waitMs: 465, baseWaitMs: 675, shorter: 7),
        Case(roundTripMs: 200, samples: 4, retryMs: 60, waitMs: 150, baseWaitMs: 187.5, shorter: 8),
    ])
    func waitAndRetryFollowTheMeasuredRoundTrip(_ c: Case) {
        let rig = Rig()
        #expect(rig.buffer.retransmissionRoundTripNanoseconds == nil)
        #expect(rig.buffer.waitNanoseconds == 150 * Self.ms, "unmeasured: the configured wait")
        #expect(rig.buffer.nackRetryNanoseconds == 40 * Self.ms, "unmeasured: the configured retry")
        for _ in 0..<c.samples { rig.recover(roundTrip: c.roundTripMs * Self.ms) }
        for _ in 0..<c.shorter { rig.recover(roundTrip: c.roundTripMs * Self.ms / 4) }
        #expect(rig.released == 2 * (c.samples + c.shorter), "every frame recovered")
        #expect(rig.buffer.statistics.retransmissionSamples == UInt64(c.samples + c.shorter))
        #expect(rig.buffer.retransmissionRoundTripNanoseconds == c.roundTripMs * Self.ms / (c.shorter >= 8 ? 4 : 1))
        let retry = Double(rig.buffer.nackRetryNanoseconds) / 1e6, wait = Double(rig.buffer.waitNanoseconds) / 1e6
        #expect(abs(retry - Double(c.retryMs)) <= 1, "retry \(retry) ms")
        #expect(abs(wait - Double(c.waitMs)) <= 1, "wait \(wait) ms")
        let baseWait = Double(rig.buffer.baseLayerWaitNanoseconds) / 1e6
        #expect(abs(baseWait - c.baseWaitMs) <= 1, "base-layer wait \(baseWait) ms")
    }

    /// At 200 ms RTT a lost packet's retry is answered after ~420 ms: the frame is kept
    /// (a fixed 150 ms wait would have dropped it and asked for a keyframe); one that never
    /// comes is given up at the wait (in this stream without layers, the longer one of a
    /// frame whose loss costs a keyframe), under the 900 ms ceiling.
    @Test func aLongRoundTripRetryIsWaitedForAndAHopelessFrameIsGivenUpAtTheWait() {
        let rig = Rig(), ms = Self.ms
        for _ in 0..<60 { rig.recover(roundTrip: 200 * ms) }
        let before = rig.released, requests = rig.buffer.statistics.keyframeRequests
        let lost = rig.next + 1
        rig.insert(rig.next); rig.insert(rig.next + 2); rig.insert(rig.next + 3)
        rig.next += 4
        let holeAt = rig.now
        rig.now += 5 * ms
        #expect(rig.collect() == [UInt16(1000 + lost)], "first NACK")
        rig.now = holeAt + 5 * ms + 200 * ms
        #expect(rig.collect().isEmpty, "no retry before the answer could come (retry 210 ms)")
        rig.now = holeAt + 5 * ms + 211 * ms
        #expect(rig.collect() == [UInt16(1000 + lost)], "retry")
        rig.now = holeAt + 430 * ms
        rig.drain()
        #expect(rig.released == before, "still waiting at 430 ms")
        rig.insert(lost)
        rig.drain()
        #expect(rig.released == before + 2, "the retried packet completes both frames")
        #expect(!rig.buffer.keyframeRequestDue(now: rig.now) && rig.buffer.statistics.keyframeRequests == requests)

        // The retry's answer measured 214 ms (from the retry: the retries were spaced by the
        // estimate), the wait is now 5 + 224 + 267.5 ms, and one retry more (720.5 ms) for a
        // frame whose loss costs a keyframe, as any does in this stream without layers. A
        // packet that never comes is given up at that wait, not at 150 ms.
        #expect(rig.buffer.retransmissionRoundTripNanoseconds == 214 * ms)
        rig.insert(rig.next); rig.insert(rig.next + 2); rig.insert(rig.next + 3)
        rig.next += 4
        let start = rig.now
        rig.now = start + 300 * ms
        rig.drain()
        #expect(rig.released == before + 2 && !rig.buffer.isWaitingForKeyframe, "kept at 300 ms")
        rig.now = start + 460 * ms
        rig.drain()
        #expect(!rig.buffer.isWaitingForKeyframe, "kept at 460 ms")
        rig.now = start + 500 * ms
        rig.drain()
        #expect(!rig.buffer.isWaitingForKeyframe, "kept at 500 ms: a second retry may still come")
        rig.now = start + 730 * ms
        rig.drain()
        #expect(rig.buffer.isWaitingForKeyframe, "given up after the wait")
        #expect(rig.buffer.keyframeRequestDue(now: rig.now))
    }

    /// A hole filled by a reordered packet 3 ms after its NACK makes a 3 ms estimate, and
    /// retries every 13 ms. The first retransmission (200 ms after the first NACK, eight
    /// NACKs later) measures from the first NACK, so the estimate comes back at once; from
    /// the last NACK it would have stayed shorter than the retry spacing forever.
    @Test func anEstimateTooShortGrowsBackFromTheFirstNACK() {
        let rig = Rig(), ms = Self.ms
        rig.insert(0); rig.insert(1); rig.insert(2); rig.insert(4); rig.insert(5)
        rig.next = 6
        rig.now += 5 * ms
        #expect(rig.collect() == [1003])
        rig.now += 3 * ms
        rig.insert(3)
        rig.drain()
        #expect(rig.buffer.retransmissionRoundTripNanoseconds == 3 * ms, "a reordered packet looks like a 3 ms answer")
        let lost = rig.next + 1
        rig.insert(rig.next); rig.insert(rig.next + 2); rig.insert(rig.next + 3)
        rig.next += 4
        let holeAt = rig.now
        var asked = 0
        // The receive loop polls every 5 ms; the answer comes 200 ms after the first NACK.
        while rig.now < holeAt + 205 * ms {
            rig.now += 5 * ms
            asked += rig.collect().count
        }
        #expect(asked == 8, "retries every 15 ms, up to the limit")
        rig.insert(lost)
        rig.drain()
        #expect(rig.buffer.retransmissionRoundTripNanoseconds == 200 * ms)
        #expect(rig.released == 5, "every frame recovered")
    }

    /// A retransmission that arrives after its frame was given up still measures the
    /// round trip, so a long path lengthens the wait after the first losses.
    @Test func aLateRetransmissionStillMeasuresTheRoundTrip() {
        let rig = Rig(), ms = Self.ms
        rig.insert(0); rig.insert(1)
        rig.next = 2
        rig.drain()
        let lost = 3
        rig.insert(2); rig.insert(4); rig.insert(5)
        rig.now += 5 * ms
        #expect(rig.collect() == [UInt16(1000 + lost)])
        rig.now += 160 * ms
        rig.drain()
        #expect(rig.buffer.isWaitingForKeyframe, "given up at the unmeasured 150 ms")
        rig.now += 60 * ms
        rig.insert(lost)
        #expect(rig.buffer.statistics.latePackets == 1)
        #expect(rig.buffer.retransmissionRoundTripNanoseconds == 220 * ms)
        #expect(rig.buffer.waitNanoseconds == 510 * ms, "5 + 230 + 275")
    }
    /// A 10-packet keyframe paced over a slow link (a packet every 150 ms: 1.35 s in all,
    /// longer than any wait) is still arriving, not lost: nothing is missing, so it is kept
    /// whole and decoded, and no other keyframe is asked for meanwhile. Giving it up at the wait asked for
    /// another keyframe, paced the same way, and the picture froze at one keyframe a second
    /// (seen in the hardware VM on a slow host). A frame whose end never comes while the
    /// stream goes quiet is given up once nothing has arrived for the base-layer ceiling.
    @Test func aKeyframePacedSlowerThanTheWaitIsKeptAndAQuietStreamEndsTheFrame() {
        let ms = Self.ms
        let buffer = VideoJitterBuffer()
        let handles = UnsafeMutableBufferPointer<Int>.allocate(capacity: 16)
        defer { handles.deallocate() }
        var released: [VideoJitterBuffer.FrameInfo] = [], discarded = 0
        func packet(_ n: Int, frame: Int, first: Bool, last: Bool, at now: UInt64) -> JitterPacketInfo {
            JitterPacketInfo(sequence: UInt16(2000 + n), timestamp: UInt32(frame * 18_000), isFrameEnd: last, isFrameStart: first,
                             isKeyframe: frame == 0, arrivalNanoseconds: now)
        }
        func drain(_ now: UInt64) {
            while let frame = buffer.nextFrame(now: now, handles: handles, discard: { _ in discarded += 1 }) { released.append(frame) }
        }
        var now: UInt64 = 0
        for n in 0..<10 {
            _ = buffer.insert(packet(n, frame: 0, first: n == 0, last: n == 9, at: now), handle: n) { _ in discarded += 1 }
            drain(now)
            now += 150 * ms
            drain(now)
            #expect(!buffer.keyframeRequestDue(now: now), "no second keyframe asked for while this one arrives (packet \(n))")
        }
        #expect(released.count == 1 && released.first?.isKeyframe == true && released.first?.packetCount == 10)
        #expect(discarded == 0 && buffer.statistics.framesDropped == 0 && !buffer.isWaitingForKeyframe)

        // A two-packet delta frame whose second packet never comes, and nothing after it.
        _ = buffer.insert(packet(10, frame: 1, first: true, last: false, at: now), handle: 10) { _ in discarded += 1 }
        drain(now + 850 * ms)
        #expect(released.count == 1 && discarded == 0 && !buffer.isWaitingForKeyframe, "kept 850 ms after its last packet")
        drain(now + 910 * ms)
        #expect(discarded == 1 && buffer.isWaitingForKeyframe, "given up once the stream stayed quiet past 900 ms")
        #expect(buffer.bufferedPacketCount == 0)
    }
}
