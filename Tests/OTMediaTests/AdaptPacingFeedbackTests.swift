import Testing
@testable import OTMedia

/// TWCC round trip: the receiver's (sequence, arrival) records go through
/// `TransportWideCCBuilder`, the bytes through `TransportWideCCFeedback`, and the
/// adapter pairs them with the `SentPacketHistory` into `PacketResult`s
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1).
@Suite struct AdaptPacingFeedbackTests {
    static let ms: UInt64 = 1_000_000
    /// One receive-delta tick (section 3.1.5): arrivals come back floored to it.
    static let tick: UInt64 = 250_000

    /// Builds one feedback from `records` (all of them must fit), parses it and adapts it.
    static func roundTrip(_ records: [TWCCReceivedPacket], count: UInt8, adapter: inout TransportFeedbackAdapter,
                          history: inout SentPacketHistory, now: UInt64, results: inout [PacketResult]) throws -> Int {
        let bytes = try records.withUnsafeBufferPointer { buffer in
            let builder = try TransportWideCCBuilder(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: count,
                                                     records: buffer)
            #expect(builder.consumed == records.count)
            return try RTCPTestSupport.write(builder)
        }
        return try withRaw(bytes) { view in
            let feedback = try TransportWideCCFeedback(parsing: view)
            return adapter.adapt(feedback, history: &history, now: now, into: &results)
        }
    }

    /// What the adapter must produce for `records` over a history where packet s was sent
    /// at `send(s)` with `size(s)`: every number from the first to the last record, lost
    /// ones nil, arrivals floored to the 250 µs tick.
    static func expected(_ records: [TWCCReceivedPacket], firstUnwrapped: UInt64, send: (UInt64) -> UInt64,
                         size: (UInt64) -> Int) -> [PacketResult] {
        let span = Int(records.last!.sequenceNumber &- records.first!.sequenceNumber) + 1
        return (0 ..< span).map { offset in
            let wire = records.first!.sequenceNumber &+ UInt16(offset)
            let sequence = firstUnwrapped + UInt64(offset)
            let arrival = records.first { $0.sequenceNumber == wire }.map { $0.arrivalNanoseconds / tick * tick }
            return PacketResult(sequenceNumber: sequence, sendNanoseconds: send(sequence), arrivalNanoseconds: arrival,
                                size: size(sequence))
        }
    }

    static func history(_ range: Range<UInt64>, send: (UInt64) -> UInt64, size: (UInt64) -> Int) -> SentPacketHistory {
        var history = SentPacketHistory()
        for sequence in range {
            history.record(sequenceNumber: sequence, sendNanoseconds: send(sequence), size: size(sequence),
                           kind: .video)
        }
        return history
    }

    /// Hand-checked: a loss, sub-tick arrivals floored, a large delta (> 63.75 ms), a
    /// negative delta (reordered arrival), and the 16-bit wrap in one feedback.
    @Test func annotatedFeedbackAcrossTheWrap() throws {
        var history = SentPacketHistory()
        for (index, sequence) in (UInt64(65533) ... 65538).enumerated() {
            history.record(sequenceNumber: sequence, sendNanoseconds: UInt64(index) * Self.ms, size: 1200, kind: .video)
        }
        let records = [
            TWCCReceivedPacket(sequenceNumber: 65533, arrivalNanoseconds: 1_000_100_000),  // floors to 1.000 s
            TWCCReceivedPacket(sequenceNumber: 65535, arrivalNanoseconds: 1_000_600_000),  // floors to 1.0005 s
            TWCCReceivedPacket(sequenceNumber: 0, arrivalNanoseconds: 1_070_000_000),      // +69.5 ms: large delta
            TWCCReceivedPacket(sequenceNumber: 2, arrivalNanoseconds: 1_069_000_000),      // -1 ms: reordered
        ]
        var adapter = TransportFeedbackAdapter()
        var results: [PacketResult] = []
        results.reserveCapacity(64)
        let count = try Self.roundTrip(records, count: 0, adapter: &adapter, history: &history, now: 10 * Self.ms,
                                       results: &results)
        #expect(count == 6)
        #expect(results == [
            PacketResult(sequenceNumber: 65533, sendNanoseconds: 0, arrivalNanoseconds: 1_000_000_000, size: 1200),
            PacketResult(sequenceNumber: 65534, sendNanoseconds: 1 * Self.ms, arrivalNanoseconds: nil, size: 1200),
            PacketResult(sequenceNumber: 65535, sendNanoseconds: 2 * Self.ms, arrivalNanoseconds: 1_000_500_000, size: 1200),
            PacketResult(sequenceNumber: 65536, sendNanoseconds: 3 * Self.ms, arrivalNanoseconds: 1_070_000_000, size: 1200),
            PacketResult(sequenceNumber: 65537, sendNanoseconds: 4 * Self.ms, arrivalNanoseconds: nil, size: 1200),
            PacketResult(sequenceNumber: 65538, sendNanoseconds: 5 * Self.ms, arrivalNanoseconds: 1_069_000_000, size: 1200),
        ])
        #expect(adapter.counters.receivedResults == 4)
        #expect(adapter.counters.lostResults == 2)
    }

    struct SequenceCase: Sendable, CustomStringConvertible {
        var name: String
        /// First unwrapped number sent.
        var start: UInt64
        /// Feedback packets: (wire sequence, arrival ns) records.
        var feedbacks: [[(UInt16, UInt64)]]
        var description: String { name }
    }

    /// 2^24 reference units of 64 ms: where the 24-bit reference time wraps.
    static let referenceWrap: UInt64 = (1 << 24) * 64 * ms

    static let sequences: [SequenceCase] = [
        SequenceCase(name: "all received", start: 0, feedbacks: [
            (0 ..< 10).map { (UInt16($0), 500 * ms + UInt64($0) * 3 * ms + 70_000) },
        ]),
        SequenceCase(name: "gaps and a lost tail before the next feedback", start: 10, feedbacks: [
            [(10, 2_000 * ms), (11, 2_001 * ms), (14, 2_010 * ms), (15, 2_011 * ms), (19, 2_030 * ms)],
            [(20, 2_100 * ms), (25, 2_101 * ms)],
        ]),
        SequenceCase(name: "16-bit wrap between feedbacks", start: 65_530, feedbacks: [
            [(65530, 40 * ms), (65531, 41 * ms), (65533, 43 * ms), (65535, 45 * ms)],
            [(0, 46 * ms), (1, 47 * ms), (4, 60 * ms)],
        ]),
        SequenceCase(name: "reference time wraps between feedbacks", start: 7, feedbacks: [
            [(7, referenceWrap - 100 * ms), (8, referenceWrap - 80 * ms + 30_000), (9, referenceWrap - 10 * ms)],
            [(10, referenceWrap + 5 * ms), (12, referenceWrap + 90 * ms + 240_000)],
            [(13, referenceWrap + 200 * ms)],
        ]),
        SequenceCase(name: "large gap in time and reordering", start: 1_000_000, feedbacks: [
            [(16960, 9_000 * ms), (16961, 9_500 * ms), (16962, 9_499 * ms), (16963, 17_000 * ms)],
        ]),
    ]

    @Test(arguments: sequences)
    func roundTripMatchesTheExpectedResults(_ row: SequenceCase) throws {
        let send = { (sequence: UInt64) in sequence * 2 * Self.ms }
        let size = { (sequence: UInt64) in 200 + Int(sequence % 1000) }
        let total = row.feedbacks.reduce(0) { $0 + Int($1.last!.0 &- $1.first!.0) + 1 } + 10
        var history = Self.history(row.start ..< row.start + UInt64(total), send: send, size: size)
        var adapter = TransportFeedbackAdapter()
        var results: [PacketResult] = []
        results.reserveCapacity(128)
        var first = row.start
        for (index, feedback) in row.feedbacks.enumerated() {
            let records = feedback.map { TWCCReceivedPacket(sequenceNumber: $0.0, arrivalNanoseconds: $0.1) }
            first = history.unwrap(records[0].sequenceNumber)!
            let count = try Self.roundTrip(records, count: UInt8(index), adapter: &adapter, history: &history,
                                           now: send(row.start), results: &results)
            let expected = Self.expected(records, firstUnwrapped: first, send: send, size: size)
            #expect(count == expected.count)
            #expect(results == expected, "feedback \(index)")
        }
        #expect(adapter.counters.feedbackPackets == UInt64(row.feedbacks.count))
        #expect(adapter.counters.unknownPackets == 0)
        #expect(adapter.counters.duplicateReports == 0)
        #expect(adapter.counters.missingFeedbackPackets == 0)
    }

    /// Feedback that repeats, overlaps, arrives late or skips a count.
    @Test func duplicateAndLateFeedback() throws {
        let send = { (sequence: UInt64) in sequence * Self.ms }
        let size = { (_: UInt64) in 1000 }
        var history = Self.history(0 ..< 20, send: send, size: size)
        var adapter = TransportFeedbackAdapter()
        var results: [PacketResult] = []
        results.reserveCapacity(64)
        let first = [TWCCReceivedPacket(sequenceNumber: 0, arrivalNanoseconds: 100 * Self.ms),
                     TWCCReceivedPacket(sequenceNumber: 1, arrivalNanoseconds: 101 * Self.ms),
                     TWCCReceivedPacket(sequenceNumber: 4, arrivalNanoseconds: 104 * Self.ms)]
        // 2 and 3 lost in the first; the second reports 2 received late, repeats 3 as lost and 4 as received.
        let second = [TWCCReceivedPacket(sequenceNumber: 2, arrivalNanoseconds: 106 * Self.ms),
                      TWCCReceivedPacket(sequenceNumber: 4, arrivalNanoseconds: 104 * Self.ms),
                      TWCCReceivedPacket(sequenceNumber: 5, arrivalNanoseconds: 105 * Self.ms)]
        let now = 50 * Self.ms

        #expect(try Self.roundTrip(first, count: 1, adapter: &adapter, history: &history, now: now, results: &results) == 5)
        #expect(results.map(\.arrivalNanoseconds) == [100 * Self.ms, 101 * Self.ms, nil, nil, 104 * Self.ms])

        #expect(try Self.roundTrip(second, count: 2, adapter: &adapter, history: &history, now: now, results: &results) == 2)
        #expect(results == [
            PacketResult(sequenceNumber: 2, sendNanoseconds: 2 * Self.ms, arrivalNanoseconds: 106 * Self.ms, size: 1000),
            PacketResult(sequenceNumber: 5, sendNanoseconds: 5 * Self.ms, arrivalNanoseconds: 105 * Self.ms, size: 1000),
        ])

        // The first feedback again, late: nothing new.
        #expect(try Self.roundTrip(first, count: 1, adapter: &adapter, history: &history, now: now, results: &results) == 0)
        #expect(results.isEmpty)

        // Feedback 5 after 2: two feedback packets went missing.
        let third = [TWCCReceivedPacket(sequenceNumber: 6, arrivalNanoseconds: 107 * Self.ms)]
        #expect(try Self.roundTrip(third, count: 5, adapter: &adapter, history: &history, now: now, results: &results) == 1)

        #expect(adapter.counters == {
            var counters = TransportFeedbackAdapter.Counters()
            counters.feedbackPackets = 4
            counters.missingFeedbackPackets = 2
            counters.outOfOrderFeedbackPackets = 1
            counters.duplicateReports = 2 + 5   // 3 lost again, 4 received again; then all 5 of the repeat
            counters.recoveredPackets = 1
            counters.receivedResults = 3 + 2 + 1
            counters.lostResults = 2
            return counters
        }())
    }

    /// (history capacity, packets recorded, feedback range, known results, unknown count)
    static let unknowns: [(Int, UInt64, ClosedRange<UInt16>, Int, UInt64)] = [
        (16, 40, 20 ... 30, 7, 4),    // 20 ... 23 were overwritten by 36 ... 39
        (16, 40, 30 ... 45, 10, 6),   // 40 ... 45 were never sent
        (4096, 10, 0 ... 9, 10, 0),
    ]

    @Test(arguments: unknowns)
    func unknownSequenceNumbersAreIgnored(_ capacity: Int, _ recorded: UInt64, _ range: ClosedRange<UInt16>,
                                          _ known: Int, _ unknown: UInt64) throws {
        var history = SentPacketHistory(capacity: capacity)
        for sequence in 0 ..< recorded {
            history.record(sequenceNumber: sequence, sendNanoseconds: sequence, size: 100, kind: .video)
        }
        let records = range.map { TWCCReceivedPacket(sequenceNumber: $0, arrivalNanoseconds: 1_000 * Self.ms + UInt64($0) * Self.ms) }
        var adapter = TransportFeedbackAdapter()
        var results: [PacketResult] = []
        let count = try Self.roundTrip(records, count: 0, adapter: &adapter, history: &history, now: 0, results: &results)
        #expect(count == known)
        #expect(adapter.counters.unknownPackets == unknown)
        #expect(results.allSatisfy { $0.sequenceNumber < recorded && $0.arrivalNanoseconds != nil })
    }

    @Test func packetsPastTheHorizonAreUnknown() throws {
        var history = SentPacketHistory(capacity: 64, horizonNanoseconds: 1_000 * Self.ms)
        for sequence: UInt64 in 0 ..< 4 {
            history.record(sequenceNumber: sequence, sendNanoseconds: sequence * 500 * Self.ms, size: 100, kind: .audio)
        }
        let records = (0 ..< 4).map { TWCCReceivedPacket(sequenceNumber: UInt16($0), arrivalNanoseconds: UInt64($0) * Self.ms) }
        var adapter = TransportFeedbackAdapter()
        var results: [PacketResult] = []
        // At 1.6 s, packets sent at 0 and 0.5 s are over 1 s old; 1.0 s and 1.5 s are not.
        _ = try Self.roundTrip(records, count: 0, adapter: &adapter, history: &history, now: 1_600 * Self.ms, results: &results)
        #expect(results.map(\.sequenceNumber) == [2, 3])
        #expect(adapter.counters.unknownPackets == 2)
    }

    /// A simulated link: 2000 packets every 2 ms from sequence 65000 (so the 16-bit wrap
    /// falls inside), 8 % random loss, 40 ms ± 15 ms one-way delay (reordering included),
    /// fed back every 50 packets in feedback packets of at most 64 bytes (so a batch splits); every
    /// PacketResult must equal the ground truth floored to 250 µs.
    @Test func simulatedLinkRoundTrip() throws {
        var random = SplitMix64(seed: 0x7CC)
        let start: UInt64 = 65_000
        let count = 2000
        var history = SentPacketHistory()
        var truth: [PacketResult] = []
        for index in 0 ..< count {
            let sequence = start + UInt64(index)
            let send = 10_000 * Self.ms + UInt64(index) * 2 * Self.ms
            let size = 100 + random.below(1100)
            history.record(sequenceNumber: sequence, sendNanoseconds: send, size: size, kind: .video)
            let lost = random.below(100) < 8
            let arrival = send + 25 * Self.ms + UInt64(random.below(30_000)) * 1000
            truth.append(PacketResult(sequenceNumber: sequence, sendNanoseconds: send,
                                      arrivalNanoseconds: lost ? nil : arrival / Self.tick * Self.tick, size: size))
        }
        var adapter = TransportFeedbackAdapter()
        var results: [PacketResult] = []
        results.reserveCapacity(256)
        var collected: [PacketResult] = []
        var feedbackCount: UInt8 = 0
        var batchStart = 0
        while batchStart < count {
            let batchEnd = min(count, batchStart + 50)
            var records: [TWCCReceivedPacket] = []
            for index in batchStart ..< batchEnd {
                guard let arrival = truth[index].arrivalNanoseconds else { continue }
                records.append(TWCCReceivedPacket(sequenceNumber: TransportSequenceNumbers.wire(truth[index].sequenceNumber),
                                                  arrivalNanoseconds: arrival))
            }
            batchStart = batchEnd
            // A small maxSize splits a batch over several feedback packets.
            var offset = 0
            while offset < records.count {
                let bytes = try records.withUnsafeBufferPointer { buffer in
                    let builder = try TransportWideCCBuilder(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: feedbackCount,
                                                             records: UnsafeBufferPointer(rebasing: buffer[offset...]),
                                                             maxSize: 64)
                    offset += builder.consumed
                    return try RTCPTestSupport.write(builder)
                }
                feedbackCount &+= 1
                try withRaw(bytes) { view in
                    let feedback = try TransportWideCCFeedback(parsing: view)
                    adapter.adapt(feedback, history: &history, now: 20_000 * Self.ms, into: &results)
                }
                collected += results
            }
        }
        // Losses at a batch's tail are reported by no feedback (the receiver has not seen
        // a later packet yet); everything else must match the truth exactly.
        var byNumber: [UInt64: PacketResult] = [:]
        for result in collected { byNumber[result.sequenceNumber] = result }
        #expect(collected.count == byNumber.count)
        var tailLosses = 0
        for expected in truth {
            guard let result = byNumber[expected.sequenceNumber] else {
                #expect(expected.arrivalNanoseconds == nil)
                tailLosses += 1
                continue
            }
            #expect(result == expected)
        }
        // Seeded: 146 of 2000 lost, 9 of them just before a feedback boundary.
        #expect(tailLosses == 9)
        #expect(adapter.counters.feedbackPackets == 80)  // 40 batches, each split in two by the 64-byte limit
        #expect(adapter.counters.receivedResults == 1854)
        #expect(adapter.counters.lostResults == 137)
        #expect(adapter.counters.lostResults + UInt64(tailLosses) == UInt64(truth.filter { $0.arrivalNanoseconds == nil }.count))
        #expect(adapter.counters.duplicateReports == 0 && adapter.counters.unknownPackets == 0)
        #expect(adapter.counters.missingFeedbackPackets == 0)
    }
}
