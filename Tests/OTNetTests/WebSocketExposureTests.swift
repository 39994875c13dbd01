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
    /// libwebsockets 4.1.6 does not: its server-side parser notes the mask bit and goes on
    /// (lib/roles/ws/ops-ws.c, LWS_RXPS_04_FRAME_HDR_LEN), and the bit is not visible to
    /// the application. The masked frame before it must arrive; the close is a known
    /// issue, so this test reports it the day lws (or OTNet) starts enforcing it.
    @Test func anUnmaskedClientFrameShouldCloseTheConnection() throws {
        let handler = EchoHandler()
        let server = try Self.server(deadline: nil, cap: nil, handler: handler)
        defer { server.stop() }
        let socket = try #require(RawTCPConnection.webSocket(port: server.port, path: "/ws/raw"))
        #expect(socket.send(RawTCPConnection.textFrame("masked")))
        #expect(eventually { handler.snapshot().received == ["masked"] })
        #expect(socket.send(RawTCPConnection.textFrame("unmasked", masked: false)))
        let (_, closed) = socket.readUntilClosed(seconds: 3)
        withKnownIssue("libwebsockets 4.1 accepts unmasked client frames (RFC 6455 §5.1)") {
            #expect(closed)
            #expect(handler.snapshot().received == ["masked"])
        }
    }
}
