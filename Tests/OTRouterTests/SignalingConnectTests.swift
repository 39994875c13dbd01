import Foundation
import OTNet
@testable import OTRouter
@testable import OTSignaling
import Testing

@Suite struct SignalingConnectTests {
    @Test func connectGivesIdCapabilitiesAndRoster() throws {
        let h = try Harness()
        let (alice, first) = try h.join(.moderator, data: "name=alice")
        #expect(first.connections.isEmpty && first.streams.isEmpty && first.archive == nil)
        #expect(first.capabilities == WireCapabilities(role: .moderator))
        #expect(first.connection.data == "name=alice")
        #expect(first.reconnectGraceMilliseconds == 30_000 && !first.relayed && !first.resumeSecret.isEmpty)
        #expect(first.connection.connectionId == first.connection.connectionId.lowercased() && UUID(uuidString: first.connection.connectionId) != nil)
        let (_, second) = try h.join(.subscriber)
        #expect(second.connections.map(\.connectionId) == [first.connection.connectionId])
        #expect(second.capabilities.canPublish == false)
        #expect(alice.events == [.connectionCreated(second.connection)])
        #expect(h.service.metrics.connections == 2)
    }

    @Test func t1TokensWork() throws {
        let h = try Harness()
        let peer = h.open()
        let token = try OpenTokToken.generate(sessionID: h.sessionId, credentials: Fixture.project, format: .t1)
        guard case .connected? = h.request(peer, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token))) else {
            Issue.record("T1 token refused"); return
        }
    }

    enum BadToken: String, CaseIterable {
        case expired, forged, otherSession, otherAPIKey, malformed, connectionDataTooLong, unknownAPIKey
    }

    static func make(_ kind: BadToken, _ h: Harness) throws -> (apiKey: String, token: String, reason: String) {
        let key = Fixture.project.apiKey
        let now = UnixTime.now()
        switch kind {
        case .expired:
            return (key, try OpenTokToken.generate(sessionID: h.sessionId, credentials: Fixture.project, expireTime: now - 10, now: now - 100), "expired")
        case .forged:
            let forged = ProjectCredentials(apiKey: key, apiSecret: "not-the-secret")
            return (key, try OpenTokToken.generate(sessionID: h.sessionId, credentials: forged), "bad_signature")
        case .otherSession:
            let other = try OpenTokSessionID.create(apiKey: key).rawValue
            return (key, try OpenTokToken.generate(sessionID: other, credentials: Fixture.project), "wrong_session")
        case .otherAPIKey:
            let otherSession = try OpenTokSessionID.create(apiKey: Fixture.other.apiKey).rawValue
            return (key, try OpenTokToken.generate(sessionID: otherSession, credentials: Fixture.other), "wrong_api_key")
        case .malformed:
            return (key, "eyJhbGciOiJIUzI1NiJ9.not-a-jwt", "malformed")
        case .connectionDataTooLong:
            let fields = TokenFields(sessionID: h.sessionId, role: "publisher", issuedAt: now, expireTime: now + 600, nonce: 1,
                                     connectionData: String(repeating: "x", count: 1001), layoutClassList: "")
            return (key, OpenTokToken.sign(fields, format: .jwt, credentials: Fixture.project), "connection_data_too_long")
        case .unknownAPIKey:
            return ("99999999", try OpenTokToken.generate(sessionID: h.sessionId, credentials: Fixture.project), "unknown_api_key")
        }
    }

    @Test(arguments: BadToken.allCases)
    func badTokenIsRefusedWith1004AndCounted(_ kind: BadToken) throws {
        let h = try Harness()
        let (alice, _) = try h.join()
        let (apiKey, token, reason) = try Self.make(kind, h)
        let peer = h.open()
        let reply = h.request(peer, .connect(ConnectRequest(apiKey: apiKey, token: token)))
        guard case .error(let error)? = reply else { Issue.record("not refused: \(String(describing: reply))"); return }
        #expect(error.code == 1004)
        #expect(!error.message.isEmpty)
        #expect(peer.isClosed)
        #expect(alice.events.isEmpty, "no connectionCreated for a refused client")
        let metrics = h.service.metrics
        #expect(metrics.badTokens[reason] == 1, "\(metrics.badTokens)")
        #expect(metrics.connections == 1)
    }

    @Test func messageBeforeConnectIs1010() throws {
        let h = try Harness()
        let peer = h.open()
        guard case .error(let error)? = h.request(peer, .signal(SignalRequest(type: "a", data: "b", to: nil))) else {
            Issue.record("no error"); return
        }
        #expect(error.code == 1010)
        #expect(!peer.isClosed)
    }

    @Test func malformedMessageIs1011CountedAndKept() throws {
        let h = try Harness()
        let (peer, _) = try h.join()
        h.service.webSocketReceived(peer, text: #"{"type":"publish","requestId":7,"body":{"name":3}}"#)
        h.service.webSocketReceived(peer, text: "not json")
        guard case .error(let error)? = peer.reply(to: 7) else { Issue.record("no reply to a malformed message"); return }
        #expect(error.code == 1011 && error.message.contains("name"))
        #expect(h.service.metrics.badMessages == 2)
        #expect(!peer.isClosed)
        #expect(h.request(peer, .ping) == .pong)
    }

    @Test func sessionNotCreatedHereButValidIsAdopted() throws {
        let h = try Harness()
        let foreign = try OpenTokSessionID.create(apiKey: Fixture.project.apiKey).rawValue
        let peer = h.open(session: foreign)
        let reply = h.request(peer, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: try h.token(session: foreign))))
        guard case .connected(let connected)? = reply else { Issue.record("refused: \(String(describing: reply))"); return }
        #expect(!connected.relayed)
        #expect(h.service.metrics.sessions == 2)
    }

    @Test func connectionLimitIs1027() throws {
        var configuration = Fixture.configuration()
        configuration.maxConnectionsPerSession = 1
        let media = FakeMedia()
        let service = RouterService(configuration: configuration, media: media)
        defer { service.stop() }
        let session = try service.createSession(apiKey: Fixture.project.apiKey)
        var replies: [ServerMessage?] = []
        for index in 0..<2 {
            let peer = FakePeer()
            service.webSocketOpened(peer, path: "/v1/session/\(session)/ws", query: [])
            let token = try OpenTokToken.generate(sessionID: session, credentials: Fixture.project)
            service.webSocketReceived(peer, text: SignalingCodec.encode(.connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token)), requestId: index))
            replies.append(peer.reply(to: index))
        }
        guard case .connected? = replies[0], case .error(let error)? = replies[1] else { Issue.record("\(replies)"); return }
        #expect(error.code == 1027)
    }

    @Test func onlySignalingPathsUpgrade() throws {
        let h = try Harness()
        #expect(h.service.shouldAcceptWebSocket(path: "/v1/session/1_abc/ws", query: []))
        #expect(!h.service.shouldAcceptWebSocket(path: "/v1/session//ws", query: []))
        #expect(!h.service.shouldAcceptWebSocket(path: "/metrics", query: []))
    }
}
