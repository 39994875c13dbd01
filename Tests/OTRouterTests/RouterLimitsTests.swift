import Foundation
import OTNet
@testable import OTRouter
import OTSignaling
import Testing

/// Each limit of `RouterLimits`, crossed with a small configured value: the documented
/// OpenTok error comes back and `/metrics` counts the refusal.
@Suite struct RouterLimitsTests {
    /// The `otkit_limit_refusals_total` sample of `limit` in `/metrics`.
    static func refusals(_ h: Harness, _ limit: String) -> Int? { sample(h.service, "otkit_limit_refusals_total{limit=\"\(limit)\"}") }

    /// The value of one sample line of `/metrics`.
    static func sample(_ service: RouterService, _ name: String) -> Int? {
        let text = service.handle(HTTPRequest(method: "GET", path: "/metrics")).text
        let prefix = name + " "
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
    }

    static func errorCode(_ reply: ServerMessage?) -> Int? {
        if case .error(let error)? = reply { return error.code }
        return nil
    }

    static let publishRequest = PublishRequest(name: "cam", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                                               videoWidth: 640, videoHeight: 480, videoType: "camera")

    @Test func aSecondPublishIsRefusedWith1500ByDefault() throws {
        let h = try Harness()
        let (a, _) = try h.join()
        #expect(Self.refusals(h, "streams_per_connection") == 0)
        _ = try h.publish(a)
        #expect(Self.errorCode(h.request(a, .publish(Self.publishRequest))) == 1500)
        #expect(Self.refusals(h, "streams_per_connection") == 1)
        #expect(h.media.calls.withLock { $0.publishers.count } == 1, "no second leg was opened")
    }

    @Test func streamsPerConnectionIsConfigurable() throws {
        var limits = RouterLimits()
        limits.streamsPerConnection = 2
        let h = try Harness(limits: limits)
        let (a, _) = try h.join()
        _ = try h.publish(a)
        _ = try h.publish(a, name: "screen")
        #expect(Self.errorCode(h.request(a, .publish(Self.publishRequest))) == 1500)
        #expect(Self.refusals(h, "streams_per_connection") == 1)
    }

    @Test func subscriptionsPerConnectionAnswer1605() throws {
        var limits = RouterLimits()
        limits.subscriptionsPerConnection = 3
        let h = try Harness(limits: limits)
        let (a, _) = try h.join()
        let stream = try h.publish(a).stream.streamId
        let (b, _) = try h.join(.subscriber)
        var subscriberIds: [String] = []
        for _ in 0..<3 {
            guard case .subscribed(let reply)? = h.request(b, .subscribe(SubscribeRequest(streamId: stream))) else {
                Issue.record("subscribe refused under the limit"); return
            }
            subscriberIds.append(reply.subscriberId)
        }
        #expect(Self.errorCode(h.request(b, .subscribe(SubscribeRequest(streamId: stream)))) == 1605)
        #expect(Self.refusals(h, "subscriptions_per_connection") == 1)
        // Another connection has its own allowance, and an unsubscribe frees a place.
        let (c, _) = try h.join(.subscriber)
        guard case .subscribed? = h.request(c, .subscribe(SubscribeRequest(streamId: stream))) else {
            Issue.record("another connection was refused"); return
        }
        #expect(h.request(b, .unsubscribe(subscriberId: subscriberIds[0])) == .ok)
        guard case .subscribed? = h.request(b, .subscribe(SubscribeRequest(streamId: stream))) else {
            Issue.record("the freed place was refused"); return
        }
    }

    @Test func connectionsPerSessionAnswer1027() throws {
        let h = try Harness(maxConnectionsPerSession: 4)
        for _ in 0..<4 { _ = try h.join() }
        let peer = h.open()
        let reply = h.request(peer, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: try h.token())))
        #expect(Self.errorCode(reply) == 1027)
        #expect(peer.isClosed)
        #expect(Self.refusals(h, "connections_per_session") == 1)
    }

    @Test func connectionsPerAddressAnswer1027AcrossSessions() throws {
        var limits = RouterLimits()
        limits.connectionsPerAddress = 3
        let h = try Harness(limits: limits)
        let second = try h.service.createSession(apiKey: Fixture.project.apiKey, relayed: false)
        let (first, _) = try h.join(from: "10.0.0.7:5000")
        _ = try h.join(from: "10.0.0.7:5001")
        _ = try h.join(session: second, from: "10.0.0.7:5002")
        let peer = h.open(session: second, from: "10.0.0.7:5003")
        let reply = h.request(peer, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: try h.token(session: second))))
        #expect(Self.errorCode(reply) == 1027)
        #expect(Self.refusals(h, "connections_per_address") == 1)
        // Another address is not affected; a connection that leaves frees its place.
        _ = try h.join(from: "10.0.0.8:5000")
        _ = try h.join(from: "[2001:db8::1]:5000")
        #expect(h.request(first, .disconnect) == .ok)
        _ = try h.join(from: "10.0.0.7:5004")
    }

    @Test func signalsPerSecondAnswer1550AndRefill() throws {
        var limits = RouterLimits()
        limits.signalsPerSecond = 5
        let h = try Harness(limits: limits)
        let (a, _) = try h.join()
        var codes: [Int?] = []
        for _ in 0..<12 { codes.append(Self.errorCode(h.request(a, .signal(SignalRequest(type: "chat", data: "hi", to: nil))))) }
        // A burst of 5 passes at once; the rest of 12 sent back to back cannot all have refilled.
        #expect(codes.prefix(5).allSatisfy { $0 == nil }, "\(codes)")
        let refused = codes.filter { $0 == 1550 }.count
        #expect(refused >= 3, "\(codes)")
        #expect(Self.refusals(h, "signals_per_second") == refused)
        usleep(1_200_000)  // the bucket is full again after a second
        #expect(Self.errorCode(h.request(a, .signal(SignalRequest(type: "chat", data: "again", to: nil)))) == nil)
        // Another connection has its own bucket.
        let (b, _) = try h.join()
        #expect(Self.errorCode(h.request(b, .signal(SignalRequest(type: "chat", data: "hi", to: nil)))) == nil)
    }

    @Test func idleSessionsAreRemovedAfterTheConfiguredTime() throws {
        var limits = RouterLimits()
        limits.idleSessionSeconds = 0.3
        let h = try Harness(grace: 0, limits: limits)
        let relayed = try h.service.createSession(apiKey: Fixture.project.apiKey, relayed: true)
        let (a, _) = try h.join()
        usleep(600_000)
        #expect(h.service.hub.metrics().sessions == 2, "a session with a connection stays")
        #expect(h.request(a, .disconnect) == .ok)
        let start = Date()
        #expect(eventually(timeout: 10) { h.service.hub.metrics().sessions == 1 }, "the empty session was not removed")
        let waited = Date().timeIntervalSince(start)
        print("idle session removed after \(String(format: "%.2f", waited)) s (configured 0.3 s)")
        #expect(waited >= 0.25, "removed before its idle time")
        #expect(h.service.hub.perform { h.service.hub.sessions[relayed] != nil }, "a relayed session cannot be re-adopted as it was: kept")
        #expect(h.service.hub.metrics().idleSessionsRemoved == 1)
        // Its id stays valid: a client joining again adopts it.
        _ = try h.join()
        #expect(h.service.hub.metrics().sessions == 2)
    }

    @Test func mediaSocketsAreCappedRouterWide() throws {
        let sfu = try MediaRouter(host: "127.0.0.1")
        var configuration = Fixture.configuration()
        configuration.limits.mediaSockets = 3
        let service = RouterService(configuration: configuration, media: sfu)
        defer { service.stop() }
        let sessionId = try service.createSession(apiKey: Fixture.project.apiKey)
        let publisher = try SFUMembershipTests.Client(service, session: sessionId)
        let streamId = try publisher.publish().stream.streamId
        let viewer = try SFUMembershipTests.Client(service, session: sessionId, role: .subscriber)
        let first = try #require(viewer.subscribe(streamId))
        _ = try #require(viewer.subscribe(streamId))
        #expect(sfu.openSockets == 3)
        #expect(Self.sample(service, "otkit_media_sockets") == 3)
        #expect(Self.errorCode(viewer.request(.subscribe(SubscribeRequest(streamId: streamId)))) == 1605)
        let second = try SFUMembershipTests.Client(service, session: sessionId)
        #expect(Self.errorCode(second.request(.publish(Self.publishRequest))) == 1500)
        #expect(Self.sample(service, "otkit_limit_refusals_total{limit=\"media_sockets\"}") == 2)
        #expect(sfu.openSockets == 3, "a refused request opened nothing")
        // A closed leg frees its place (the forwarding thread closes it at its next wake-up).
        #expect(viewer.request(.unsubscribe(subscriberId: first.subscriberId)) == .ok)
        #expect(waitUntil(seconds: 10) { sfu.openSockets == 2 })
        #expect(viewer.subscribe(streamId) != nil)
    }

    @Test func limitsAreReadFromTheConfigurationFile() throws {
        let path = NSTemporaryDirectory() + "otkit-limits-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"limits": {"streamsPerConnection": 2, "subscriptionsPerConnection": 3, "connectionsPerAddress": 4, "signalsPerSecond": 5, "mediaSockets": 6, "idleSessionSeconds": 7.5, "pendingSDPOffers": 8}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let configuration = try RouterConfiguration.load(file: path, environment: ["OTKIT_API_KEY": "k", "OTKIT_API_SECRET": "s"])
        var expected = RouterLimits()
        (expected.streamsPerConnection, expected.subscriptionsPerConnection, expected.connectionsPerAddress) = (2, 3, 4)
        (expected.signalsPerSecond, expected.mediaSockets, expected.idleSessionSeconds) = (5, 6, 7.5)
        expected.pendingSDPOffers = 8
        #expect(configuration.limits == expected)
        try #"{"limits": {"signalsPerSecond": 0}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: RouterConfigurationError.self) {
            try RouterConfiguration.load(file: path, environment: ["OTKIT_API_KEY": "k", "OTKIT_API_SECRET": "s"])
        }
        try #"{"limits": {"signalsPerSecnd": 3}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try RouterConfiguration.load(file: path, environment: ["OTKIT_API_KEY": "k", "OTKIT_API_SECRET": "s"])
            Issue.record("a misspelt limit was accepted")
        } catch {
            #expect(error.field == "limits.signalsPerSecnd")
        }
    }

    @Test func addressKeysDropThePort() {
        #expect(SessionHub.addressKey("10.0.0.7:5000") == "10.0.0.7")
        #expect(SessionHub.addressKey("[2001:db8::1]:443") == "2001:db8::1")
        #expect(SessionHub.addressKey("2001:db8::1") == "2001:db8::1")
        #expect(SessionHub.addressKey("") == "")
    }
}
