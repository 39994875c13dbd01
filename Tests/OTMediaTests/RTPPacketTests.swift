import Testing
import OTMedia

/// RTP packets (RFC 3550 section 5.1) with CSRCs, RFC 8285 extensions and padding:
/// annotated bytes parse to the right fields and write back byte for byte.
@Suite struct RTPPacketTests {
    /// A minimal packet.
    static let basic: [UInt8] = [
        0x80, 0x60, 0x12, 0x34,  // V=2 P=0 X=0 CC=0 | M=0 PT=96 | seq 0x1234
        0x00, 0x01, 0x02, 0x03,  // timestamp 0x00010203
        0xDE, 0xAD, 0xBE, 0xEF,  // SSRC
        0xAA, 0xBB,              // payload
    ]

    /// Two CSRCs, marker set, sequence number and timestamp at their maximum.
    static let withCSRCs: [UInt8] = [
        0x82, 0xEF, 0xFF, 0xFF,  // V=2 CC=2 | M=1 PT=111 | seq 65535
        0xFF, 0xFF, 0xFF, 0xFF,  // timestamp 2^32-1
        0x01, 0x02, 0x03, 0x04,  // SSRC
        0x11, 0x11, 0x11, 0x11,  // CSRC 1
        0x22, 0x22, 0x22, 0x22,  // CSRC 2
        0x01,                    // payload
    ]

    /// RFC 8285 section 4.2's one-byte example layout: id 1 (L=0, 1 byte), id 2 (L=1,
    /// 2 bytes), two padding bytes, id 3 (L=3, 4 bytes); length = 3 words.
    static let oneByteExtension: [UInt8] = [
        0x90, 0x60, 0x00, 0x01,  // V=2 X=1 | PT=96 | seq 1
        0x00, 0x00, 0x00, 0x10,  // timestamp 16
        0x00, 0x00, 0x00, 0x01,  // SSRC 1
        0xBE, 0xDE, 0x00, 0x03,  // profile 0xBEDE, length 3 words
        0x10, 0xAA,              // id 1, L=0: AA
        0x21, 0xBB, 0xCC,        // id 2, L=1: BB CC
        0x00, 0x00,              // padding
        0x33, 0x01, 0x02, 0x03, 0x04,  // id 3, L=3: 01 02 03 04
        0x55,                    // payload
    ]

    /// RFC 8285 section 4.3's two-byte example layout with appbits 5: id 7 (0 bytes),
    /// id 8 (1 byte), one padding byte, id 9 (4 bytes); length = 3 words.
    static let twoByteExtension: [UInt8] = [
        0x90, 0x60, 0x00, 0x02,  // V=2 X=1 | PT=96 | seq 2
        0x00, 0x00, 0x00, 0x20,  // timestamp 32
        0x00, 0x00, 0x00, 0x02,  // SSRC 2
        0x10, 0x05, 0x00, 0x03,  // profile 0x1005 (appbits 5), length 3 words
        0x07, 0x00,              // id 7, length 0
        0x08, 0x01, 0xAA,        // id 8, length 1: AA
        0x00,                    // padding
        0x09, 0x04, 0x01, 0x02, 0x03, 0x04,  // id 9, length 4
        0x66, 0x77,              // payload
    ]

    /// Padding: P=1, two payload bytes, then three bytes of padding ending in the count.
    static let withPadding: [UInt8] = [
        0xA0, 0x60, 0x00, 0x03,  // V=2 P=1 | PT=96 | seq 3
        0x00, 0x00, 0x00, 0x30,
        0x00, 0x00, 0x00, 0x03,
        0xAB, 0xCD,              // payload
        0x00, 0x00, 0x03,        // padding, count 3
    ]

    /// Everything at once: a CSRC, a one-byte extension, padding.
    static let everything: [UInt8] = [
        0xB1, 0x80 | 100, 0x80, 0x00,  // V=2 P=1 X=1 CC=1 | M=1 PT=100 | seq 0x8000
        0x12, 0x34, 0x56, 0x78,
        0x9A, 0xBC, 0xDE, 0xF0,
        0x0C, 0x0C, 0x0C, 0x0C,        // CSRC
        0xBE, 0xDE, 0x00, 0x01,        // one word
        0x51, 0x01, 0x02, 0x00,        // id 5, L=1: 01 02, one pad byte
        0xFE,                          // payload
        0x00, 0x02,                    // padding, count 2
    ]

    static let validPackets: [[UInt8]] = [basic, withCSRCs, oneByteExtension, twoByteExtension, withPadding, everything]

    @Test func basicFields() throws {
        try withRaw(Self.basic) { raw in
            let p = try RTPPacket(parsing: raw)
            #expect(p.version == 2 && !p.hasPadding && !p.hasExtension && p.csrcCount == 0)
            #expect(!p.marker && p.payloadType == 96 && p.sequenceNumber == 0x1234)
            #expect(p.timestamp == 0x0001_0203 && p.ssrc == 0xDEAD_BEEF)
            #expect(p.headerLength == 12 && Array(p.payload) == [0xAA, 0xBB] && p.paddingLength == 0)
            #expect(p.extensions == nil && p.extensionProfile == nil)
            // The payload is a view into the input, not a copy.
            #expect(p.payload.baseAddress == raw.baseAddress! + 12)
        }
    }

    @Test func csrcs() throws {
        try withRaw(Self.withCSRCs) { raw in
            let p = try RTPPacket(parsing: raw)
            #expect(p.csrcCount == 2 && p.csrc(at: 0) == 0x1111_1111 && p.csrc(at: 1) == 0x2222_2222)
            #expect(p.marker && p.payloadType == 111 && p.sequenceNumber == 65535 && p.timestamp == .max)
            #expect(p.headerLength == 20 && Array(p.payload) == [0x01])
            let header = try RTPHeader(p)
            #expect(Array(header.csrcs) == [0x1111_1111, 0x2222_2222])
        }
    }

    @Test func oneByteExtensionElements() throws {
        try withRaw(Self.oneByteExtension) { raw in
            let p = try RTPPacket(parsing: raw)
            #expect(p.extensionProfile == .oneByte)
            let elements = try #require(p.extensions)
            let list = elements.map { ($0.id, Array($0.data)) }
            #expect(list.map(\.0) == [1, 2, 3])
            #expect(list.map(\.1) == [[0xAA], [0xBB, 0xCC], [0x01, 0x02, 0x03, 0x04]])
            #expect(p.extensionElement(id: 2).map(Array.init) == [0xBB, 0xCC])
            #expect(p.extensionElement(id: 4) == nil)
            #expect(p.headerLength == 28 && Array(p.payload) == [0x55])
        }
    }

    @Test func twoByteExtensionElements() throws {
        try withRaw(Self.twoByteExtension) { raw in
            let p = try RTPPacket(parsing: raw)
            #expect(p.extensionProfile == .twoByte(appBits: 5))
            let elements = try #require(p.extensions)
            #expect(elements.map(\.id) == [7, 8, 9])
            #expect(elements.map { Array($0.data) } == [[], [0xAA], [1, 2, 3, 4]])
            #expect(Array(p.payload) == [0x66, 0x77])
        }
    }

    /// RFC 8285 section 4.2: an element with id 15 ends the block; what follows is ignored.
    @Test func oneByteID15StopsProcessing() throws {
        let bytes: [UInt8] = [0x90, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                              0xBE, 0xDE, 0x00, 0x01,
                              0x10, 0x42, 0xF0, 0x22]  // id 1 = 42, then id 15 (stop), junk
        try withRaw(bytes) { raw in
            let p = try RTPPacket(parsing: raw)
            #expect(p.extensions?.map(\.id) == [1])
            #expect(p.payload.count == 0)
        }
    }

    @Test func paddingIsExcludedFromPayload() throws {
        try withRaw(Self.withPadding) { raw in
            let p = try RTPPacket(parsing: raw)
            #expect(p.hasPadding && p.paddingLength == 3 && Array(p.payload) == [0xAB, 0xCD])
        }
    }

    /// Parsing then writing the copied header (plus payload and padding) gives the same bytes.
    @Test(arguments: validPackets)
    func parseWriteRoundTrip(bytes: [UInt8]) throws {
        let out = try withRaw(bytes) { raw -> [UInt8] in
            let p = try RTPPacket(parsing: raw)
            let header = try RTPHeader(p)
            #expect(header.size == p.headerLength)
            return try writeRTP(header, payload: Array(p.payload), padding: p.paddingLength)
        }
        #expect(out == bytes)
    }

    /// Building a header with the extension builder gives exactly the annotated bytes.
    @Test func builderWritesOneByteElements() throws {
        var header = RTPHeader(payloadType: 96, sequenceNumber: 7, timestamp: 90_000, ssrc: 0xCAFE_F00D, marker: true)
        try header.csrcs.append(0x0102_0304)
        var extensions = RTPHeaderExtensions(profile: .oneByte)
        try extensions.append(id: 3, bigEndian: 0x1234, length: 2)      // transport-wide seq
        try extensions.append(id: 2, bigEndian: 0xABCDEF, length: 3)    // abs-send-time
        header.extensions = extensions
        let bytes = try writeRTP(header, payload: [0x99])
        #expect(bytes == [
            0x91, 0xE0, 0x00, 0x07,    // V=2 X=1 CC=1 | M=1 PT=96 | seq 7
            0x00, 0x01, 0x5F, 0x90,    // timestamp 90000
            0xCA, 0xFE, 0xF0, 0x0D,    // SSRC
            0x01, 0x02, 0x03, 0x04,    // CSRC
            0xBE, 0xDE, 0x00, 0x02,    // one-byte profile, 2 words
            0x31, 0x12, 0x34,          // id 3, L=1
            0x22, 0xAB, 0xCD, 0xEF,    // id 2, L=2
            0x00,                      // padding to the word
            0x99,                      // payload
        ])
        #expect(header.size == 28)
        // And it parses back to the same header.
        #expect(try parseRTP(bytes).get() == header)
    }

    @Test func builderWritesTwoByteElements() throws {
        var header = RTPHeader(payloadType: 111, sequenceNumber: 1, timestamp: 2, ssrc: 3)
        var extensions = RTPHeaderExtensions(profile: .twoByte(appBits: 0))
        try extensions.append(id: 200, bigEndian: 0, length: 0)     // empty element (two-byte only)
        let long = [UInt8](repeating: 0x5A, count: 20)
        try long.withUnsafeBytes { try extensions.append(id: 17, data: $0) }
        header.extensions = extensions
        let bytes = try writeRTP(header)
        #expect(Array(bytes[12..<16]) == [0x10, 0x00, 0x00, 0x06])   // profile 0x1000, 6 words
        #expect(Array(bytes[16..<20]) == [200, 0, 17, 20])
        #expect(bytes.count == 12 + 4 + 24)
        try withRaw(bytes) { raw in
            let p = try RTPPacket(parsing: raw)
            #expect(p.extensionElement(id: 200)?.count == 0)
            #expect(p.extensionElement(id: 17).map(Array.init) == long)
        }
    }

    struct BuilderErrorCase: Sendable, CustomTestStringConvertible {
        let profile: RTPExtensionProfile
        let id: UInt8
        let length: Int
        let error: RTPError
        var testDescription: String { "\(profile) id \(id) length \(length)" }
    }

    @Test(arguments: [
        BuilderErrorCase(profile: .oneByte, id: 0, length: 1, error: .invalidExtensionID(0)),
        BuilderErrorCase(profile: .oneByte, id: 15, length: 1, error: .invalidExtensionID(15)),
        BuilderErrorCase(profile: .oneByte, id: 1, length: 0, error: .invalidExtensionLength(id: 1, length: 0)),
        BuilderErrorCase(profile: .oneByte, id: 1, length: 17, error: .invalidExtensionLength(id: 1, length: 17)),
        BuilderErrorCase(profile: .twoByte(appBits: 0), id: 0, length: 1, error: .invalidExtensionID(0)),
        BuilderErrorCase(profile: .twoByte(appBits: 0), id: 1, length: 256, error: .invalidExtensionLength(id: 1, length: 256)),
        BuilderErrorCase(profile: .other(0x1234), id: 1, length: 1, error: .notAnElementProfile(0x1234)),
    ])
    func builderRejects(_ c: BuilderErrorCase) {
        var extensions = RTPHeaderExtensions(profile: c.profile)
        let data = [UInt8](repeating: 1, count: c.length)
        let result = data.withUnsafeBytes { raw in Result { () throws(RTPError) in try extensions.append(id: c.id, data: raw) } }
        #expect(throws: c.error) { try result.get() }
        #expect(extensions.count == 0, "a rejected element leaves nothing behind")
    }

    @Test func builderStopsAtCapacityAndCSRCsStopAt15() throws {
        var extensions = RTPHeaderExtensions(profile: .oneByte)
        let chunk = [UInt8](repeating: 7, count: 16)
        var appended = 0
        var lastError: RTPError?
        for _ in 0..<100 {
            let result = chunk.withUnsafeBytes { raw in Result { () throws(RTPError) in try extensions.append(id: 1, data: raw) } }
            if case let .failure(error) = result { lastError = error; break }
            appended += 1
        }
        #expect(appended == RTPHeaderExtensions.capacity / 17)
        #expect(lastError == .extensionStorageFull(needed: (appended + 1) * 17, capacity: RTPHeaderExtensions.capacity))

        var csrcs = RTPCSRCList()
        for i in 0..<15 { try csrcs.append(UInt32(i)) }
        #expect(throws: RTPError.tooManyCSRCs(16)) { try csrcs.append(99) }
        var header = RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0)
        header.csrcs = csrcs
        let bytes = try writeRTP(header)
        #expect(bytes[0] == 0x8F && bytes.count == 12 + 60)
        #expect(Array(try parseRTP(bytes).get().csrcs) == Array(0..<15).map(UInt32.init))
    }

    @Test func writeRejectsSmallBufferAndBadPayloadType() throws {
        let header = RTPHeader(payloadType: 96, sequenceNumber: 0, timestamp: 0, ssrc: 0)
        var small = [UInt8](repeating: 0, count: 11)
        #expect(throws: RTPError.bufferTooSmall(needed: 12, available: 11)) {
            _ = try small.withUnsafeMutableBytes { raw throws(RTPError) in try header.write(into: raw) }
        }
        var bad = header
        bad.payloadType = 128
        var buffer = [UInt8](repeating: 0, count: 12)
        #expect(throws: RTPError.fieldOutOfRange(what: "payload type", value: 128)) {
            _ = try buffer.withUnsafeMutableBytes { raw throws(RTPError) in try bad.write(into: raw) }
        }
        #expect(throws: RTPError.fieldOutOfRange(what: "padding count", value: 256)) { _ = try writeRTP(header, padding: 256) }
    }

    struct MalformedCase: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let error: RTPError
        var testDescription: String { name }
    }

    static let fixed: [UInt8] = [0x00, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]
    static func with(first: UInt8, _ rest: [UInt8] = []) -> [UInt8] {
        var bytes = fixed
        bytes[0] = first
        return bytes + rest
    }

    static let malformed: [MalformedCase] = [
        MalformedCase(name: "empty", bytes: [], error: .truncated(what: "RTP fixed header", needed: 12, available: 0)),
        MalformedCase(name: "11 bytes", bytes: Array(basic[0..<11]), error: .truncated(what: "RTP fixed header", needed: 12, available: 11)),
        MalformedCase(name: "version 0", bytes: with(first: 0x00), error: .unsupportedVersion(0)),
        MalformedCase(name: "version 1", bytes: with(first: 0x40), error: .unsupportedVersion(1)),
        MalformedCase(name: "version 3", bytes: with(first: 0xC0), error: .unsupportedVersion(3)),
        MalformedCase(name: "CC=3 with one CSRC", bytes: with(first: 0x83, [1, 2, 3, 4]),
                      error: .csrcBeyondPacket(count: 3, available: 4)),
        MalformedCase(name: "CC=15 with nothing", bytes: with(first: 0x8F), error: .csrcBeyondPacket(count: 15, available: 0)),
        MalformedCase(name: "X without the extension word", bytes: with(first: 0x90, [0xBE, 0xDE]),
                      error: .truncated(what: "header extension word", needed: 4, available: 2)),
        MalformedCase(name: "extension length beyond packet", bytes: with(first: 0x90, [0xBE, 0xDE, 0x00, 0x02, 0x10, 0x01, 0x00, 0x00]),
                      error: .extensionBeyondPacket(declared: 8, available: 4)),
        MalformedCase(name: "one-byte element beyond block", bytes: with(first: 0x90, [0xBE, 0xDE, 0x00, 0x01, 0x13, 0x01, 0x02, 0x03]),
                      error: .extensionElementBeyondBlock(id: 1, length: 4, available: 3)),
        MalformedCase(name: "two-byte element beyond block", bytes: with(first: 0x90, [0x10, 0x00, 0x00, 0x01, 0x01, 0x05, 0x02, 0x03]),
                      error: .extensionElementBeyondBlock(id: 1, length: 5, available: 2)),
        MalformedCase(name: "two-byte element without length", bytes: with(first: 0x90, [0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04]),
                      error: .extensionElementBeyondBlock(id: 4, length: 1, available: 0)),
        MalformedCase(name: "P with nothing after the header", bytes: with(first: 0xA0),
                      error: .truncated(what: "padding count", needed: 1, available: 0)),
        MalformedCase(name: "padding count 0", bytes: with(first: 0xA0, [0xAA, 0x00]), error: .paddingCountZero),
        MalformedCase(name: "padding count beyond payload", bytes: with(first: 0xA0, [0xAA, 0xBB, 0x0A]),
                      error: .paddingBeyondPayload(count: 10, available: 3)),
        MalformedCase(name: "padding reaching into the extension", bytes: with(first: 0xB0, [0xBE, 0xDE, 0x00, 0x00, 0x05]),
                      error: .paddingBeyondPayload(count: 5, available: 1)),
    ]

    @Test(arguments: malformed)
    func rejectsMalformed(_ c: MalformedCase) {
        #expect(throws: c.error) { try parseRTP(c.bytes).get() }
        // Every error has a readable message.
        #expect(c.error.description.count > 10)
    }

    /// Every prefix of every valid packet parses or throws; none traps, and prefixes
    /// that cut into the header are rejected.
    @Test(arguments: validPackets)
    func everyTruncationIsSafe(bytes: [UInt8]) throws {
        let full = try withRaw(bytes) { try RTPPacket(parsing: $0).headerLength }
        for length in 0..<bytes.count {
            let prefix = Array(bytes[0..<length])
            let result = parseRTP(prefix)
            if length < full { #expect(throws: RTPError.self) { try result.get() } }
            prefix.withUnsafeBytes { RTPFuzzing.parseRTP($0) }
        }
    }
}
