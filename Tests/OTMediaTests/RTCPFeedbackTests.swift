import Testing
@testable import OTMedia

@Suite struct RTCPFeedbackTests {
    static let nack: [UInt8] = [
        0x81, 0xCD, 0x00, 0x04, // v=2, p=0, FMT=1 (generic NACK), PT=RTPFB(205), length=4 (20 bytes)
        0x00, 0x00, 0x00, 0x01, // SSRC of packet sender
        0x90, 0x2F, 0x9E, 0x2E, // SSRC of media source
        0xFF, 0xFE, 0x80, 0x01, // PID 65534, BLP bits 0 and 15: 65535 and 65534+16 = 14 (wrapped)
        0x00, 0x10, 0x00, 0x00, // PID 16, BLP 0
    ]

    static let pli: [UInt8] = [
        0x81, 0xCE, 0x00, 0x02, // v=2, p=0, FMT=1 (PLI), PT=PSFB(206), length=2 (12 bytes)
        0x00, 0x00, 0x00, 0x01, // SSRC of packet sender
        0x90, 0x2F, 0x9E, 0x2E, // SSRC of media source
    ]

    static let fir: [UInt8] = [
        0x84, 0xCE, 0x00, 0x04, // v=2, p=0, FMT=4 (FIR), PT=PSFB(206), length=4 (20 bytes)
        0x00, 0x00, 0x00, 0x01, // SSRC of packet sender
        0x00, 0x00, 0x00, 0x00, // SSRC of media source: unused, 0 (RFC 5104 4.3.1.2)
        0x90, 0x2F, 0x9E, 0x2E, // FCI entry: SSRC
        0x07, 0x00, 0x00, 0x00, // Seq nr. 7, reserved
    ]

    /// REMB of 1 Gbps: 10^9 >> 12 = 244140 (0x3B9AC) fits the 18-bit mantissa.
    static let remb: [UInt8] = [
        0x8F, 0xCE, 0x00, 0x05, // v=2, p=0, FMT=15 (AFB), PT=PSFB(206), length=5 (24 bytes)
        0x00, 0x00, 0x00, 0x01, // SSRC of packet sender
        0x00, 0x00, 0x00, 0x00, // SSRC of media source: 0
        0x52, 0x45, 0x4D, 0x42, // 'R' 'E' 'M' 'B'
        0x01, 0x33, 0xB9, 0xAC, // Num SSRC 1, BR Exp 12 (0b001100), BR Mantissa 0x3B9AC
        0x90, 0x2F, 0x9E, 0x2E, // SSRC feedback
    ]

    @Test func genericNACKBytes() throws {
        try withRaw(Self.nack) { view in
            let nack = try GenericNACK(parsing: view)
            #expect(nack.senderSSRC == 1)
            #expect(nack.mediaSSRC == 0x902F_9E2E)
            #expect(Array(nack.pairs) == [NACKPair(packetID: 65534, lostBitmask: 0x8001), NACKPair(packetID: 16)])
            #expect(Array(nack.lostSequenceNumbers) == [65534, 65535, 14, 16])
            let written = try RTCPTestSupport.write(nack)
            #expect(written == Self.nack)
        }
    }

    /// Building pairs from lost numbers and expanding them back, across the 16-bit wrap.
    @Test(arguments: [
        ([65534, 65535, 0, 1], [NACKPair(packetID: 65534, lostBitmask: 0b111)], [65534, 65535, 0, 1]),
        // 65534 + 16 = 14 is the last number one pair covers; 15 needs a second pair.
        ([65534, 65535, 0, 1, 14, 15], [NACKPair(packetID: 65534, lostBitmask: 0x8007), NACKPair(packetID: 15)],
         [65534, 65535, 0, 1, 14, 15]),
        ([100], [NACKPair(packetID: 100)], [100]),
        // 17 consecutive numbers fill PID plus all 16 BLP bits.
        (Array(UInt16(65530) ... 65535) + Array(0 ... 10), [NACKPair(packetID: 65530, lostBitmask: 0xFFFF)],
         Array(UInt16(65530) ... 65535) + Array(0 ... 10)),
        // A duplicate (1) and a number behind the pair (0) are skipped.
        ([1, 1, 2, 0, 40], [NACKPair(packetID: 1, lostBitmask: 0b1), NACKPair(packetID: 40)], [1, 2, 40]),
        ([], [], []),
    ] as [([UInt16], [NACKPair], [UInt16])])
    func nackBuildAndExpand(lost: [UInt16], expected: [NACKPair], expanded: [UInt16]) throws {
        var pairs = [NACKPair](repeating: NACKPair(packetID: 0), count: 8)
        let result = lost.withUnsafeBufferPointer { input in
            pairs.withUnsafeMutableBufferPointer { NACKPair.build(lost: input, into: $0) }
        }
        #expect(result.consumed == lost.count)
        #expect(Array(pairs[0 ..< result.pairs]) == expected)
        #expect(expected.flatMap { Array($0) } == expanded)

        try pairs.withUnsafeBufferPointer { all in
            let nack = GenericNACK(senderSSRC: 5, mediaSSRC: 6, pairs: RTCPList(UnsafeBufferPointer(rebasing: all[0 ..< result.pairs])))
            let bytes = try RTCPTestSupport.write(nack)
            try withRaw(bytes) { view in
                let parsed = try GenericNACK(parsing: view)
                #expect(parsed == nack)
                #expect(Array(parsed.lostSequenceNumbers) == expanded)
            }
        }
    }

    @Test func nackBuildStopsWhenTheOutputIsFull() {
        let lost: [UInt16] = [10, 30, 50, 70]
        var pairs = [NACKPair](repeating: NACKPair(packetID: 0), count: 2)
        let result = lost.withUnsafeBufferPointer { input in
            pairs.withUnsafeMutableBufferPointer { NACKPair.build(lost: input, into: $0) }
        }
        #expect(result == NACKPair.BuildResult(pairs: 2, consumed: 2))
        #expect(pairs.map(\.packetID) == [10, 30])
    }

    @Test func pictureLossIndicationBytes() throws {
        try withRaw(Self.pli) { view in
            let pli = try PictureLossIndication(parsing: view)
            #expect(pli == PictureLossIndication(senderSSRC: 1, mediaSSRC: 0x902F_9E2E))
            let written = try RTCPTestSupport.write(pli)
            #expect(written == Self.pli)
        }
    }

    @Test func fullIntraRequestBytes() throws {
        try withRaw(Self.fir) { view in
            let fir = try FullIntraRequest(parsing: view)
            #expect(fir.senderSSRC == 1)
            #expect(fir.mediaSSRC == 0)
            #expect(Array(fir.entries) == [FullIntraRequest.Entry(ssrc: 0x902F_9E2E, sequenceNumber: 7)])
            let written = try RTCPTestSupport.write(fir)
            #expect(written == Self.fir)
        }
        let entries = [FullIntraRequest.Entry(ssrc: 1, sequenceNumber: 255), FullIntraRequest.Entry(ssrc: 2, sequenceNumber: 0)]
        try entries.withUnsafeBufferPointer { list in
            let fir = FullIntraRequest(senderSSRC: 3, entries: RTCPList(list))
            let bytes = try RTCPTestSupport.write(fir)
            try withRaw(bytes) { view in
                let parsed = try FullIntraRequest(parsing: view)
                #expect(parsed == fir)
            }
        }
    }

    @Test func rembBytes() throws {
        try withRaw(Self.remb) { view in
            let remb = try ReceiverEstimatedMaxBitrate(parsing: view)
            #expect(remb.senderSSRC == 1)
            #expect(remb.exponent == 12)
            #expect(remb.mantissa == 0x3B9AC)
            #expect(remb.bitrate == 999_997_440)
            #expect(Array(remb.ssrcs) == [0x902F_9E2E])
            let written = try RTCPTestSupport.write(remb)
            #expect(written == Self.remb)
        }
        let ssrcs: [UInt32] = [0x902F_9E2E]
        try ssrcs.withUnsafeBufferPointer { list in
            let built = ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 1_000_000_000, ssrcs: RTCPList(list))
            let written = try RTCPTestSupport.write(built)
            #expect(written == Self.remb)
        }
    }

    /// Exponent/mantissa edges: the smallest exponent is chosen and the value rounds down.
    @Test(arguments: [
        (UInt64(0), UInt8(0), UInt32(0), UInt64(0)),
        (30_000, 0, 30_000, 30_000),                   // 30 kbps fits the mantissa exactly
        (262_143, 0, 262_143, 262_143),                // the largest exponent-0 value
        (262_144, 1, 131_072, 262_144),                // one more needs exponent 1
        (262_145, 1, 131_072, 262_144),                // and loses its low bit
        (1_000_000_000, 12, 244_140, 999_997_440),     // 1 Gbps
        (2_500_000, 4, 156_250, 2_500_000),
        (UInt64.max, 46, 262_143, 262_143 << 46),
    ])
    func rembExponentMantissa(bitrate: UInt64, exponent: UInt8, mantissa: UInt32, decoded: UInt64) throws {
        let encoded = ReceiverEstimatedMaxBitrate.encode(bitrate: bitrate)
        #expect(encoded.exponent == exponent)
        #expect(encoded.mantissa == mantissa)
        #expect(ReceiverEstimatedMaxBitrate.decode(exponent: exponent, mantissa: mantissa) == decoded)
        let remb = ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: bitrate, ssrcs: .empty)
        let bytes = try RTCPTestSupport.write(remb)
        try withRaw(bytes) { view in
            let parsed = try ReceiverEstimatedMaxBitrate(parsing: view)
            #expect(parsed == remb)
            #expect(parsed.bitrate == decoded)
        }
    }

    @Test func rembDecodeSaturates() {
        #expect(ReceiverEstimatedMaxBitrate.decode(exponent: 63, mantissa: 1) == 1 << 63)
        #expect(ReceiverEstimatedMaxBitrate.decode(exponent: 63, mantissa: 3) == .max)
        #expect(ReceiverEstimatedMaxBitrate.decode(exponent: 63, mantissa: 0) == 0)
    }

    @Test(arguments: [
        // 'REMX' instead of 'REMB'.
        ([0x8F, 0xCE, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 0, 0x52, 0x45, 0x4D, 0x58, 0x00, 0x00, 0x00, 0x01],
         RTCPError.malformed(.rembIdentifier)),
        // Num SSRC 2 with room for none.
        ([0x8F, 0xCE, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 0, 0x52, 0x45, 0x4D, 0x42, 0x02, 0x00, 0x00, 0x01],
         .truncated(needed: 28, available: 20)),
        // PLI format bits on a REMB parse.
        ([0x81, 0xCE, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 0], .unexpectedType(packetType: 206, format: 1)),
    ])
    func rembRejects(bytes: [UInt8], expected: RTCPError) {
        let error = withRaw(bytes) { view in
            RTCPTestSupport.error { _ = try ReceiverEstimatedMaxBitrate(parsing: view) }
        }
        #expect(error == expected)
    }

    @Test func feedbackWithoutSSRCsIsTruncated() {
        let bytes: [UInt8] = [0x81, 0xCE, 0x00, 0x01, 0, 0, 0, 1]
        let error = withRaw(bytes) { view in RTCPTestSupport.error { _ = try PictureLossIndication(parsing: view) } }
        #expect(error == .truncated(needed: 12, available: 8))
    }
}
