import OTMedia
import OTNet
@testable import OTRouter
import OTSignaling
import Testing

/// The signaling plane on the real SFU (MediaRouter): legs are real sockets with keys.
@Suite(.serialized) struct SignalingWithSFUTests {
    @Test func publishSubscribeMuteUnpublishOnRealLegs() throws {
        let sfu = try MediaRouter(host: "127.0.0.1")
        let service = RouterService(configuration: Fixture.configuration(), media: sfu)
        defer { service.stop() }
        let sessionId = try service.createSession(apiKey: Fixture.project.apiKey)
        func join(_ role: Role) throws -> FakePeer {
            let peer = FakePeer()
            service.webSocketOpened(peer, path: "/v1/session/\(sessionId)/ws", query: [])
            let token = try OpenTokToken.generate(sessionID: sessionId, credentials: Fixture.project, role: role)
            service.webSocketReceived(peer, text: SignalingCodec.encode(.connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token)), requestId: 1))
            return peer
        }
        let publisher = try join(.moderator), viewer = try join(.subscriber)
        service.webSocketReceived(publisher, text: SignalingCodec.encode(.publish(PublishRequest(
            name: "cam", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true, videoWidth: 320, videoHeight: 240,
            videoType: "camera")), requestId: 2))
        guard case .published(let published)? = publisher.reply(to: 2), let leg = published.media else {
            Issue.record("no publisher leg"); return
        }
        #expect(leg.host == "127.0.0.1" && leg.port > 0 && leg.audioSSRC != nil && leg.videoSSRC != nil && leg.clientKey != leg.routerKey)
        service.webSocketReceived(viewer, text: SignalingCodec.encode(.subscribe(SubscribeRequest(streamId: published.stream.streamId)), requestId: 2))
        guard case .subscribed(let subscribed)? = viewer.reply(to: 2), let subscriberLeg = subscribed.media else {
            Issue.record("no subscriber leg"); return
        }
        #expect(subscriberLeg.port > 0 && subscriberLeg.port != leg.port)
        #expect(sfu.counters(streamId: published.stream.streamId) != nil)
        service.webSocketReceived(publisher, text: SignalingCodec.encode(.forceMuteStream(streamId: published.stream.streamId), requestId: 3))
        #expect(publisher.reply(to: 3) == .ok)
        service.webSocketReceived(publisher, text: SignalingCodec.encode(.unpublish(streamId: published.stream.streamId), requestId: 4))
        #expect(publisher.reply(to: 4) == .ok)
        #expect(sfu.counters(streamId: published.stream.streamId) == nil)
        #expect(viewer.events.contains(.streamDestroyed(streamId: published.stream.streamId, reason: "unpublished")))
    }
}
