import Foundation
import OTNet
import OTTestSupport
import Testing

/// RFC 9112 §6.3: a request whose framing the server could read two ways is refused with
/// 400 and the connection closed, so bytes smuggled behind it are never a second request.
/// Raw TCP, because no HTTP client sends these.
@Suite(.serialized) struct HTTPFramingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let headers: String
        let status: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "Content-Length and chunked", headers: "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", status: 400),
        Case(name: "chunked and Content-Length", headers: "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", status: 400),
        Case(name: "duplicate Content-Length", headers: "Content-Length: 5\r\nContent-Length: 5\r\n", status: 400),
        Case(name: "conflicting Content-Length", headers: "Content-Length: 5\r\nContent-Length: 40\r\n", status: 400),
        Case(name: "non-numeric Content-Length", headers: "Content-Length: 5x\r\n", status: 400),
        Case(name: "negative Content-Length", headers: "Content-Length: -5\r\n", status: 400),
        Case(name: "signed Content-Length", headers: "Content-Length: +5\r\n", status: 400),
        Case(name: "huge Content-Length", headers: "Content-Length: 99999999999999999999999\r\n", status: 400),
        Case(name: "unknown transfer-coding", headers: "Transfer-Encoding: gzip\r\n", status: 400),
        Case(name: "chunked only", headers: "Transfer-Encoding: chunked\r\n", status: 411),
    ]

    /// The first request carries `0\r\n\r\n` (an empty chunked body) and, behind it, a
    /// complete second request: only the refusal comes back, then the close.
    @Test(arguments: cases)
    func ambiguousFramingIsRefusedAndTheConnectionClosed(framing: Case) throws {
        let handler = EchoHandler()
        let server = try WebServer(configuration: WebServerConfiguration(), handler: handler)
        defer { server.stop() }
        let connection = try #require(RawTCPConnection(port: server.port))
        let smuggled = "GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        #expect(connection.send("POST /first HTTP/1.1\r\nHost: 127.0.0.1\r\n\(framing.headers)\r\n0\r\n\r\n" + smuggled))
        let (bytes, closed) = connection.readUntilClosed(seconds: 10)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 \(framing.status)"), "answer: \(text)")
        #expect(closed, "the connection stays open after \(framing.name)")
        #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "more than one answer: \(text)")
        #expect(!text.contains("/smuggled") && !text.contains("/first"), "a request reached the handler: \(text)")
        #expect(server.statistics.framingRefused == 1)
    }

    /// A WebSocket upgrade that announces a body is not upgraded: those bytes would be read
    /// as frames.
    @Test(arguments: ["Content-Length: 6\r\n", "Transfer-Encoding: chunked\r\n"])
    func anUpgradeWithABodyIsRefused(header: String) throws {
        let handler = EchoHandler()
        let server = try WebServer(configuration: WebServerConfiguration(), handler: handler)
        defer { server.stop() }
        let connection = try #require(RawTCPConnection(port: server.port))
        let request = RawTCPConnection.upgradeRequest(path: "/ws/body", port: server.port).replacingOccurrences(of: "\r\n\r\n", with: "\r\n\(header)\r\n")
        #expect(connection.send(request + "0\r\n\r\n"))
        let text = String(decoding: connection.readUntilClosed(seconds: 10).bytes, as: UTF8.self)
        #expect(!text.contains(" 101 "), "upgraded: \(text)")
        #expect(handler.snapshot().opened.isEmpty)
        #expect(server.statistics.framingRefused == 1)
        #expect(RawTCPConnection.webSocket(port: server.port, path: "/ws/plain") != nil)  // a plain upgrade still works
    }

    /// The same connection with a well-framed first request answers both (keep-alive works).
    @Test func aWellFramedPairIsAnsweredTwice() throws {
        let handler = EchoHandler()
        let server = try WebServer(configuration: WebServerConfiguration(), handler: handler)
        defer { server.stop() }
        let connection = try #require(RawTCPConnection(port: server.port))
        #expect(connection.send("POST /first HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello"
            + "GET /second HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        let text = String(decoding: connection.readUntilClosed(seconds: 10).bytes, as: UTF8.self)
        #expect(text.contains("/first") && text.contains("/second"), "answer: \(text)")
        #expect(server.statistics.framingRefused == 0)
    }
}
