@testable import OTRecording
import Testing

/// The recorder's clock and ordering rules, one step at a time.
@Suite("Recording timing")
struct RecordingTimingTests {
    /// A video timestamp crossing 2^32 advances the clock by the ticks between, not by −2^32.
    @Test func timestampWrapIsAnOrdinaryStep() {
        var timeline = TrackTimeline(track: .video)
        let before = timeline.time(of: 0xFFFF_FE00, arrival: 5_000_000_000)
        let after = timeline.time(of: 0x0000_0400, arrival: 5_020_000_000)
        #expect(after - before == Int64(0x600) * 1_000_000_000 / 90_000)
        #expect(timeline.discontinuities == 0)
    }

    /// Five seconds of muted video: the clock advances by the media time that passed, no jump, no stall.
    @Test func gapAdvancesByMediaTime() {
        var timeline = TrackTimeline(track: .video)
        let first = timeline.time(of: 1000, arrival: 1_000_000_000)
        let later = timeline.time(of: 1000 &+ 5 * 90_000, arrival: 6_040_000_000)
        #expect(later - first == 5_000_000_000)
        #expect(timeline.discontinuities == 0)
    }

    /// A sender restart (timestamps jump by 2^31) re-anchors on arrival instead of jumping hours.
    @Test func restartReanchorsOnArrival() {
        var timeline = TrackTimeline(track: .audio)
        _ = timeline.time(of: 48_000, arrival: 1_000_000_000)
        let restarted = timeline.time(of: 48_000 &+ 0x8000_0000, arrival: 1_020_000_000)
        #expect(restarted == 1_020_000_000)
        #expect(timeline.discontinuities == 1)
    }

    /// A sender report moves the track onto the sender's clock: later packets map through it.
    @Test func senderReportAnchorsTheTrack() {
        var timeline = TrackTimeline(track: .audio)
        _ = timeline.time(of: 0, arrival: 1_000_000_000)
        timeline.apply(senderReportTime: 2_000_000_000, rtp: 48_000)
        #expect(timeline.synchronized)
        #expect(timeline.time(of: 96_000, arrival: 3_050_000_000) == 3_000_000_000)
    }

    /// Reordered packets come out in order across the 16-bit sequence wrap; a hole is given
    /// up after `depth` followers; a packet after its place was released is late.
    @Test func reorderWindowOrdersSkipsAndDropsLate() {
        let buffer = PacketReorderBuffer(slotSize: 16, depth: 2, timeoutNanoseconds: 1_000_000_000)
        var out: [UInt8] = []
        func push(_ sequence: UInt16, _ tag: UInt8) {
            withUnsafeBytes(of: tag) { buffer.insert($0, sequence: sequence, arrival: 0) { bytes, _ in out.append(bytes[0]) } }
        }
        push(65_534, 1)
        push(0, 3)        // 65_535 is late
        push(65_535, 2)
        #expect(out == [1, 2, 3])
        push(2, 5)        // 1 missing: two followers are allowed to wait…
        push(3, 6)
        #expect(out == [1, 2, 3])
        push(4, 7)        // …a third gives it up
        #expect(out == [1, 2, 3, 5, 6, 7])
        #expect(buffer.skippedPackets == 1)
        push(1, 4)        // too late now
        #expect(buffer.latePackets == 1)
        #expect(out == [1, 2, 3, 5, 6, 7])
    }
}
