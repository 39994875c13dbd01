import Testing
@testable import OTMedia

@Suite struct RTCPTransportFeedbackTests {
    /// TWCC with all four chunk kinds, small, large and negative deltas
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1).
    static let feedback: [UInt8] = [
        0x8F, 0xCD, 0x00, 0x0A, // v=2, p=0, FMT=15 (TWCC), PT=RTPFB(205), length=10 (44 bytes)
        0x00, 0x00, 0x00, 0x01, // SSRC of packet sender
        0x90, 0x2F, 0x9E, 0x2E, // SSRC of media source
        0x00, 0x64, 0x00, 0x1D, // base sequence number 100, packet status count 29
        0x00, 0x01, 0x00, 0x05, // reference time 256 (x 64 ms = 16.384 s), fb pkt count 5
        0x20, 0x03,             // run length (T=0): symbol 01 small delta, length 3 -> 100..102
        0xAC, 0x01,             // status vector (T=1), S=0 one-bit: 1 0 1 1 0 0 0 0 0 0 0 0 0 1 -> 103..116
        0xE1, 0x81,             // status vector (T=1), S=1 two-bit: 10 00 01 10 00 00 01 -> 117..123
        0x00, 0x05,             // run length: symbol 00 not received, length 5 -> 124..128
        0x04,                   // 100: +4 ticks (1 ms)
        0x08,                   // 101: +8 (2 ms)
        0x00,                   // 102: +0
        0xFF,                   // 103: +255 (63.75 ms, the largest small delta)
        0x01,                   // 105: +1
        0x02,                   // 106: +2
        0x28,                   // 116: +40 (10 ms)
        0x10, 0x00,             // 117: large, +4096 (1.024 s)
        0x04,                   // 119: +4
        0xFF, 0xD8,             // 120: large, -40 (-10 ms: reordered arrival)
        0x10,                   // 123: +16
        0x00, 0x00, 0x00,       // zero padding to the 32-bit boundary
    ]

    /// (sequence, received, delta ticks) for every status in `feedback`.
    static let expected: [(UInt16, Bool, Int16)] = {
        var rows: [(UInt16, Bool, Int16)] = [(100, true, 4), (101, true, 8), (102, true, 0), (103, true, 255), (104, false, 0),
                                             (105, true, 1), (106, true, 2)]
        rows += (107 ... 115).map { ($0, false, 0) }
        rows += [(116, true, 40), (117, true, 4096), (118, false, 0), (119, true, 4), (120, true, -40), (121, false, 0),
                 (122, false, 0), (123, true, 16)]
        rows += (124 ... 128).map { ($0, false, 0) }
        return rows
    }()

    static func check(_ feedback: TransportWideCCFeedback) {
        #expect(feedback.senderSSRC == 1)
        #expect(feedback.mediaSSRC == 0x902F_9E2E)
        #expect(feedback.baseSequenceNumber == 100)
        #expect(feedback.packetStatusCount == 29)
        #expect(feedback.referenceTime == 256)
        #expect(feedback.referenceTimeMicroseconds == 16_384_000)
        #expect(feedback.feedbackPacketCount == 5)
        let statuses = Array(feedback.packets)
        #expect(statuses.count == expected.count)
        var ticks: Int64 = 256 * 256
        for (status, row) in zip(statuses, expected) {
            #expect(status.sequenceNumber == row.0)
            #expect(status.isReceived == row.1)
            #expect(status.deltaTicks == row.2)
            ticks += Int64(row.2)
            #expect(status.arrivalTicks == ticks)
        }
        #expect(statuses.first { $0.sequenceNumber == 117 }?.symbol == .largeDelta)
        #expect(statuses.first { $0.sequenceNumber == 120 }?.deltaMicroseconds == -10_000)
        #expect(statuses.last?.arrivalMicroseconds == Int64(69_922) * 250)
    }

    @Test func annotatedFeedbackDecodes() throws {
        try withRaw(Self.feedback) { view in
            let feedback = try TransportWideCCFeedback(parsing: view)
            Self.check(feedback)
            let written = try RTCPTestSupport.write(feedback)
            #expect(written == Self.feedback)
        }
    }

    @Test func decodeIntoACallerBuffer() throws {
        let placeholder = TWCCPacketStatus(sequenceNumber: 0, symbol: .notReceived, deltaTicks: 0, arrivalTicks: 0)
        var all = [TWCCPacketStatus](repeating: placeholder, count: 64)
        var few = [TWCCPacketStatus](repeating: placeholder, count: 10)
        try withRaw(Self.feedback) { view in
            let feedback = try TransportWideCCFeedback(parsing: view)
            let count = all.withUnsafeMutableBufferPointer { feedback.decode(into: $0) }
            #expect(count == 29)
            #expect(Array(all[0 ..< count]) == Array(feedback.packets))
            let partial = few.withUnsafeMutableBufferPointer { feedback.decode(into: $0) }
            #expect(partial == 10)
            #expect(few == Array(all[0 ..< 10]))
        }
    }

    /// libwebrtc pads TWCC with the P bit and a 1–3 byte padding count; that parses the same.
    @Test func libwebrtcStylePaddingDecodes() throws {
        var bytes = Self.feedback
        bytes[0] |= 0x20
        bytes[bytes.count - 1] = 3
        try withRaw(bytes) { view in
            let feedback = try TransportWideCCFeedback(parsing: view)
            Self.check(feedback)
            #expect(try RTCPTestSupport.write(feedback) == Self.feedback)  // written back with zero padding
        }
    }

    @Test(arguments: [
        // Status count 29 but only two chunks (17 statuses).
        (Array(feedback[0 ..< 24]), RTCPError.malformed(.twccChunkOverrun), UInt8(0x05)),
        // A run-length chunk of length 0.
        (Array(feedback[0 ..< 20]) + [0x20, 0x00, 0, 0], .malformed(.twccEmptyRun), 0x05),
        // A run of the reserved symbol 11.
        (Array(feedback[0 ..< 20]) + [0x60, 0x1D, 0, 0], .malformed(.twccReservedSymbol), 0x05),
        // Chunks fine, deltas cut off.
        (Array(feedback[0 ..< 36]), .malformed(.twccDeltaOverrun), 0x08),
    ])
    func malformedFeedbackIsRefused(bytes: [UInt8], expected: RTCPError, length: UInt8) {
        var packet = bytes
        packet[3] = length
        let error = withRaw(packet) { view in RTCPTestSupport.error { _ = try TransportWideCCFeedback(parsing: view) } }
        #expect(error == expected)
    }

    /// Builds feedback from records, parses it, and checks every record's status and arrival.
    static func buildAndCheck(_ records: [TWCCReceivedPacket], maxSize: Int = 1200) throws -> (TransportWideCCBuilder, [UInt8]) {
        try records.withUnsafeBufferPointer { input in
            let builder = try TransportWideCCBuilder(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 9, records: input, maxSize: maxSize)
            #expect(builder.size <= maxSize)
            let bytes = try RTCPTestSupport.write(builder)
            try withRaw(bytes) { view in
                let feedback = try TransportWideCCFeedback(parsing: view)
                #expect(feedback.baseSequenceNumber == records[0].sequenceNumber)
                #expect(Int(feedback.packetStatusCount) == builder.packetStatusCount)
                #expect(feedback.feedbackPacketCount == 9)
                var received = [UInt16: Int64]()
                var count = 0
                for status in feedback.packets {
                    count += 1
                    if status.isReceived { received[status.sequenceNumber] = status.arrivalTicks }
                }
                #expect(count == builder.packetStatusCount)
                // The records the builder keeps: the first, then each one ahead of the last kept.
                var kept: [TWCCReceivedPacket] = []
                for record in records[0 ..< builder.consumed] {
                    if let last = kept.last {
                        let distance = record.sequenceNumber &- last.sequenceNumber
                        if distance == 0 || distance >= 0x8000 { continue }
                    }
                    kept.append(record)
                }
                #expect(received.count == kept.count)
                for record in kept {
                    #expect(received[record.sequenceNumber] == Int64(record.arrivalNanoseconds / 250_000))
                }
            }
            return (builder, bytes)
        }
    }

    static func records(_ rows: [(UInt16, UInt64)]) -> [TWCCReceivedPacket] {
        rows.map { TWCCReceivedPacket(sequenceNumber: $0.0, arrivalNanoseconds: $0.1 * 1000) }  // microseconds in
    }

    @Test func allReceivedSmallDeltasMakeOneRunLengthChunk() throws {
        let records = Self.records((0 ..< 20).map { (UInt16(1000 + $0), 5_000_000 + UInt64($0) * 1000) })
        let (builder, bytes) = try Self.buildAndCheck(records)
        #expect(builder.consumed == 20)
        #expect(Array(bytes[20 ..< 22]) == [0x20, 0x14])  // symbol 01, run 20
        #expect(bytes.count == (20 + 2 + 20 + 3) & ~3)
    }

    @Test func alternatingLossMakesAOneBitVector() throws {
        let records = Self.records(stride(from: 0, through: 12, by: 2).map { (UInt16($0), 1_000_000 + UInt64($0) * 500) })
        let (builder, bytes) = try Self.buildAndCheck(records)
        #expect(builder.packetStatusCount == 13)
        #expect(Array(bytes[20 ..< 22]) == [0xAA, 0xAA])  // 1-bit vector: 1010101010101(0)
    }

    @Test func largeAndNegativeDeltasMakeTwoBitVectors() throws {
        // +100 ms is large (400 ticks), -10 ms is negative.
        let records = Self.records([(0, 1_000_000), (1, 1_100_000), (2, 1_100_250), (3, 1_090_250)])
        let (_, bytes) = try Self.buildAndCheck(records)
        #expect(Array(bytes[20 ..< 22]) == [0xD9, 0x80])  // 2-bit vector: 01 10 01 10 00 00 00
        try withRaw(bytes) { view in
            let deltas = try TransportWideCCFeedback(parsing: view).packets.map(\.deltaTicks)
            #expect(deltas == [Int16((1_000_000 % 64_000) / 250), 400, 1, -40])
        }
    }

    @Test func wrapAndLongGap() throws {
        let wrap = Self.records([(65534, 0), (65535, 250), (0, 500), (1, 750)])
        let (wrapBuilder, _) = try Self.buildAndCheck(wrap)
        #expect(wrapBuilder.packetStatusCount == 4)

        let gap = Self.records([(10, 1000), (5010, 2000)])
        let (gapBuilder, bytes) = try Self.buildAndCheck(gap)
        #expect(gapBuilder.packetStatusCount == 5001)
        #expect(bytes.count <= 40)  // runs, not 5001 symbols
    }

    @Test func unrepresentableDeltaEndsTheFeedback() throws {
        // 10 s after the previous packet: beyond the ±8.19 s a large delta holds.
        let records = Self.records([(0, 0), (1, 1000), (2, 10_001_000), (3, 10_002_000)])
        let (builder, _) = try Self.buildAndCheck(records)
        #expect(builder.consumed == 2)
        let rest = Array(records[2...])
        let (next, _) = try Self.buildAndCheck(rest)
        #expect(next.consumed == 2)
    }

    @Test func sizeLimitSplitsFeedbackAcrossPackets() throws {
        var random = SplitMix64(seed: 7)
        var time: UInt64 = 0
        let records = (0 ..< 600).map { index -> TWCCReceivedPacket in
            time += UInt64(random.below(200_000))  // up to 200 ms apart: many large deltas
            return TWCCReceivedPacket(sequenceNumber: UInt16(index * 2), arrivalNanoseconds: 1_000_000_000 + time * 1000)
        }
        var start = 0
        var packets = 0
        while start < records.count {
            let (builder, bytes) = try Self.buildAndCheck(Array(records[start...]), maxSize: 200)
            #expect(bytes.count <= 200)
            #expect(builder.consumed > 0)
            start += builder.consumed
            packets += 1
        }
        #expect(packets > 3)
    }

    @Test func duplicatesAndReorderedRecordsAreSkipped() throws {
        let records = Self.records([(5, 1000), (5, 1100), (7, 1200), (6, 1300), (8, 1400)])
        let (builder, _) = try Self.buildAndCheck(records)
        #expect(builder.consumed == 5)
        #expect(builder.packetStatusCount == 4)  // 5, 6 (lost), 7, 8
    }

    @Test func noRecordsIsAnError() {
        let error = RTCPTestSupport.error {
            _ = try TransportWideCCBuilder(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0,
                                           records: UnsafeBufferPointer(start: nil, count: 0))
        }
        #expect(error == .malformed(.noRecords))
    }

    /// Random receive patterns, built and parsed back.
    @Test func randomPatternsRoundTrip() throws {
        var random = SplitMix64(seed: 42)
        for _ in 0 ..< 300 {
            var sequence = UInt16(truncatingIfNeeded: random.next())
            var time = random.next() % 1_000_000_000_000
            var records: [TWCCReceivedPacket] = []
            for _ in 0 ..< 1 + random.below(120) {
                records.append(TWCCReceivedPacket(sequenceNumber: sequence, arrivalNanoseconds: time))
                sequence &+= UInt16(1 + (random.below(4) == 0 ? random.below(40) : 0))
                let step = random.below(10) == 0 ? random.below(300_000_000) : random.below(5_000_000)
                time = random.below(8) == 0 && time > 30_000_000 ? time - UInt64(random.below(30_000_000)) : time + UInt64(step)
            }
            _ = try Self.buildAndCheck(records)
        }
    }
}
