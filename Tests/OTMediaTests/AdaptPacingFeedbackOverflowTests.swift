import Testing
@testable import OTMedia

/// Transport-wide feedback whose numbers are chosen to overflow: a subscriber that
/// steps the 24-bit reference time forward by just under half its range in every feedback
/// pushes the unwrapped reference past what `ticks × 250 000` nanoseconds can hold
/// (about 34 400 feedbacks). That used to trap the router's forwarding thread; the
/// arrival now clamps to `maximumArrivalNanoseconds`.
@Suite struct AdaptPacingFeedbackOverflowTests {
    /// One TWCC feedback (PT 205, FMT 15) with a single status: `received` (small delta of
    /// 0 ticks) or not.
    static func feedback(base: UInt16, reference: UInt32, count: UInt8, received: Bool) -> [UInt8] {
        let chunk: UInt16 = received ? 0x2001 : 0x0001  // run length, symbol 1 or 0, one status
        var bytes: [UInt8] = [0x8F, 205, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2,
                              UInt8(base >> 8), UInt8(base & 0xFF), 0, 1,
                              UInt8(reference >> 16 & 0xFF), UInt8(reference >> 8 & 0xFF), UInt8(reference & 0xFF), count,
                              UInt8(chunk >> 8), UInt8(chunk & 0xFF)]
        if received { bytes.append(0) }  // its one-byte delta
        while bytes.count % 4 != 0 { bytes.append(0) }
        bytes[3] = UInt8(bytes.count / 4 - 1)
        return bytes
    }

    @Test func aReferenceTimeSteppedForwardForeverClampsInsteadOfTrapping() throws {
        var history = SentPacketHistory()
        history.record(sequenceNumber: 1000, sendNanoseconds: 5, size: 1200, kind: .video)
        var adapter = TransportFeedbackAdapter()
        var results: [PacketResult] = []
        results.reserveCapacity(16)
        let step: UInt32 = (1 << 23) - 1  // the largest step that still unwraps forward
        var reference: UInt32 = 0
        for index in 0..<40_000 {
            // Statuses about packet 500, which the history never had: only the reference moves.
            let bytes = Self.feedback(base: 500, reference: reference, count: UInt8(truncatingIfNeeded: index), received: false)
            try withRaw(bytes) { view in
                _ = adapter.adapt(try TransportWideCCFeedback(parsing: view), history: &history, now: 10, into: &results)
            }
            reference = (reference + step) & 0xFF_FFFF
        }
        let last = Self.feedback(base: 1000, reference: reference, count: 0, received: true)
        let written = try withRaw(last) { view in
            adapter.adapt(try TransportWideCCFeedback(parsing: view), history: &history, now: 10, into: &results)
        }
        #expect(written == 1)
        #expect(results.first?.arrivalNanoseconds == TransportFeedbackAdapter.maximumArrivalNanoseconds)
        #expect(adapter.counters.unknownPackets == 40_000)
    }

    /// The conversion on its own, at the edges of `Int64`.
    @Test(arguments: [
        (Int64(4), Int64(0), UInt64(1_000_000)),
        (Int64(-5), Int64(0), UInt64(0)),
        (Int64(1), Int64(-1), UInt64(0)),
        (Int64.max, Int64.max, TransportFeedbackAdapter.maximumArrivalNanoseconds),
        (Int64.max, Int64(0), TransportFeedbackAdapter.maximumArrivalNanoseconds),
        (Int64.min, Int64(-1), UInt64(0)),
        (Int64.min, Int64.max, UInt64(0)),
        (Int64(1) << 50, Int64(0), TransportFeedbackAdapter.maximumArrivalNanoseconds),
        (Int64(1) << 40, Int64(0), (UInt64(1) << 40) * 250_000),
    ])
    func nanosecondsSaturate(ticks: Int64, offset: Int64, expected: UInt64) {
        #expect(TransportFeedbackAdapter.nanoseconds(ticks: ticks, offset: offset) == expected)
    }
}
