import Testing
@testable import OTMedia

@Suite struct RTCPDescriptionTests {
    /// One chunk with a 16-byte CNAME, as OTKit writes it (RFC 3550 6.5, 6.5.1).
    static let cnameSDES: [UInt8] = [
        0x81, 0xCA, 0x00, 0x06, // v=2, p=0, SC=1, PT=SDES(202), length=6 (28 bytes)
        0x12, 0x34, 0x56, 0x78, // chunk 1: SSRC
        0x01, 0x10,             // item CNAME(1), length 16
    ] + Array("otkit-user@host1".utf8) + [
        0x00, 0x00,             // END item, then zero padding to the 32-bit boundary
    ]

    /// Two chunks with CNAME, NAME and TOOL items.
    static let twoChunks: [UInt8] = [
        0x82, 0xCA, 0x00, 0x06, // v=2, p=0, SC=2, PT=SDES, length=6 (28 bytes)
        0x11, 0x11, 0x11, 0x11, // chunk 1: SSRC
        0x01, 0x03, 0x61, 0x62, // CNAME(1) len 3 "ab…
        0x63, 0x02, 0x02, 0x41, // …c", NAME(2) len 2 "A…
        0x6C, 0x00, 0x00, 0x00, // …l", END, padding
        0x22, 0x22, 0x22, 0x22, // chunk 2: SSRC
        0x06, 0x01, 0x78, 0x00, // TOOL(6) len 1 "x", END
    ]

    static let goodbye: [UInt8] = [
        0x82, 0xCB, 0x00, 0x04, // v=2, p=0, SC=2, PT=BYE(203), length=4 (20 bytes)
        0x90, 0x2F, 0x9E, 0x2E, // SSRC 1
        0xBC, 0x5E, 0x9A, 0x40, // SSRC 2
        0x05, 0x68, 0x61, 0x6E, // reason length 5, "han…
        0x67, 0x73, 0x00, 0x00, // …gs", zero padding
    ]

    @Test func cnameChunkWritesTheAnnotatedBytes() throws {
        let cname = Array("otkit-user@host1".utf8)
        try cname.withUnsafeBytes { name in
            let sdes = SourceDescription(ssrc: 0x1234_5678, cname: name)
            let bytes = try RTCPTestSupport.write(sdes)
            #expect(bytes == Self.cnameSDES)
            try withRaw(bytes) { view in
                let parsed = try SourceDescription(parsing: view)
                #expect(parsed == sdes)
                #expect(parsed.chunks.count == 1)
                let first = try #require(parsed.firstCNAME)
                #expect(Array(first) == cname)
            }
        }
    }

    /// The CNAME chunk pads with 1 to 4 zero bytes whatever the name's length.
    @Test(arguments: [0, 1, 2, 3, 4, 5, 254, 255])
    func cnameLengthsRoundTrip(length: Int) throws {
        let cname = [UInt8](repeating: 0x61, count: length)
        try cname.withUnsafeBytes { name in
            let sdes = SourceDescription(ssrc: 9, cname: name)
            #expect(sdes.size % 4 == 0)
            let bytes = try RTCPTestSupport.write(sdes)
            #expect(bytes[4 + 6 + length] == 0)  // the END item
            try withRaw(bytes) { view in
                let parsed = try SourceDescription(parsing: view)
                #expect(parsed == sdes)
            }
        }
    }

    @Test func cnameLongerThan255IsRefused() {
        let cname = [UInt8](repeating: 0x61, count: 256)
        cname.withUnsafeBytes { name in
            let sdes = SourceDescription(ssrc: 9, cname: name)
            var out = [UInt8](repeating: 0, count: 512)
            let error = out.withUnsafeMutableBytes { buffer in RTCPTestSupport.error { _ = try sdes.write(into: buffer) } }
            #expect(error == .malformed(.cnameTooLong))
        }
    }

    @Test func everyItemOfEveryChunkIsRead() throws {
        try withRaw(Self.twoChunks) { view in
            let sdes = try SourceDescription(parsing: view)
            let chunks = Array(sdes.chunks)
            #expect(chunks.count == 2)
            #expect(chunks[0].ssrc == 0x1111_1111)
            #expect(chunks[0].map(\.type) == [.cname, .name])
            #expect(chunks[0].map { Array($0.value) } == [Array("abc".utf8), Array("Al".utf8)])
            #expect(chunks[1].ssrc == 0x2222_2222)
            #expect(chunks[1].map(\.type) == [.tool])
            #expect(chunks[1].cname == nil)
            let written = try RTCPTestSupport.write(sdes)
            #expect(written == Self.twoChunks)
        }
    }

    @Test(arguments: [
        // An item length running past the packet.
        ([0x81, 0xCA, 0x00, 0x02, 0, 0, 0, 1, 0x01, 0x09, 0x61, 0x62], RTCPError.malformed(.sdesItemOverrun)),
        // No END octet before the packet ends.
        ([0x81, 0xCA, 0x00, 0x02, 0, 0, 0, 1, 0x01, 0x02, 0x61, 0x62], .malformed(.sdesItemOverrun)),
        // A chunk with no room for its SSRC.
        ([0x82, 0xCA, 0x00, 0x02, 0, 0, 0, 1, 0x00, 0x00, 0x00, 0x00], .truncated(needed: 12, available: 8)),
        // A whole word after the last chunk.
        ([0x81, 0xCA, 0x00, 0x03, 0, 0, 0, 1, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0], .malformed(.sdesTrailingBytes)),
    ])
    func malformedDescriptionsAreRefused(bytes: [UInt8], expected: RTCPError) {
        let error = withRaw(bytes) { view in RTCPTestSupport.error { _ = try SourceDescription(parsing: view) } }
        #expect(error == expected)
    }

    @Test func goodbyeWithReason() throws {
        try withRaw(Self.goodbye) { view in
            let bye = try Goodbye(parsing: view)
            #expect(Array(bye.sources) == [0x902F_9E2E, 0xBC5E_9A40])
            #expect(Array(bye.reason) == Array("hangs".utf8))
            let written = try RTCPTestSupport.write(bye)
            #expect(written == Self.goodbye)
        }
    }

    @Test func goodbyeWithoutReasonAndBuiltFromCallerData() throws {
        let ssrcs: [UInt32] = [1, 2, 3]
        try ssrcs.withUnsafeBufferPointer { list in
            let bye = Goodbye(sources: RTCPList(list))
            let bytes = try RTCPTestSupport.write(bye)
            #expect(bytes == [0x83, 0xCB, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3])
            try withRaw(bytes) { view in
                let parsed = try Goodbye(parsing: view)
                #expect(parsed == bye)
                #expect(parsed.reason.isEmpty)
            }
        }
    }

    @Test func goodbyeReasonOverrunIsRefused() {
        let bytes: [UInt8] = [0x81, 0xCB, 0x00, 0x02, 0, 0, 0, 1, 0x08, 0x61, 0x62, 0x63]
        let error = withRaw(bytes) { view in RTCPTestSupport.error { _ = try Goodbye(parsing: view) } }
        #expect(error == .malformed(.goodbyeReasonOverrun))
    }
}
