import Testing
@testable import OTMedia

/// The SFrame header (RFC 9605 §4.3): Appendix C.1 byte for byte, and strict, trap-free
/// parsing of anything else.
struct SFrameHeaderTests {
    /// All 289 (KID, CTR) pairs of Appendix C.1 encode to the RFC's bytes and parse back.
    @Test func rfc9605HeaderVectorsEncodeAndParse() throws {
        #expect(rfc9605HeaderVectors.count == 289)
        for vector in rfc9605HeaderVectors {
            let expected = SFrameTest.bytes(vector.encoded)
            let header = SFrameHeader(keyID: vector.kid, counter: vector.ctr)
            #expect(header.encodedLength == expected.count, "KID \(vector.kid) CTR \(vector.ctr)")
            var written = [UInt8](repeating: 0xAA, count: SFrameHeader.maxLength)
            let length = try written.withUnsafeMutableBytes { try header.write(to: $0) }
            #expect(Array(written.prefix(length)) == expected, "KID \(vector.kid) CTR \(vector.ctr)")
            // Followed by payload bytes, which the parse must not consume.
            let parsed = try (expected + [1, 2, 3]).withUnsafeBytes { try SFrameHeader.parse($0) }
            #expect(parsed.header == header)
            #expect(parsed.length == expected.count)
        }
    }

    /// Every proper prefix of every vector's header is refused as truncated, never read past.
    @Test func everyTruncatedHeaderIsRefused() {
        for vector in rfc9605HeaderVectors {
            let encoded = SFrameTest.bytes(vector.encoded)
            for cut in 0..<encoded.count {
                let error = SFrameTest.error { () throws in
                    try Array(encoded.prefix(cut)).withUnsafeBytes { b throws in try SFrameHeader.parse(b) }
                }
                #expect(error == .truncatedHeader(length: cut, needed: cut == 0 ? 1 : encoded.count), "\(vector.encoded) cut at \(cut)")
                #expect(error?.openTokCode == 6003)
            }
        }
    }

    /// Values sent in longer forms than RFC 9605 allows are refused: a KID or CTR of 0–7
    /// in an extra byte, and a leading zero byte.
    @Test(arguments: [
        [0x80, 0x05],             // X=1, 1-byte KID of 5 (must be inline)
        [0x08, 0x07],             // Y=1, 1-byte CTR of 7
        [0x90, 0x00, 0x10],       // 2-byte KID 0x0010 (one byte suffices)
        [0x09, 0x00, 0xFF],       // 2-byte CTR 0x00FF
        [0xF8, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x10], // 8-byte KID 8, then CTR 0x10
    ] as [[UInt8]])
    func nonMinimalFormsAreRefused(header: [UInt8]) {
        let error = SFrameTest.error { () throws in try header.withUnsafeBytes { b throws in try SFrameHeader.parse(b) } }
        #expect(error == .nonMinimalHeader)
        #expect(error?.openTokCode == 6003)
    }

    /// Every config byte, followed by every tail length 0–17 of arbitrary bytes: the parse
    /// throws or returns a header that writes back to exactly the bytes it read.
    @Test func everyConfigByteParsesOrThrowsAndRoundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        var parsedCount = 0
        for config in 0...255 {
            for tail in 0...17 {
                let bytes = [UInt8(config)] + (0..<tail).map { _ in UInt8.random(in: 0...255, using: &generator) }
                guard let parsed = try? bytes.withUnsafeBytes({ try SFrameHeader.parse($0) }) else { continue }
                parsedCount += 1
                var again = [UInt8](repeating: 0, count: SFrameHeader.maxLength)
                let length = try again.withUnsafeMutableBytes { try parsed.header.write(to: $0) }
                #expect(length == parsed.length)
                #expect(Array(again.prefix(length)) == Array(bytes.prefix(parsed.length)), "config \(config)")
            }
        }
        // The 16 configs with X = Y = 0 parse at every tail length; some others do too.
        #expect(parsedCount >= 16 * 18)
    }

    /// Writing into a buffer shorter than the header throws and writes nothing.
    @Test func writeChecksTheBuffer() {
        let header = SFrameHeader(keyID: 0x1234, counter: 0x56_789A)
        #expect(header.encodedLength == 6)
        var buffer = [UInt8](repeating: 0xEE, count: 5)
        let error = SFrameTest.error { () throws in try buffer.withUnsafeMutableBytes { b throws in try header.write(to: b) } }
        #expect(error == .bufferTooSmall(side: .sender, needed: 6, available: 5))
        #expect(buffer == [UInt8](repeating: 0xEE, count: 5))
    }
}
