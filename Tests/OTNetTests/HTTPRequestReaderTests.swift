import Testing
@testable import OTNet

/// The server's HTTP/1.1 request reader on exact bytes (RFC 9112): what it reads, what it
/// refuses with which status, and that nothing after a refusal or an upgrade is read.
@Suite struct HTTPRequestReaderTests {
    static func events(_ text: String, reader: HTTPRequestReader = HTTPRequestReader()) -> [HTTPRequestReader.Event] {
        var reader = reader
        reader.append(Array(text.utf8))
        var events: [HTTPRequestReader.Event] = []
        while let event = reader.next() { events.append(event) }
        return events
    }

    static func status(_ text: String, reader: HTTPRequestReader = HTTPRequestReader()) -> Int? {
        guard case .failure(let status, _, _)? = events(text, reader: reader).last else { return nil }
        return status
    }

    @Test func pipelinedRequestsComeOutInOrderWhateverTheReadSizes() {
        let text = "\r\nPOST /a?x=1+2&y=%26 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nX-Two: 1\r\nx-two: 2\r\n\r\nhello"
            + "GET //b%20c HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
            + "GET /c HTTP/1.0\r\n\r\n"
        var reader = HTTPRequestReader()
        var requests: [ParsedRequest] = []
        for byte in text.utf8 {
            reader.append([byte])
            while let event = reader.next() {
                guard case .request(let request) = event else { Issue.record("refused: \(event)"); return }
                requests.append(request)
            }
        }
        #expect(requests.map(\.method) == ["POST", "GET", "GET"])
        #expect(requests.map(\.path) == ["/a", "/b c", "/c"])
        #expect(requests[0].query == [.init(name: "x", value: "1 2"), .init(name: "y", value: "&")])
        #expect(requests[0].body == Array("hello".utf8))
        #expect(requests[0].headers["x-two"] == "1, 2")
        #expect(requests.map(\.keepAlive) == [true, false, false])
    }

    @Test func syntaxAndLimitsAreRefusedWithTheirStatus() {
        let cases: [(String, String, Int)] = [
            ("HTTP/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
            ("garbage version", "GET / HTTQ/1.1\r\nHost: h\r\n\r\n", 400),
            ("unknown method", "BREW / HTTP/1.1\r\nHost: h\r\n\r\n", 501),
            ("two spaces", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
            ("absolute target", "GET http://x/ HTTP/1.1\r\nHost: h\r\n\r\n", 400),
            ("bare LF", "GET / HTTP/1.1\nHost: h\r\n\r\n", 400),
            ("bare CR", "GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", 400),
            ("space before colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400),
            ("obsolete folding", "GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", 400),
            ("NUL in a value", "GET / HTTP/1.1\r\nHost: h\u{0}\r\n\r\n", 400),
            ("no Host in 1.1", "GET / HTTP/1.1\r\nX: y\r\n\r\n", 400),
            ("two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
            ("101 headers", "GET / HTTP/1.1\r\nHost: h\r\n" + String(repeating: "X: y\r\n", count: 100) + "\r\n", 431),
            ("a 17 KiB head", "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: 17 << 10) + "\r\n\r\n", 431),
            ("a 9 KiB request line", "GET /" + String(repeating: "a", count: 9 << 10) + " HTTP/1.1\r\nHost: h\r\n\r\n", 414),
            ("Content-Length and chunked", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            ("chunked", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
            ("an upgrade with a body", "GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nContent-Length: 2\r\n\r\nxx", 400),
        ]
        for (name, text, status) in cases {
            #expect(Self.status(text) == status, "\(name)")
        }
        // A head still arriving past the limit is refused before its end is seen.
        #expect(Self.status("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 20 << 10)) == 431)
    }

    @Test func nothingBehindARefusalOrAnUpgradeIsRead() {
        let smuggled = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n"
        let events = Self.events(smuggled)
        #expect(events == [.failure(status: 400, message: "both Content-Length and Transfer-Encoding", kind: .framing)])
        var reader = HTTPRequestReader()
        reader.append(Array("GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\nGET /next HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
        guard case .request(let upgrade)? = reader.next() else { Issue.record("no upgrade request"); return }
        #expect(upgrade.isUpgrade)
        #expect(reader.next() == nil)
        #expect(reader.takeRemainder() == Array("GET /next HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
    }

    @Test func aBodyOverTheLimitIsDiscardedThenAnswered413() {
        var reader = HTTPRequestReader(maximumBodyBytes: 10)
        reader.append(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 25\r\n\r\n0123456789".utf8))
        #expect(reader.next() == nil)
        #expect(reader.bufferedBytes == 0)  // discarded bytes are not kept
        reader.append(Array("012345678901234".utf8))
        #expect(reader.next() == .failure(status: 413, message: "request body larger than 10 bytes", kind: .bodyTooLarge))
        #expect(reader.next() == nil)
    }
}
