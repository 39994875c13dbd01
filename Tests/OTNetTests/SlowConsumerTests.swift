import Foundation
import Glibc
import OTNet
import Testing

/// A WebSocket client made of a bare TCP socket: it sends the upgrade request, reads the
/// 101 answer and then never reads again (a stalled consumer).
private func stalledWebSocket(port: Int, path: String) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var small: Int32 = 4096
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw WebError("connect failed") }
    let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
    var answer: [UInt8] = []
    var byte: UInt8 = 0
    while !answer.suffix(4).elementsEqual([13, 10, 13, 10]) && recv(fd, &byte, 1, 0) == 1 { answer.append(byte) }
    guard String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw WebError("no 101") }
    return fd
}

@Suite(.serialized) struct SlowConsumerTests {
    @Test func aPeerThatStopsReadingIsCutOffAtTheQueueLimit() throws {
        let handler = EchoHandler()
        let server = try WebServer(configuration: WebServerConfiguration(), handler: handler)
        defer { server.stop() }
        let fd = try stalledWebSocket(port: server.port, path: "/ws/slow")
        defer { close(fd) }
        #expect(eventually { handler.snapshot().peers.count == 1 })
        let peer = handler.snapshot().peers[0]
        let payload = String(repeating: "p", count: 16 << 10)
        var accepted = 0
        while accepted < 10_000 && peer.send(payload) { accepted += 1 }
        #expect(accepted < 10_000)           // the queue limit refused further messages
        #expect(accepted >= 1000)            // ...but only after 16 MiB were queued
        #expect(peer.send("more") == false)
        // The close frame cannot get out; the close deadline drops the connection.
        #expect(eventually(10) { handler.snapshot().closed == [peer.id] })
    }

    @Test func aCloseThatCannotBeSentIsForcedAfterTheDeadline() throws {
        let handler = EchoHandler()
        let server = try WebServer(configuration: WebServerConfiguration(), handler: handler)
        defer { server.stop() }
        let fd = try stalledWebSocket(port: server.port, path: "/ws/stalled")
        defer { close(fd) }
        #expect(eventually { handler.snapshot().peers.count == 1 })
        let peer = handler.snapshot().peers[0]
        let payload = String(repeating: "q", count: 16 << 10)
        for _ in 0..<900 { #expect(peer.send(payload)) }  // 14 MiB: under the limit, over the socket buffers
        usleep(200_000)
        peer.close(code: 1000, reason: "bye")
        #expect(handler.snapshot().closed.isEmpty)
        #expect(eventually(10) { handler.snapshot().closed == [peer.id] })
    }
}
