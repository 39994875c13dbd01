import Testing
@testable import OTMedia

@Suite struct RTCPReportTests {
    /// An SR with one report block, annotated word by word (RFC 3550 6.4.1).
    static let senderReport: [UInt8] = [
        0x81, 0xC8, 0x00, 0x0C, // v=2, p=0, RC=1, PT=SR(200), length=12 (52 bytes)
        0x90, 0x2F, 0x9E, 0x2E, // SSRC of sender
        0xDA, 0x8B, 0xD1, 0xFC, // NTP timestamp, most significant word
        0xDD, 0xDD, 0xA0, 0x5A, // NTP timestamp, least significant word
        0xAA, 0xF4, 0xED, 0xD5, // RTP timestamp
        0x00, 0x00, 0x00, 0x01, // sender's packet count = 1
        0x00, 0x00, 0x00, 0x02, // sender's octet count = 2
        0xBC, 0x5E, 0x9A, 0x40, // block 1: SSRC
        0x00, 0x00, 0x00, 0x00, // fraction lost 0, cumulative lost 0
        0x00, 0x00, 0x46, 0xE1, // extended highest sequence number 0x46E1
        0x00, 0x00, 0x01, 0x11, // jitter 273
        0x09, 0xF3, 0x64, 0x32, // LSR
        0x00, 0x02, 0x4A, 0x79, // DLSR
    ]

    /// An RR with one block whose cumulative lost is negative (duplicates).
    static let receiverReport: [UInt8] = [
        0x81, 0xC9, 0x00, 0x07, // v=2, p=0, RC=1, PT=RR(201), length=7 (32 bytes)
        0x90, 0x2F, 0x9E, 0x2E, // SSRC of packet sender
        0xBC, 0x5E, 0x9A, 0x40, // block 1: SSRC
        0x20, 0xFF, 0xFF, 0xFE, // fraction lost 32/256, cumulative lost -2 (24-bit two's complement)
        0x00, 0x01, 0x46, 0xE1, // cycles 1, highest sequence 0x46E1
        0x00, 0x00, 0x01, 0x11, // jitter 273
        0x09, 0xF3, 0x64, 0x32, // LSR
        0x00, 0x02, 0x4A, 0x79, // DLSR
    ]

    @Test func senderReportFields() throws {
        try withRaw(Self.senderReport) { bytes in
            let sr = try SenderReport(parsing: bytes)
            #expect(sr.ssrc == 0x902F_9E2E)
            #expect(sr.ntpTimestamp == NTPTimestamp(seconds: 0xDA8B_D1FC, fraction: 0xDDDD_A05A))
            #expect(sr.rtpTimestamp == 0xAAF4_EDD5)
            #expect(sr.packetCount == 1)
            #expect(sr.octetCount == 2)
            #expect(sr.profileExtension.isEmpty)
            #expect(sr.reportBlocks.count == 1)
            #expect(sr.reportBlocks[0] == ReportBlock(ssrc: 0xBC5E_9A40, fractionLost: 0, cumulativeLost: 0,
                                                      extendedHighestSequence: 0x46E1, jitter: 273,
                                                      lastSenderReport: 0x09F3_6432, delaySinceLastSenderReport: 0x0002_4A79))
            let written = try RTCPTestSupport.write(sr)
            #expect(written == Self.senderReport)
        }
    }

    @Test func receiverReportFields() throws {
        try withRaw(Self.receiverReport) { bytes in
            let rr = try ReceiverReport(parsing: bytes)
            #expect(rr.ssrc == 0x902F_9E2E)
            let block = try #require(rr.reportBlocks.first)
            #expect(block.fractionLost == 32)
            #expect(block.cumulativeLost == -2)
            #expect(block.extendedHighestSequence == 0x0001_46E1)
            let written = try RTCPTestSupport.write(rr)
            #expect(written == Self.receiverReport)
        }
    }

    /// Cumulative lost is signed 24 bits: edge values survive, larger ones clamp (RFC 3550 6.4.1).
    @Test(arguments: [
        (Int32(0), Int32(0)), (1, 1), (-1, -1), (0x7F_FFFF, 0x7F_FFFF), (-0x80_0000, -0x80_0000),
        (0x100_0000, 0x7F_FFFF), (Int32.min, -0x80_0000),
    ] as [(Int32, Int32)])
    func cumulativeLostIsSigned24Bit(value: Int32, expected: Int32) throws {
        let block = ReportBlock(ssrc: 1, cumulativeLost: value)
        var bytes = [UInt8](repeating: 0, count: ReportBlock.wireSize)
        _ = try bytes.withUnsafeMutableBytes { try block.write(into: $0) }
        let parsed = try withRaw(bytes) { try ReportBlock(parsing: $0) }
        #expect(parsed.cumulativeLost == expected)
    }

    @Test func roundTripWithManyBlocksAndExtension() throws {
        var blocks: [ReportBlock] = []
        for index in 0 ..< 31 {
            let small = UInt32(index)
            blocks.append(ReportBlock(ssrc: small &* 0x0101_0101, fractionLost: UInt8(index), cumulativeLost: Int32(index) - 15,
                                      extendedHighestSequence: small << 16, jitter: small * 3,
                                      lastSenderReport: small * 5, delaySinceLastSenderReport: small * 7))
        }
        let ext: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        try blocks.withUnsafeBufferPointer { list in
            try ext.withUnsafeBytes { extBytes in
                let sr = SenderReport(ssrc: 7, ntpTimestamp: NTPTimestamp(rawValue: 0x0123_4567_89AB_CDEF), rtpTimestamp: 9,
                                      packetCount: 10, octetCount: 11, reportBlocks: RTCPList(list), profileExtension: extBytes)
                #expect(sr.size == 4 + 24 + 31 * 24 + 8)
                let bytes = try RTCPTestSupport.write(sr)
                #expect(bytes[0] == 0x80 | 31)
                try withRaw(bytes) { view in
                let parsed = try SenderReport(parsing: view)
                #expect(parsed == sr)
            }

                let rr = ReceiverReport(ssrc: 7, reportBlocks: RTCPList(list), profileExtension: extBytes)
                let rrBytes = try RTCPTestSupport.write(rr)
                try withRaw(rrBytes) { view in
                let parsed = try ReceiverReport(parsing: view)
                #expect(parsed == rr)
            }
            }
        }
    }

    @Test func writeRejectsWhatTheFormatCannotCarry() throws {
        let blocks = [ReportBlock](repeating: ReportBlock(ssrc: 1), count: 32)
        blocks.withUnsafeBufferPointer { list in
            let sr = SenderReport(ssrc: 1, ntpTimestamp: NTPTimestamp(rawValue: 0), rtpTimestamp: 0, packetCount: 0,
                                  octetCount: 0, reportBlocks: RTCPList(list))
            var buffer = [UInt8](repeating: 0, count: 2000)
            let error = buffer.withUnsafeMutableBytes { out in RTCPTestSupport.error { _ = try sr.write(into: out) } }
            #expect(error == .tooManyItems(count: 32, limit: 31))
        }
        let odd: [UInt8] = [1, 2, 3]
        odd.withUnsafeBytes { ext in
            let rr = ReceiverReport(ssrc: 1, profileExtension: ext)
            var buffer = [UInt8](repeating: 0, count: 64)
            let error = buffer.withUnsafeMutableBytes { out in RTCPTestSupport.error { _ = try rr.write(into: out) } }
            #expect(error == .malformed(.extensionNotWordAligned))
        }
    }

    /// Header-level failures, each with its own error.
    @Test(arguments: [
        ([0x41, 0xC8, 0x00, 0x0C] + [UInt8](repeating: 0, count: 48), RTCPError.unsupportedVersion(1)),
        ([0x81, 0xC8, 0x00, 0x0D] + [UInt8](repeating: 0, count: 48), .invalidLength(declaredBytes: 56, availableBytes: 52)),
        ([0x81, 0xC9, 0x00, 0x0C] + [UInt8](repeating: 0, count: 48), .unexpectedType(packetType: 201, format: 1)),
        ([0x82, 0xC8, 0x00, 0x0C] + [UInt8](repeating: 0, count: 48), .truncated(needed: 76, available: 52)),
        ([0xA0, 0xC8, 0x00, 0x06] + [UInt8](repeating: 0, count: 24), .invalidPadding),
        ([0x81, 0xC8], .truncated(needed: 4, available: 2)),
    ])
    func senderReportRejects(bytes: [UInt8], expected: RTCPError) {
        let error = withRaw(bytes) { view in RTCPTestSupport.error { _ = try SenderReport(parsing: view) } }
        #expect(error == expected)
    }
}
