import Testing
@testable import OTMedia

@Suite struct ReceiveStreamStatisticsTests {
    @Test func lossAndFractionFollowRFC3550AppendixA3() {
        var stats = ReceiveStreamStatistics(clockRate: 90_000)
        // 100 packets expected, 10 lost (every 10th).
        for n in 0..<100 where n % 10 != 5 {
            stats.record(sequence: UInt16(truncatingIfNeeded: 65500 + n), rtpTimestamp: UInt32(n * 3000), bytes: 1000,
                         arrivalNanoseconds: UInt64(n) * 33_333_333)
        }
        #expect(stats.expected == 100)
        #expect(stats.cumulativeLost == 10)
        #expect(stats.extendedHighestSequence == 65599, "65500 + 99 across the wrap, with the cycle count")
        #expect(stats.takeFractionLost() == 25, "10/100 × 256 = 25.6, truncated")
        #expect(stats.takeFractionLost() == 0, "a new interval with nothing new")
        #expect(stats.bytesReceived == 90_000)
    }

    @Test func jitterIsZeroForPerfectPacingAndTracksVariation() {
        var steady = ReceiveStreamStatistics(clockRate: 48_000)
        for n in 0..<200 {
            steady.record(sequence: UInt16(n), rtpTimestamp: UInt32(n * 960), bytes: 100, arrivalNanoseconds: UInt64(n) * 20_000_000)
        }
        #expect(steady.jitter < 1)
        var jittery = ReceiveStreamStatistics(clockRate: 48_000)
        for n in 0..<2000 {
            // Arrivals alternate 5 ms early and 5 ms late: |D| = 10 ms = 480 units.
            let offset: Int64 = n % 2 == 0 ? -5_000_000 : 5_000_000
            jittery.record(sequence: UInt16(truncatingIfNeeded: n), rtpTimestamp: UInt32(n * 960), bytes: 100,
                           arrivalNanoseconds: UInt64(Int64(n) * 20_000_000 + 1_000_000_000 + offset))
        }
        #expect(abs(jittery.jitter - 480) < 5, "J converges to the mean |D|: \(jittery.jitter)")
        #expect(abs(Int64(jittery.jitterNanoseconds) - 10_000_000) < 200_000)
    }

    @Test func reorderingAndDuplicatesDoNotMoveTheHighestBackwards() {
        var stats = ReceiveStreamStatistics(clockRate: 90_000)
        for s: UInt16 in [10, 12, 11, 12] {
            stats.record(sequence: s, rtpTimestamp: 0, bytes: 10, arrivalNanoseconds: 0)
        }
        #expect(stats.extendedHighestSequence == 12)
        #expect(stats.cumulativeLost == -1, "three expected, four received (one duplicate)")
        #expect(stats.takeFractionLost() == 0)
    }

    @Test func arrivalsLongAfterBootDoNotOverflow() {
        // CLOCK_MONOTONIC after 300 days up: ns × 90 000 would not fit in 64 bits.
        var stats = ReceiveStreamStatistics(clockRate: 90_000)
        let boot: UInt64 = 300 * 86_400 * 1_000_000_000
        for n in 0..<50 {
            stats.record(sequence: UInt16(n), rtpTimestamp: UInt32(n * 3000), bytes: 100,
                         arrivalNanoseconds: boot + UInt64(n) * 33_333_333)
        }
        #expect(stats.jitter < 1, "steady 30 fps arrivals: jitter \(stats.jitter)")
        #expect(RTPClockTime.ticks(nanoseconds: boot + 1_500_000_000, rate: 90_000)
                == 300 * 86_400 * 90_000 + 135_000)
    }
}
