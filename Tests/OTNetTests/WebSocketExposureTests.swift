import Foundation
import OTNet
import OTTestSupport
import Testing

/// What a client that never proves itself can hold: an unauthenticated WebSocket is
/// dropped at the deadline whatever it sends, their number is capped, and a frame that
/// breaks RFC 6455 (unmasked from a client) closes the connection.
@Suite(.serialized) struct WebSocketExposureTests {
    static func server(deadline: Int?, cap: Int?, handler: EchoHandler) throws -> WebServer {
        var configuration = WebServerConfiguration()
        configuration.unauthenticatedDeadlineSeconds = deadline
        configuration.maxUnauthenticatedWebSockets = cap
        return try WebServer(configuration: configuration, handler: handler)
    }

    /// A socket that keeps talking is still dropped at the 2 s deadline; one the
    /// application vouched for outlives it.
    @Test func theDeadlineDropsATalkingSocketButNotAnAuthenticatedOne() throws {
        let handler = EchoHandler()
        handler.echo = false
        let server = try Self.server(deadline: 2, cap: nil, handler: handler)
        defer { server.stop() }
        let chatty = try #require(RawTCPConnection.webSocket(port: server.port, path: "/ws/chatty"))
        let vouched = try #require(RawTCPConnection.webSocket(port: server.port, path: "/ws/vouched"))
        #expect(eventually { handler.snapshot().peers.count == 2 })
        let peers = handler.snapshot()
        let vouchedPeer = try #require(zip(peers.openedPaths, peers.peers).first { $0.0 == "/ws/vouched" }?.1)
        vouchedPeer.markAuthenticated()
        let opened = Date()
        var chattyClosedAfter: Double?
        while Date().timeIntervalSince(opened) < 8 {
            #expect(vouched.send(RawTCPConnection.textFrame(#"{"type":"ping"}"#)))
            if chattyClosedAfter == nil {
                if !chatty.send(RawTCPConnection.textFrame(#"{"type":"ping"}"#)) || chatty.peerHasClosed() {
                    chattyClosedAfter = Date().timeIntervalSince(opened)
                }
            }
            usleep(200_000)
        }
        let closedAfter = try #require(chattyClosedAfter, "the unauthenticated socket outlived its deadline")
        #expect(closedAfter >= 1 && closedAfter < 6, "closed after \(closedAfter) s")
        #expect(!vouched.peerHasClosed())
        #expect(handler.snapshot().closed.count == 1)
        #expect(handler.snapshot().received.count > 20)  // the pings arrived: talking did not help
        #expect(server.statistics.unauthenticatedClosed == 1)
    }

    /// At the cap a new socket closes the oldest unauthenticated one; a vouched-for socket
    /// is never counted, so it is never the one let go.
    @Test func theCapLetsTheOldestUnauthenticatedSocketGo() throws {
        let handler = EchoHandler()
        let server = try Self.server(deadline: nil, cap: 3, handler: handler)
        defer { server.stop() }
        let vouched = try #require(RawTCPConnection.webSocket(port: server.port, path: "/ws/vouched"))
        #expect(eventually { handler.snapshot().peers.count == 1 })
        handler.snapshot().peers[0].markAuthenticated()
        let waiting = (0..<3).compactMap { _ in RawTCPConnection.webSocket(port: server.port, path: "/ws/waiting") }
        #expect(waiting.count == 3)
        #expect(eventually { handler.snapshot().peers.count == 4 })
        #expect(server.statistics.unauthenticatedEvicted == 0)
        let newest = RawTCPConnection.webSocket(port: server.port, path: "/ws/newest")
        #expect(newest != nil)
        #expect(waiting[0].readUntilClosed(seconds: 5).closed)
        #expect(server.statistics.unauthenticatedEvicted == 1)
        #expect(!waiting[1].peerHasClosed() && !waiting[2].peerHasClosed() && !vouched.peerHasClosed())
        #expect(newest?.peerHasClosed() == false)
    }

    /// RFC 6455 §5.1: a server must close the connection on an unmasked client frame.
    /// (libwebsockets 4.1.6, which served this before, accepted them: this failed there.)
    /// The masked frame before it arrives and is echoed; the unmasked one never reaches
    /// the handler, the client gets a 1002 close frame, the socket closes, and it is counted.
    @Test func anUnmaskedClientFrameClosesTheConnectionWith1002() throws {
        let handler = EchoHandler()
        let server = try Self.server(deadline: nil, cap: nil, handler: handler)
        defer { server.stop() }
        let socket = try #require(RawTCPConnection.webSocket(port: server.port, path: "/ws/raw"))
        #expect(socket.send(RawTCPConnection.textFrame("masked")))
        #expect(eventually { handler.snapshot().received == ["masked"] })
        #expect(socket.send(RawTCPConnection.textFrame("unmasked", masked: false)))
        let (bytes, closed) = socket.readUntilClosed(seconds: 5)
        #expect(closed)
        let echo: [UInt8] = [0x81, 0x06] + Array("masked".utf8)
        #expect(Array(bytes.prefix(8)) == echo, "\(bytes)")
        // Then the close frame: FIN+close, a length, code 1002 (0x03EA).
        #expect(bytes.count >= 12 && bytes[8] == 0x88 && bytes[10] == 0x03 && bytes[11] == 0xEA, "\(bytes)")
        #expect(handler.snapshot().received == ["masked"])
        #expect(eventually { handler.snapshot().closed.count == 1 })
        #expect(server.statistics.unmaskedFrames == 1)
        #expect(server.statistics.webSocketProtocolErrors == 1)

        // A well-behaved client on the same server is unaffected.
        let other = try #require(RawTCPConnection.webSocket(port: server.port, path: "/ws/other"))
        #expect(other.send(RawTCPConnection.textFrame("still fine")))
        #expect(eventually { handler.snapshot().received == ["masked", "still fine"] })
        #expect(!other.peerHasClosed())
    }

    /// Over the wire, each violation closes with its code (1002 RSV / control frame too
    /// long, 1007 bad UTF-8, 1009 over the cap) and a ping is answered with a pong.
    @Test(arguments: [
        ([0xC1, 0x81, 0x37, 0xfa, 0x21, 0x3d, 0x5f] as [UInt8], UInt16(1002)),
        ([0x89, 0xFE, 0x00, 0x7E] + [0x37, 0xfa, 0x21, 0x3d] + [UInt8](repeating: 0, count: 126), UInt16(1002)),
        ([0x81, 0x82, 0, 0, 0, 0, 0xC0, 0xAF], UInt16(1007)),
        ([0x81, 0xFF, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0], UInt16(1009)),
    ])
    func violationsCloseWithTheirCode(frame: [UInt8], code: UInt16) throws {
        let handler = EchoHandler()
        let server = try Self.server(deadline: nil, cap: nil, handler: handler)
        defer { server.stop() }
        let socket = try #require(RawTCPConnection.webSocket(port: server.port, path: "/ws/raw"))
        // A ping first: the pong comes back with its payload.
        #expect(socket.send([0x89, 0x82, 0, 0, 0, 0, 0x68, 0x69]))
        #expect(socket.send(frame))
        let (bytes, closed) = socket.readUntilClosed(seconds: 5)
        #expect(closed)
        #expect(Array(bytes.prefix(4)) == [0x8A, 0x02, 0x68, 0x69], "\(bytes)")
        #expect(bytes.count >= 8 && bytes[4] == 0x88 && UInt16(bytes[6]) << 8 | UInt16(bytes[7]) == code, "\(bytes)")
        #expect(handler.snapshot().received.isEmpty)
        #expect(server.statistics.webSocketProtocolErrors == 1)
        #expect(server.statistics.unmaskedFrames == 0)
    }
}
