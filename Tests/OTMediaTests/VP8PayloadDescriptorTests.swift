import Testing
import OTMedia

/// The VP8 payload descriptor (RFC 7741 section 4.2): every optional field, 7- and
/// 15-bit PictureIDs, truncations and write-side range checks.
@Suite struct VP8PayloadDescriptorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let descriptor: VP8PayloadDescriptor
        /// True when writing `descriptor` gives `bytes` back (false for inputs with
        /// reserved bits or empty extension bytes, which are not canonical).
        let canonical: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "S only", bytes: [0x10],                       // X=0 N=0 S=1 PID=0
             descriptor: VP8PayloadDescriptor(startOfPartition: true), canonical: true),
        Case(name: "N and PID 5", bytes: [0x25],                  // N=1 S=0 PID=5
             descriptor: VP8PayloadDescriptor(nonReference: true, partitionIndex: 5), canonical: true),
        Case(name: "7-bit PictureID", bytes: [0x90, 0x80, 0x11],  // X S | I | M=0 PictureID 17
             descriptor: VP8PayloadDescriptor(startOfPartition: true, pictureID: 17, longPictureID: false), canonical: true),
        Case(name: "reserved bits ignored", bytes: [0xD0, 0x8F, 0x11],  // R set in byte 0, RSV in byte 1
             descriptor: VP8PayloadDescriptor(startOfPartition: true, pictureID: 17, longPictureID: false), canonical: false),
        Case(name: "15-bit PictureID", bytes: [0x90, 0x80, 0x81, 0x23],  // M=1 PictureID 0x0123
             descriptor: VP8PayloadDescriptor(startOfPartition: true, pictureID: 0x0123), canonical: true),
        Case(name: "15-bit PictureID 32767", bytes: [0x80, 0x80, 0xFF, 0xFF],
             descriptor: VP8PayloadDescriptor(pictureID: 32767), canonical: true),
        Case(name: "TL0PICIDX only", bytes: [0x90, 0x40, 0x07],   // L | TL0PICIDX 7
             descriptor: VP8PayloadDescriptor(startOfPartition: true, tl0PicIdx: 7), canonical: true),
        Case(name: "TID only", bytes: [0x80, 0x20, 0x40],         // T | TID=1 Y=0
             descriptor: VP8PayloadDescriptor(temporalLayer: 1), canonical: true),
        Case(name: "KEYIDX only", bytes: [0x80, 0x10, 0xFF],      // K | TID bits ignored without T, KEYIDX 31
             descriptor: VP8PayloadDescriptor(keyIndex: 31), canonical: false),
        Case(name: "KEYIDX only, canonical", bytes: [0x80, 0x10, 0x1F],
             descriptor: VP8PayloadDescriptor(keyIndex: 31), canonical: true),
        Case(name: "X with nothing", bytes: [0x90, 0x00],
             descriptor: VP8PayloadDescriptor(startOfPartition: true), canonical: false),
        Case(name: "every field", bytes: [0xA3, 0xF0, 0x92, 0x34, 0x56, 0xB1],
             // X N PID=3 | I L T K | M=1 PictureID 0x1234 | TL0PICIDX 0x56 | TID=2 Y=1 KEYIDX=17
             descriptor: VP8PayloadDescriptor(nonReference: true, partitionIndex: 3, pictureID: 0x1234, tl0PicIdx: 0x56,
                                              temporalLayer: 2, layerSync: true, keyIndex: 17), canonical: true),
        Case(name: "7-bit PictureID with T and K", bytes: [0x90, 0xB0, 0x05, 0xE3],  // I T K | 5 | TID=3 Y=1 KEYIDX=3
             descriptor: VP8PayloadDescriptor(startOfPartition: true, pictureID: 5, longPictureID: false,
                                              temporalLayer: 3, layerSync: true, keyIndex: 3), canonical: true),
        Case(name: "WebRTC-style full header", bytes: [0x90, 0xE0, 0xAB, 0xCD, 0x2A, 0x20],  // I L T | 0x2BCD | 42 | TID 0 Y 1
             descriptor: VP8PayloadDescriptor(startOfPartition: true, pictureID: 0x2BCD, tl0PicIdx: 42,
                                              temporalLayer: 0, layerSync: true), canonical: true),
    ]

    @Test(arguments: cases)
    func parses(_ c: Case) throws {
        let (descriptor, length) = try withRaw(c.bytes + [0x9D]) { raw in try VP8PayloadDescriptor.parse(raw) }
        #expect(descriptor == c.descriptor)
        #expect(length == c.bytes.count, "the VP8 data starts right after the descriptor")
        if c.canonical {
            var out = [UInt8](repeating: 0xEE, count: 8)
            let written = try out.withUnsafeMutableBytes { raw throws(RTPError) in try descriptor.write(into: raw) }
            #expect(written == descriptor.size)
            #expect(Array(out[0..<written]) == c.bytes)
        }
    }

    @Test(arguments: [
        ([], 1),
        ([0x80], 2),                 // X without the I/L/T/K byte
        ([0x90, 0x80], 3),           // I without PictureID
        ([0x90, 0x80, 0x81], 4),     // M without the second PictureID byte
        ([0x90, 0x40], 3),           // L without TL0PICIDX
        ([0x90, 0x20], 3),           // T without TID/Y/KEYIDX
        ([0x90, 0x10], 3),           // K without TID/Y/KEYIDX
        ([0x90, 0xF0, 0x80, 0x01, 0x02], 6),  // everything but the T/K byte
    ] as [([UInt8], Int)])
    func rejectsTruncated(bytes: [UInt8], needed: Int) {
        let result = withRaw(bytes) { raw in Result { () throws(RTPError) in try VP8PayloadDescriptor.parse(raw) } }
        guard case let .failure(.truncated(_, n, available)) = result else {
            Issue.record("expected truncated, got \(result)")
            return
        }
        #expect(n == needed && available == bytes.count)
    }

    @Test(arguments: [
        (VP8PayloadDescriptor(partitionIndex: 8), RTPError.fieldOutOfRange(what: "VP8 partition index", value: 8)),
        (VP8PayloadDescriptor(pictureID: 0x8000), .fieldOutOfRange(what: "VP8 PictureID", value: 0x8000)),
        (VP8PayloadDescriptor(pictureID: 128, longPictureID: false), .fieldOutOfRange(what: "VP8 PictureID", value: 128)),
        (VP8PayloadDescriptor(temporalLayer: 4), .fieldOutOfRange(what: "VP8 TID", value: 4)),
        (VP8PayloadDescriptor(keyIndex: 32), .fieldOutOfRange(what: "VP8 KEYIDX", value: 32)),
    ])
    func writeRejectsOutOfRange(descriptor: VP8PayloadDescriptor, error: RTPError) {
        var out = [UInt8](repeating: 0, count: 8)
        #expect(throws: error) { _ = try out.withUnsafeMutableBytes { raw throws(RTPError) in try descriptor.write(into: raw) } }
    }

    @Test func writeRejectsSmallBuffer() {
        let descriptor = VP8PayloadDescriptor(startOfPartition: true, pictureID: 300, tl0PicIdx: 1, temporalLayer: 0)
        #expect(descriptor.size == 6)   // byte 0, I/L/T/K, two PictureID bytes, TL0PICIDX, TID
        var out = [UInt8](repeating: 0, count: 5)
        #expect(throws: RTPError.bufferTooSmall(needed: 6, available: 5)) {
            _ = try out.withUnsafeMutableBytes { raw throws(RTPError) in try descriptor.write(into: raw) }
        }
    }

    /// RFC 6386 section 9.1: the frame tag and keyframe header.
    @Test func frameHeader() throws {
        // Keyframe: tag (P=0, VER=0, H=1, first partition 0x1234 = size0 4 | size1 0x46 | size2 0)
        // then 9d 01 2a, width 640 (0x0280), height 480 (0x01E0) with scale 1 on height.
        let key: [UInt8] = [0x90, 0x46, 0x02, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x41]
        let header = try withRaw(key) { try VP8FrameHeader(parsing: $0) }
        #expect(header.isKeyframe && header.showFrame && header.version == 0)
        #expect(header.firstPartitionSize == 4 | 0x46 << 3 | 0x02 << 11)
        #expect(header.width == 640 && header.height == 480 && header.horizontalScale == 0 && header.verticalScale == 1)
        let inter = try withRaw([0x31, 0x00, 0x00]) { try VP8FrameHeader(parsing: $0) }
        #expect(!inter.isKeyframe && inter.width == 0)
        #expect(throws: RTPError.self) { try withRaw([0x90, 0x46, 0x02, 0x9D, 0x01, 0x2B, 0, 0, 0, 0]) { try VP8FrameHeader(parsing: $0) } }
        #expect(throws: RTPError.self) { try withRaw(Array(key[0..<9])) { try VP8FrameHeader(parsing: $0) } }
        #expect(throws: RTPError.self) { try withRaw([0x31, 0x00]) { try VP8FrameHeader(parsing: $0) } }
    }
}
