import Testing
@testable import OTMedia

/// The sent-packet history: a fixed ring by transport sequence number with a horizon.
@Suite struct AdaptPacingHistoryTests {
    struct OverwriteCase: Sendable, CustomStringConvertible {
        var capacity: Int
        var recorded: Range<UInt64>
        var present: [UInt64]
        var absent: [UInt64]
        var description: String { "capacity \(capacity), recorded \(recorded)" }
    }

    static let overwrites: [OverwriteCase] = [
        // Fits: everything is there.
        OverwriteCase(capacity: 16, recorded: 0 ..< 16, present: [0, 7, 15], absent: [16, 17]),
        // One lap and a half: the first 24 were overwritten by 16 ..< 40.
        OverwriteCase(capacity: 16, recorded: 0 ..< 40, present: [24, 31, 39], absent: [0, 8, 23, 40]),
        // Capacity rounds up to a power of two (100 -> 128).
        OverwriteCase(capacity: 100, recorded: 0 ..< 200, present: [72, 199], absent: [71, 0]),
        // Across the 16-bit wire wrap nothing special happens (unwrapped keys).
        OverwriteCase(capacity: 4096, recorded: 65_000 ..< 66_000, present: [65_000, 65_535, 65_536, 65_999],
                      absent: [64_999, 66_000, 464]),
    ]

    @Test(arguments: overwrites)
    func ringOverwritesTheOldest(_ row: OverwriteCase) {
        var history = SentPacketHistory(capacity: row.capacity)
        for sequence in row.recorded {
            history.record(sequenceNumber: sequence, sendNanoseconds: sequence * 1000, size: Int(sequence % 1500),
                           kind: sequence % 5 == 0 ? .audio : .video)
        }
        #expect(history.capacity.nonzeroBitCount == 1 && history.capacity >= row.capacity)
        #expect(history.newestSequenceNumber == row.recorded.upperBound - 1)
        for sequence in row.present {
            let expected = SentPacket(sequenceNumber: sequence, sendNanoseconds: sequence * 1000, size: Int(sequence % 1500),
                                      kind: sequence % 5 == 0 ? .audio : .video)
            #expect(history.packet(sequence, now: row.recorded.upperBound * 1000) == expected)
        }
        for sequence in row.absent {
            #expect(history.packet(sequence, now: row.recorded.upperBound * 1000) == nil)
        }
    }

    /// Horizon 1 s; packet n sent at n × 100 ms (n = 0 ... 9). (now, first still present).
    static let horizons: [(UInt64, UInt64)] = [
        (900_000_000, 0),      // everything within 1 s
        (1_000_000_000, 0),    // exactly 1 s old still counts
        (1_000_000_001, 1),    // packet 0 is 1 ns past the horizon
        (1_550_000_000, 6),    // 0 ... 5 are gone
        (20_000_000_000, 10),  // all gone
    ]

    @Test(arguments: horizons)
    func horizonDropsOldPackets(_ now: UInt64, _ firstPresent: UInt64) {
        var history = SentPacketHistory(capacity: 64, horizonNanoseconds: 1_000_000_000)
        for n: UInt64 in 0 ..< 10 {
            history.record(sequenceNumber: n, sendNanoseconds: n * 100_000_000, size: 1000, kind: .video)
        }
        for n: UInt64 in 0 ..< 10 {
            #expect((history.packet(n, now: now) != nil) == (n >= firstPresent), "packet \(n) at \(now)")
        }
    }

    @Test func aNumberACapacityBehindIsIgnored() {
        var history = SentPacketHistory(capacity: 16)
        history.record(sequenceNumber: 100, sendNanoseconds: 5, size: 10, kind: .video)
        history.record(sequenceNumber: 84, sendNanoseconds: 6, size: 20, kind: .padding)  // would take 100's slot
        #expect(history.packet(100, now: 10)?.size == 10)
        #expect(history.packet(84, now: 10) == nil)
        history.record(sequenceNumber: 90, sendNanoseconds: 7, size: 30, kind: .retransmission)  // late but in range
        #expect(history.packet(90, now: 10)?.kind == .retransmission)
        #expect(history.newestSequenceNumber == 100)
        #expect(history.recordedCount == 2)
    }

    @Test func reportsRememberWhatFeedbackSaid() {
        var history = SentPacketHistory(capacity: 16)
        history.record(sequenceNumber: 1, sendNanoseconds: 0, size: 10, kind: .video)
        #expect(history.report(1, received: false, now: 0)?.1 == SentPacketHistory.Report.none)
        #expect(history.report(1, received: false, now: 0)?.1 == .lost)
        #expect(history.report(1, received: true, now: 0)?.1 == .lost)
        #expect(history.report(1, received: false, now: 0)?.1 == .received)
        #expect(history.report(1, received: true, now: 0)?.1 == .received)
        #expect(history.report(2, received: true, now: 0) == nil)
        // A new packet in the slot starts unreported.
        history.record(sequenceNumber: 17, sendNanoseconds: 0, size: 10, kind: .video)
        #expect(history.report(17, received: true, now: 0)?.1 == SentPacketHistory.Report.none)
    }
}
