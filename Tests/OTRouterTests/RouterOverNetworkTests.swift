import Foundation
import OTNet
@testable import OTRouter
import OTSignaling
import Synchronization
import Testing

/// The Router on a real libwebsockets server: REST over HTTPClient, signaling over WebSocketClient.
@Suite(.serialized) struct RouterOverNetworkTests {
    @Test func restOverHTTP() throws {
        let router = try Router(configuration: Fixture.configuration(), media: FakeMedia())
        defer { router.stop() }
        #expect(router.baseURL == "http://127.0.0.1:\(router.port)")
        let created = try HTTPClient.request("POST", router.baseURL + "/session/create",
                                             headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: Fixture.project),
                                                       "Content-Type": "application/x-www-form-urlencoded"],
                                             body: Array("p2p.preference=disabled&archiveMode=manual&e2ee=false".utf8))
        #expect(created.status == 200)
        #expect(created.headers["content-type"] == "application/json")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [[String: Any]])
        let sessionId = try #require(list.first?["session_id"] as? String)
        // `//` from an api_url with a trailing slash.
        let signal = try HTTPClient.request("POST", router.baseURL + "//v2/project/\(Fixture.project.apiKey)/session/\(sessionId)/signal",
                                            headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: Fixture.project),
                                                      "Content-Type": "application/json"],
                                            body: Array(#"{"type": "t", "data": "d"}"#.utf8))
        #expect(signal.status == 204)
        let unauthenticated = try HTTPClient.request("GET", router.baseURL + "/v2/project/\(Fixture.project.apiKey)/archive")
        #expect(unauthenticated.status == 401)
        let metrics = try HTTPClient.request("GET", router.baseURL + "/metrics")
        #expect(metrics.status == 200)
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains("otkit_rest_requests_total{status=\"401\"} 1"))
        #expect(text.contains("otkit_sessions 1"))
        #expect(try HTTPClient.request("GET", router.baseURL + "/healthz").status == 200)
    }

    /// What a client received, shared with its callbacks.
    final class Inbox: Sendable {
        let messages = Mutex<[(ServerMessage, Int?)]>([])
        let closed = Mutex<Bool>(false)
    }

    /// A WebSocket client that records decoded server messages.
    final class Client: Sendable {
        let inbox = Inbox()
        let socket: WebSocketClient

        init(url: String) throws {
            let inbox = self.inbox
            socket = try WebSocketClient(url: url, onOpen: {}, onText: { text in
                if let decoded = try? SignalingCodec.decodeServerMessage(text) {
                    inbox.messages.withLock { $0.append((decoded.message, decoded.requestId)) }
                }
            }, onClose: { _ in inbox.closed.withLock { $0 = true } })
        }

        func send(_ message: ClientMessage, id: Int) { socket.send(SignalingCodec.encode(message, requestId: id)) }

        func reply(_ id: Int) -> ServerMessage? {
            var found: ServerMessage?
            _ = eventually { found = inbox.messages.withLock { $0.first { $0.1 == id }?.0 }; return found != nil }
            return found
        }

        var events: [ServerMessage] { inbox.messages.withLock { $0.filter { $0.1 == nil }.map(\.0) } }
        var isClosed: Bool { inbox.closed.withLock { $0 } }
    }

    @Test func signalingOverWebSocket() throws {
        let router = try Router(configuration: Fixture.configuration(), media: FakeMedia())
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Fixture.project.apiKey)
        let url = router.signalingURL(sessionId: sessionId)
        let token = try OpenTokToken.generate(sessionID: sessionId, credentials: Fixture.project)
        let a = try Client(url: url)
        a.send(.connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token)), id: 1)
        guard case .connected(let ra)? = a.reply(1) else { Issue.record("a not connected"); return }
        let b = try Client(url: url)
        b.send(.connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token)), id: 1)
        guard case .connected(let rb)? = b.reply(1) else { Issue.record("b not connected"); return }
        #expect(rb.connections.map(\.connectionId) == [ra.connection.connectionId])
        #expect(eventually { a.events == [.connectionCreated(rb.connection)] })
        b.send(.signal(SignalRequest(type: "chat", data: "hello", to: nil)), id: 2)
        #expect(b.reply(2) == .ok)
        #expect(eventually { a.events.contains(.signal(type: "chat", data: "hello", from: rb.connection.connectionId)) })
        // A bad token over the network: 1004 and the socket closes.
        let c = try Client(url: url)
        c.send(.connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: "nope")), id: 1)
        guard case .error(let error)? = c.reply(1) else { Issue.record("bad token accepted"); return }
        #expect(error.code == 1004)
        #expect(eventually { c.isClosed })
        // Leaving closes b's socket and a hears it.
        b.send(.disconnect, id: 3)
        #expect(eventually { a.events.contains(.connectionDestroyed(connectionId: rb.connection.connectionId, reason: "clientDisconnected")) })
        #expect(eventually { b.isClosed })
        #expect(router.metrics.badTokens["malformed"] == 1)
    }

    @Test func defaultMediaIsTheRealSFU() throws {
        var configuration = Fixture.configuration()
        configuration.mediaHost = "127.0.0.1"
        let router = try Router(configuration: configuration)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Fixture.project.apiKey)
        let peer = FakePeer()
        router.service.webSocketOpened(peer, path: "/v1/session/\(sessionId)/ws", query: [])
        let token = try OpenTokToken.generate(sessionID: sessionId, credentials: Fixture.project)
        router.service.webSocketReceived(peer, text: SignalingCodec.encode(.connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token)), requestId: 1))
        router.service.webSocketReceived(peer, text: SignalingCodec.encode(.publish(PublishRequest(
            name: "", hasAudio: true, hasVideo: false, audioTrack: true, videoTrack: false, videoWidth: 0, videoHeight: 0,
            videoType: "camera")), requestId: 2))
        guard case .published(let published)? = peer.reply(to: 2), let leg = published.media else { Issue.record("no leg"); return }
        #expect(leg.host == "127.0.0.1" && leg.port > 0 && leg.audioSSRC != nil && leg.videoSSRC == nil)
        // The SFU's totals reach /metrics.
        #expect(router.metrics.media.packetsIn == 0)
    }
}
