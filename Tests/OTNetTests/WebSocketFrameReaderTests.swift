import Testing
@testable import OTNet

/// The server's RFC 6455 frame reader and writer on exact bytes: the §5.7 examples, the
/// handshake example of §1.3, and every violation a server must fail the connection for.
@Suite struct WebSocketFrameReaderTests {
    static let mask: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]

    /// A client frame: FIN/opcode byte, masked payload with the §5.7 mask.
    static func frame(_ first: UInt8, _ payload: [UInt8], masked: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [first]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            bytes.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift))) }
        }
        guard masked else { return bytes + payload }
        return bytes + mask + payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
    }

    static func events(_ bytes: [UInt8], limit: Int = 256 << 10) -> [WebSocketFrameReader.Event] {
        var reader = WebSocketFrameReader(maximumMessageBytes: limit)
        reader.append(bytes)
        var events: [WebSocketFrameReader.Event] = []
        while let event = reader.next() { events.append(event) }
        return events
    }

    static func failureCode(_ events: [WebSocketFrameReader.Event]) -> UInt16? {
        guard case .failure(let failure)? = events.last else { return nil }
        return failure.code
    }

    @Test func theHandshakeExampleOfSection1_3() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(WebSocketHandshake.isValidKey("dGhlIHNhbXBsZSBub25jZQ=="))
        #expect(!WebSocketHandshake.isValidKey("c2hvcnQ="))
        let headers = ["upgrade": "websocket", "connection": "keep-alive, Upgrade", "sec-websocket-version": "13",
                       "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "host": "x"]
        #expect(WebSocketHandshake.judge(method: "GET", version: "HTTP/1.1", headers: headers) == .upgrade(accept: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
        var old = headers
        old["sec-websocket-version"] = "8"
        #expect(WebSocketHandshake.judge(method: "GET", version: "HTTP/1.1", headers: old)
            == .refuse(status: 426, message: "unsupported WebSocket version", headers: ["Sec-WebSocket-Version": "13"]))
    }

    /// §5.7: "A single-frame masked text message" and the masked pong.
    @Test func theMaskedExamplesOfSection5_7() {
        #expect(Self.events([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]) == [.text("Hello")])
        #expect(Self.events([0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]) == [.pong(Array("Hello".utf8))])
    }

    /// §5.7's unmasked frames are what a server sends: the writer produces them byte for
    /// byte, and the reader refuses them from a client (§5.1) with 1002.
    @Test func theUnmaskedExamplesOfSection5_7() {
        var text: [UInt8] = []
        WebSocketFrameWriter.appendText("Hello", to: &text)
        #expect(text == [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
        var ping: [UInt8] = []
        WebSocketFrameWriter.appendControl(.ping, payload: Array("Hello".utf8), to: &ping)
        #expect(ping == [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
        var binary256: [UInt8] = []
        [UInt8](repeating: 7, count: 256).withUnsafeBytes { WebSocketFrameWriter.append(.binary, payload: $0, to: &binary256) }
        #expect(Array(binary256.prefix(4)) == [0x82, 0x7E, 0x01, 0x00] && binary256.count == 260)
        var binary64k: [UInt8] = []
        [UInt8](repeating: 7, count: 65536).withUnsafeBytes { WebSocketFrameWriter.append(.binary, payload: $0, to: &binary64k) }
        #expect(Array(binary64k.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] && binary64k.count == 65546)

        let unmasked = Self.events(text)
        #expect(unmasked == [.failure(.init(kind: .unmasked, code: 1002, reason: "unmasked client frame"))])
        #expect(Self.failureCode(Self.events([0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f])) == 1002)
    }

    /// §5.7's fragmented "Hel" + "lo", masked as a client must, with a ping between the
    /// fragments (§5.4: control frames may be injected), fed one byte at a time.
    @Test func fragmentsJoinAroundAPingWhateverTheReadSizes() {
        let bytes = Self.frame(0x01, Array("Hel".utf8)) + Self.frame(0x89, Array("p".utf8)) + Self.frame(0x80, Array("lo".utf8))
        var reader = WebSocketFrameReader(maximumMessageBytes: 1024)
        var events: [WebSocketFrameReader.Event] = []
        for byte in bytes {
            reader.append([byte])
            while let event = reader.next() { events.append(event) }
        }
        #expect(events == [.ping([0x70]), .text("Hello")])
        // 2,000 one-byte fragments in one read: no recursion, one message.
        var many = Self.frame(0x01, [0x61])
        for _ in 0..<1998 { many += Self.frame(0x00, [0x61]) }
        many += Self.frame(0x80, [0x61])
        #expect(Self.events(many) == [.text(String(repeating: "a", count: 2000))])
        // A binary message of 70,000 bytes (64-bit length) arrives whole.
        let big = (0..<70_000).map { UInt8(truncatingIfNeeded: $0) }
        #expect(Self.events(Self.frame(0x82, big)) == [.binary(big)])
    }

    @Test func protocolViolationsFailWith1002() {
        let cases: [(String, [UInt8])] = [
            ("RSV1 without an extension", Self.frame(0xC1, Array("x".utf8))),
            ("RSV3", Self.frame(0x91, Array("x".utf8))),
            ("reserved data opcode 3", Self.frame(0x83, [])),
            ("reserved control opcode 0xB", Self.frame(0x8B, [])),
            ("fragmented ping", Self.frame(0x09, [])),
            ("ping of 126 bytes", Self.frame(0x89, [UInt8](repeating: 1, count: 126))),
            ("close of 126 bytes", Self.frame(0x88, [0x03, 0xE8] + [UInt8](repeating: 0x61, count: 124))),
            ("continuation without a message", Self.frame(0x80, Array("x".utf8))),
            ("a new message inside a fragmented one", Self.frame(0x01, Array("a".utf8)) + Self.frame(0x81, Array("b".utf8))),
            ("a close with one byte", Self.frame(0x88, [0x03])),
            ("close code 1005 (never sent)", Self.frame(0x88, [0x03, 0xED])),
            ("close code 999", Self.frame(0x88, [0x03, 0xE7])),
            ("close code 5000", Self.frame(0x88, [0x13, 0x88])),
            ("a 16-bit length under 126", [0x81, 0xFE, 0x00, 0x05] + Self.mask + [1, 2, 3, 4, 5]),
            ("a 64-bit length under 65,536", [0x81, 0xFF, 0, 0, 0, 0, 0, 0, 0, 5] + Self.mask + [1, 2, 3, 4, 5]),
            ("a 64-bit length with its top bit set", [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0] + Self.mask),
        ]
        for (name, bytes) in cases {
            #expect(Self.failureCode(Self.events(bytes)) == 1002, "\(name)")
        }
    }

    @Test func badUTF8Fails1007AndGoodUTF8Passes() {
        let bad: [[UInt8]] = [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xFF], [0x80]]
        for bytes in bad {
            #expect(Self.failureCode(Self.events(Self.frame(0x81, bytes))) == 1007, "\(bytes)")
        }
        // Split across fragments, a valid sequence stays valid (validated on the whole message).
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        #expect(Self.events(Self.frame(0x01, Array(euro[0..<1])) + Self.frame(0x80, Array(euro[1...]))) == [.text("€")])
        #expect(Self.events(Self.frame(0x81, Array("κόσμε 😀".utf8))) == [.text("κόσμε 😀")])
        #expect(Self.failureCode(Self.events(Self.frame(0x88, [0x03, 0xE8, 0xC0, 0xAF]))) == 1007)
    }

    @Test func messagesOverTheCapFail1009BeforeTheirBytesArrive() {
        // Only the header: the length alone decides.
        #expect(Self.failureCode(Self.events([0x82, 0xFF, 0, 0, 0, 0, 0, 0x10, 0, 1] + Self.mask, limit: 1 << 20)) == 1009)
        #expect(Self.events([0x82, 0xFF, 0, 0, 0, 0, 0, 0x10, 0, 0] + Self.mask, limit: 1 << 20).isEmpty)  // exactly the cap: waits for its bytes
        #expect(Self.failureCode(Self.events([0x82, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], limit: 1 << 20)) == 1009)
        // The cap counts all the fragments together.
        let half = [UInt8](repeating: 0x61, count: 600)
        #expect(Self.failureCode(Self.events(Self.frame(0x01, half) + Self.frame(0x80, half), limit: 1000)) == 1009)
        #expect(Self.events(Self.frame(0x01, half) + Self.frame(0x80, half), limit: 1200) == [.text(String(repeating: "a", count: 1200))])
    }

    @Test func closeFramesCarryTheirCodeAndNothingIsReadAfterAFailure() {
        #expect(Self.events(Self.frame(0x88, [0x03, 0xE8] + Array("bye".utf8))) == [.close(code: 1000, reason: "bye")])
        #expect(Self.events(Self.frame(0x88, [])) == [.close(code: nil, reason: "")])
        #expect(Self.events(Self.frame(0x88, [0x0F, 0xA0])) == [.close(code: 4000, reason: "")])
        var reader = WebSocketFrameReader(maximumMessageBytes: 100)
        reader.append(Self.frame(0x81, Array("ok".utf8), masked: false) + Self.frame(0x81, Array("later".utf8)))
        #expect(Self.failureCode([reader.next()].compactMap { $0 }) == 1002)
        #expect(reader.next() == nil)
        var closing: [UInt8] = []
        WebSocketFrameWriter.appendClose(code: 1002, reason: String(repeating: "é", count: 100), to: &closing)
        #expect(closing[0] == 0x88 && Int(closing[1]) <= 125 && closing[2] == 0x03 && closing[3] == 0xEA)
        #expect(UTF8Validation.isValid(Array(closing[4...])))
    }
}
