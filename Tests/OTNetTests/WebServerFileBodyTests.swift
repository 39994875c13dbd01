import Foundation
import OTNet
import OTTestSupport
import Testing

/// A response whose body is a file (`HTTPResponse.bodyFile`, what the router's signed
/// archive links answer): streamed in `fileChunkSize` chunks, never read whole. Files
/// several chunks long (and not a multiple of one) arrive byte for byte; a pipelined
/// request behind a file is answered after it, in order; HEAD gets the length and no body;
/// a file that is gone gets 404.
@Suite(.serialized) struct WebServerFileBodyTests {
    let handler = EchoHandler()
    let server: WebServer
    var base: String { "http://127.0.0.1:\(server.port)" }

    init() throws {
        server = try WebServer(configuration: WebServerConfiguration(), handler: handler)
    }

    private func makeFile(bytes count: Int) throws -> (path: String, bytes: [UInt8]) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = NSTemporaryDirectory() + "otkit-file-body-" + UUID().uuidString
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    @Test func aFileLargerThanAChunkArrivesByteForByte() throws {
        defer { server.stop() }
        let size = HTTPResponse.fileChunkSize * 5 + 12_345  // over 5 chunks, the last one partial
        let (path, bytes) = try makeFile(bytes: size)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let response = try HTTPClient.request("GET", base + "/file?path=" + path)
        #expect(response.status == 200)
        #expect(response.headers["content-length"] == String(size))
        #expect(response.headers["content-type"] == "application/octet-stream" && response.headers["x-streamed"] == "yes")
        #expect(response.body.count == size)
        #expect(response.body == bytes, "the streamed body is the file")

        let head = try HTTPClient.request("HEAD", base + "/file?path=" + path)
        #expect(head.status == 200 && head.headers["content-length"] == String(size) && head.body.isEmpty)
        #expect(try HTTPClient.request("GET", base + "/file?path=" + path + "-gone").status == 404)
        let empty = try makeFile(bytes: 0)
        defer { try? FileManager.default.removeItem(atPath: empty.path) }
        let none = try HTTPClient.request("GET", base + "/file?path=" + empty.path)
        #expect(none.status == 200 && none.body.isEmpty && none.headers["content-length"] == "0")
    }

    @Test func aPipelinedRequestBehindAFileIsAnsweredAfterIt() throws {
        defer { server.stop() }
        let size = HTTPResponse.fileChunkSize * 3 + 7
        let (path, bytes) = try makeFile(bytes: size)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let connection = try #require(RawTCPConnection(port: server.port))
        #expect(connection.send("GET /file?path=\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            + "GET /after HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        let (received, closed) = connection.readUntilClosed(seconds: 30)
        #expect(closed, "the second request asked to close")
        let separator: [UInt8] = [13, 10, 13, 10]
        let headEnd = try #require(firstIndex(of: separator, in: received), "a response head")
        let bodyStart = headEnd + 4
        #expect(received.count > bodyStart + size)
        #expect(Array(received[bodyStart..<min(received.count, bodyStart + size)]) == bytes, "the file, whole, first")
        let rest = String(decoding: received[min(received.count, bodyStart + size)...], as: UTF8.self)
        #expect(rest.hasPrefix("HTTP/1.1 200") && rest.contains("after"), "then the pipelined answer: \(rest.prefix(300))")
    }

    private func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where Array(haystack[index..<(index + needle.count)]) == needle {
            return index
        }
        return nil
    }
}
