import OTMedia
@testable import OTRouter
import Testing

/// The router's repair of losses on the publisher leg: `UpstreamGaps` (which holes to NACK
/// to the publisher, when, how often) and a late packet's mapping onto each subscriber
/// leg's rewritten stream (`LegVideoRoute.rewriteLate`), on a synthetic clock.
@Suite struct SFUUpstreamRepairTests {
    static let ms: UInt64 = 1_000_000

    func collect(_ gaps: inout UpstreamGaps, at now: UInt64) -> [UInt16] {
        let output = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: 64)
        defer { output.deallocate() }
        return Array(output.prefix(gaps.collect(now: now, into: output)))
    }

    @Test func holesAreNackedAfterTheDelayRetriedAfterTheRoundTripAndForgottenWhenFilled() {
        var gaps = UpstreamGaps()
        #expect(gaps.received(65534, now: 0) == .inOrder)
        #expect(gaps.received(2, now: 0) == .inOrder, "65535, 0, 1 open across the wrap")
        #expect(gaps.count == 3)
        #expect(collect(&gaps, at: 5 * Self.ms).isEmpty, "within the reorder tolerance")
        #expect(collect(&gaps, at: 10 * Self.ms) == [65535, 0, 1])
        #expect(collect(&gaps, at: 60 * Self.ms).isEmpty, "no retry before 250 ms while unmeasured")
        #expect(gaps.received(0, now: 90 * Self.ms) == .repaired, "answered 80 ms after the NACK")
        #expect(gaps.roundTrip == 80 * Self.ms)
        #expect(gaps.retryInterval == 90 * Self.ms, "RTT + 10 ms")
        #expect(gaps.received(0, now: 95 * Self.ms) == .stale, "a duplicate")
        #expect(collect(&gaps, at: 99 * Self.ms).isEmpty)
        #expect(collect(&gaps, at: 100 * Self.ms) == [65535, 1], "retried")
        #expect(gaps.received(3, now: 111 * Self.ms) == .inOrder)
    }

    /// Asked at most `maximumNACKs` times; open (its late packet still welcome) until
    /// `maximumAge`, then forgotten.
    @Test func aHoleIsAskedForAtMostTheMaximumTimesAndKeptUntilItsAge() {
        var gaps = UpstreamGaps()
        _ = gaps.received(10, now: 0)
        _ = gaps.received(12, now: 0)
        var asked = 0
        for round in 0..<Int(UpstreamGaps.maximumNACKs) {
            asked += collect(&gaps, at: 10 * Self.ms + UInt64(round) * 260 * Self.ms).count
        }
        #expect(asked == Int(UpstreamGaps.maximumNACKs))
        #expect(collect(&gaps, at: 990 * Self.ms).isEmpty, "no more NACKs")
        #expect(gaps.count == 1, "still open")
        _ = collect(&gaps, at: UpstreamGaps.maximumAge + 1)
        #expect(gaps.count == 0 && gaps.abandoned == 1)
        #expect(gaps.received(11, now: UpstreamGaps.maximumAge + 2) == .stale)
    }

    @Test func aJumpOpensAtMostTheCapacityAndOldHolesAreForgotten() {
        var gaps = UpstreamGaps()
        _ = gaps.received(0, now: 0)
        _ = gaps.received(1000, now: 0)
        #expect(gaps.count == UpstreamGaps.capacity)
        _ = collect(&gaps, at: UpstreamGaps.maximumAge + 1)
        #expect(gaps.count == 0)
        #expect(gaps.nextDue() == nil)
    }

    /// Frames of two packets (sequence 2f, 2f + 1, timestamp 3000 f), TID pattern 0, 2, 1, 2.
    /// The leg forwards TL0 + TL1 only; packets in `lost` go through only late.
    struct Case: Sendable, CustomTestStringConvertible {
        var lost: [Int], late: Int, expected: Int?
        var testDescription: String { "lost \(lost), late \(late) → \(expected.map(String.init) ?? "dropped")" }
    }

    @Test(arguments: [
        Case(lost: [5], late: 5, expected: 3),     // frame 2 (TL1) second packet: its frame's number
        Case(lost: [4], late: 4, expected: 2),     // frame 2's first packet
        Case(lost: [2], late: 2, expected: nil),   // frame 1 (TL2) was dropped: stays dropped
        Case(lost: [9], late: 9, expected: 5),     // frame 4 (TL0) end, after a dropped frame 3
        // A TL0 frame lost whole between dropped frames reserved no numbers: stays out.
        Case(lost: [8, 9], late: 9, expected: nil),
        Case(lost: [8, 9], late: 8, expected: nil),
    ])
    func aLatePacketGoesOutUnderTheNumberItsFrameWentOutWith(_ c: Case) throws {
        var route = LegVideoRoute(spatial: 0, on: true)
        route.targetTemporal = 1
        route.temporal = 1
        let buffers = PacketBufferPool(initialCount: 4, maximumCount: 64, bufferSize: 2048, headroom: 0)
        var outgoing: [Int: UInt16] = [:]
        var first: UInt16?
        var previousEnded = true
        func make(_ n: Int) -> PacketBuffer {
            let tid: UInt8 = [0, 2, 1, 2][n / 2 % 4]
            let bytes: [UInt8] = [0x80, n % 2 == 1 ? 0xE0 : 0x60, 0, UInt8(n), 0, 0, UInt8(n / 2 * 3000 >> 8), UInt8(n / 2 * 3000 & 0xFF),
                                  0, 0, 0x11, 0x11, 0x80 | (n % 2 == 0 ? 0x10 : 0), 0xE0, 0x80, UInt8(n / 2), 0, tid << 6, 1, 0, 0]
            let buffer = buffers.take()!
            bytes.withUnsafeBytes { _ = buffer.assign($0) }
            return buffer
        }
        for n in 0..<12 where !c.lost.contains(n) {
            let buffer = make(n)
            let base = buffer.bytes.baseAddress!
            let fields = try #require(VP8Fields(base, buffer.length))
            let sequence = UInt16(n), timestamp = UInt32(n / 2 * 3000)
            // As the forwarding handler: after a marker, or at a descriptor's S bit.
            let frameStart = previousEnded || fields.startsFrame
            previousEnded = n % 2 == 1
            switch route.admit(encoding: 0, fields: fields, frameStart: frameStart, allowed: true) {
            case .forward:
                let out = route.rewrite(base, fields: fields, sequence: sequence, timestamp: timestamp, now: 1)
                route.record(encoding: 0, sequence: sequence, timestamp: timestamp, forwarded: true)
                if first == nil { first = out }
                outgoing[n] = out &- first!
            case .skip:
                route.record(encoding: 0, sequence: sequence, timestamp: timestamp, forwarded: false)
            case .ignore:
                Issue.record("one encoding")
            }
        }
        let late = make(c.late)
        let base = late.bytes.baseAddress!
        let fields = try #require(VP8Fields(base, late.length))
        let sent = route.rewriteLate(base, encoding: 0, fields: fields, sequence: UInt16(c.late),
                                     timestamp: UInt32(c.late / 2 * 3000))
        #expect(sent == (c.expected != nil))
        if let expected = c.expected, sent {
            #expect(WireBytes.be16(base, 2) &- first! == UInt16(expected), "the hole the subscriber sees: \(outgoing)")
            #expect(!outgoing.values.contains(UInt16(expected)), "a number not used by another packet")
        }
    }
}
