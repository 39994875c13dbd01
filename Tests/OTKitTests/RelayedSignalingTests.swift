import Foundation
import OTMedia
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// Relayed sessions' signaling through the real router: a publisher's own media leg is
/// what each subscriber gets as its `media`; subscribers' preferences become one encoding
/// limit per stream for the publisher (the largest any subscriber wants, no limit while
/// any subscriber has none), re-evaluated when subscribers come, change and go; a leg
/// that cannot be used is refused with 1011 and counted; routed sessions ignore it.
@Suite(.serialized)
struct RelayedSignalingTests {
    static let project = ProjectCredentials(apiKey: "4731", apiSecret: "0123456789abcdef0123456789abcdef01234731")
    private let kit = SessionTestKit(project: Self.project)

    static let leg = WireMediaLeg(host: "127.0.0.1", port: 40_000, profile: "AEAD_AES_128_GCM",
                                  clientKey: SRTPKeyMaterial.random().base64, routerKey: SRTPKeyMaterial.random().base64,
                                  audioSSRC: 0x1111, videoSSRC: 0x2222)

    private func rawClient(_ router: Router, _ sessionId: String, _ role: Role) throws -> RawSignalingClient {
        let raw = try RawSignalingClient(url: router.signalingURL(sessionId: sessionId))
        let reply = raw.request(.connect(ConnectRequest(apiKey: Self.project.apiKey, token: try kit.token(sessionId, role))))
        guard case .connected = reply else {
            Issue.record("the raw client could not connect: \(String(describing: reply))")
            return raw
        }
        return raw
    }

    private func publishRequest(leg: WireMediaLeg?) -> PublishRequest {
        PublishRequest(name: "p2p", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                       videoWidth: 1280, videoHeight: 720, videoType: "camera", relayedLeg: leg)
    }

    /// A subscriber's leg: the publisher's address and SSRCs, with keys derived from the
    /// publisher's and the leg's receiver SSRC (what the publisher's pipeline derives),
    /// never the publisher's own.
    private func expectOwnKeys(_ media: WireMediaLeg?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let leg = try #require(media, sourceLocation: sourceLocation)
        let ssrc = try #require(leg.receiverSSRC, "a relayed subscriber leg names its receiver SSRC", sourceLocation: sourceLocation)
        #expect(leg.host == Self.leg.host && leg.port == Self.leg.port && leg.profile == Self.leg.profile
                && leg.audioSSRC == Self.leg.audioSSRC && leg.videoSSRC == Self.leg.videoSSRC, sourceLocation: sourceLocation)
        let profile = try #require(SRTPProfile(rfcName: leg.profile))
        let publisherKeys = SRTPLegKeys(send: try SRTPKeyMaterial(profile: profile, base64: Self.leg.routerKey ?? ""),
                                        receive: try SRTPKeyMaterial(profile: profile, base64: Self.leg.clientKey ?? ""))
        let own = publisherKeys.relayedReceiver(ssrc: ssrc)
        #expect(leg.routerKey == own.send.base64 && leg.clientKey == own.receive.base64, "derived keys", sourceLocation: sourceLocation)
        #expect(leg.routerKey != Self.leg.routerKey && leg.clientKey != Self.leg.clientKey, "not the publisher's own keys",
                sourceLocation: sourceLocation)
        #expect(ssrc != 0 && ssrc != leg.audioSSRC && ssrc != leg.videoSSRC && ssrc != RTPProbe.ssrc, sourceLocation: sourceLocation)
    }

    private func revocations(_ raw: RawSignalingClient) -> [RelayedReceiversRevoked] {
        raw.events.compactMap { if case .relayedReceiversRevoked(let r) = $0 { return r } else { return nil } }
    }

    private func limits(_ raw: RawSignalingClient) -> [EncodingPreferences] {
        raw.events.compactMap { if case .encodingPreferences(let p) = $0 { return p } else { return nil } }
    }

    private func subscribe(_ raw: RawSignalingClient, _ streamId: String) throws -> SubscribedReply {
        guard case .subscribed(let reply)? = raw.request(.subscribe(SubscribeRequest(streamId: streamId))) else {
            throw RelayedTestFailure("subscribe refused")
        }
        return reply
    }

    private func prefer(_ raw: RawSignalingClient, _ subscriberId: String, _ width: Int?, _ height: Int?, _ rate: Double?) {
        #expect(raw.request(.subscriberPreferences(SubscriberPreferences(subscriberId: subscriberId, preferredWidth: width,
                                                                          preferredHeight: height, preferredFrameRate: rate))) == .ok)
    }

    @Test func subscribersGetThePublishersLegAndItsLimitIsTheMostAnyoneWants() throws {
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey, relayed: true)
        let publisher = try rawClient(router, sessionId, .publisher)
        defer { publisher.close() }
        guard case .published(let published)? = publisher.request(.publish(publishRequest(leg: Self.leg))) else {
            Issue.record("publish refused"); return
        }
        #expect(published.media == nil, "a relayed session has no router leg")
        let streamId = published.stream.streamId

        let first = try rawClient(router, sessionId, .subscriber)
        defer { first.close() }
        let second = try rawClient(router, sessionId, .subscriber)
        let one = try subscribe(first, streamId)
        try expectOwnKeys(one.media)

        func expectLimits(_ expected: [EncodingPreferences], _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
            // The publisher's events arrive after the request that caused them was answered.
            let deadline = Date().addingTimeInterval(5)
            while limits(publisher).count < expected.count && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            Thread.sleep(forTimeInterval: 0.1)  // room for an unexpected extra one
            #expect(limits(publisher) == expected, comment, sourceLocation: sourceLocation)
        }
        func limit(_ w: Int?, _ h: Int?, _ r: Double?) -> EncodingPreferences {
            EncodingPreferences(streamId: streamId, maxWidth: w, maxHeight: h, maxFrameRate: r)
        }
        var expected: [EncodingPreferences] = []
        expectLimits(expected, "one subscriber without preferences: no limit, nothing sent")

        prefer(first, one.subscriberId, 320, 180, 15)
        expected.append(limit(320, 180, 15))
        expectLimits(expected, "the only subscriber's preference is the limit")

        let two = try subscribe(second, streamId)
        try expectOwnKeys(two.media)
        #expect(one.media?.receiverSSRC != two.media?.receiverSSRC, "one receiver SSRC per subscriber")
        #expect(one.media?.clientKey != two.media?.clientKey && one.media?.routerKey != two.media?.routerKey,
                "two subscribers of one stream get different keys")
        expected.append(limit(nil, nil, nil))
        expectLimits(expected, "a second subscriber without preferences lifts the limit")

        prefer(second, two.subscriberId, 640, 360, 7.5)
        expected.append(limit(640, 360, 15))
        expectLimits(expected, "the largest size and the highest rate anyone wants")

        prefer(second, two.subscriberId, 160, 90, nil)
        expected.append(limit(320, 180, nil))
        expectLimits(expected, "no frame-rate limit while one subscriber has no frame-rate preference")

        prefer(second, two.subscriberId, 160, 90, nil)
        expectLimits(expected, "the same preferences again change nothing")

        #expect(first.request(.unsubscribe(subscriberId: one.subscriberId)) == .ok)
        expected.append(limit(160, 90, nil))
        expectLimits(expected, "the first subscriber left: the second's preference is the limit")
        #expect(revocations(publisher) == [RelayedReceiversRevoked(streamId: streamId, receiverSSRCs: [one.media?.receiverSSRC ?? 0])],
                "the publisher drops the keys of a subscriber that unsubscribed")

        #expect(second.request(.disconnect) == .ok)
        second.close()
        expected.append(limit(nil, nil, nil))
        expectLimits(expected, "no subscriber left: no limit")
        #expect(revocations(publisher).last == RelayedReceiversRevoked(streamId: streamId, receiverSSRCs: [two.media?.receiverSSRC ?? 0]),
                "and of one that disconnected")
        #expect(revocations(publisher).count == 2)
    }

    @Test func anUnusableLegIsRefusedAndRoutedSessionsIgnoreIt() throws {
        let router = try kit.startRouter()
        defer { router.stop() }
        let relayed = try router.createSession(apiKey: Self.project.apiKey, relayed: true)
        let publisher = try rawClient(router, relayed, .publisher)
        defer { publisher.close() }
        let before = router.metrics.badMessages
        var bad = Self.leg
        bad.host = "media.example.com"
        guard case .error(let refused)? = publisher.request(.publish(publishRequest(leg: bad))) else {
            Issue.record("a leg with a host name was accepted"); return
        }
        #expect(refused.code == 1011 && refused.message.contains("not an IP address"))
        var badPort = Self.leg
        badPort.port = 70_000
        guard case .error(let refusedPort)? = publisher.request(.publish(publishRequest(leg: badPort))) else {
            Issue.record("a leg with port 70000 was accepted"); return
        }
        #expect(refusedPort.code == 1011 && refusedPort.message.contains("port 70000"))
        #expect(router.metrics.badMessages == before + 2, "both refused legs are counted")

        // Routed: the leg is ignored; subscribers get the router's leg.
        let routed = try router.createSession(apiKey: Self.project.apiKey)
        let routedPublisher = try rawClient(router, routed, .publisher)
        defer { routedPublisher.close() }
        guard case .published(let published)? = routedPublisher.request(.publish(publishRequest(leg: Self.leg))) else {
            Issue.record("routed publish refused"); return
        }
        let subscriber = try rawClient(router, routed, .subscriber)
        defer { subscriber.close() }
        let reply = try subscribe(subscriber, published.stream.streamId)
        #expect(reply.media != nil && reply.media != Self.leg, "routed subscribers get the router's own leg")
    }

    /// Addresses a client could use to aim its peers' media at a third party, each refused
    /// with 1011 and counted; plausible unicast addresses pass (loopback too: this client
    /// signals from loopback). `RelayedMediaAddressTests` covers loopback from elsewhere.
    @Test func anAnnouncedAddressThatIsNotPlainUnicastIsRefused() throws {
        let refusedCases: [(host: String, port: Int, reason: String)] = [
            ("239.1.2.3", 40_000, "multicast"), ("224.0.0.1", 40_000, "multicast"), ("ff02::1", 40_000, "multicast"),
            ("::ffff:239.1.2.3", 40_000, "multicast"), ("255.255.255.255", 40_000, "broadcast"),
            ("0.0.0.0", 40_000, "unspecified"), ("::", 40_000, "unspecified"), ("240.0.0.7", 40_000, "reserved"),
            ("127.0.0.1", 0, "port 0"), ("127.0.0.1", 53, "port 53"), ("127.0.0.1", -1, "port -1"),
            ("127.0.0.1", 65_536, "port 65536"), ("media.example.com", 40_000, "not an IP address"),
            ("10.0.0.1 ", 40_000, "not an IP address"),
        ]
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey, relayed: true)
        let publisher = try rawClient(router, sessionId, .publisher)
        defer { publisher.close() }
        for (host, port, reason) in refusedCases {
            let before = router.metrics.badMessages
            var bad = Self.leg
            bad.host = host
            bad.port = port
            guard case .error(let refused)? = publisher.request(.publish(publishRequest(leg: bad))) else {
                Issue.record("\(host):\(port) was accepted"); continue
            }
            #expect(refused.code == 1011 && refused.message.contains(reason), "\(host):\(port): \(refused)")
            #expect(router.metrics.badMessages == before + 1, "the refusal of \(host):\(port) is counted")
        }
        for good in ["127.0.0.1", "192.0.2.10", "2001:db8::1"] {
            var leg = Self.leg
            leg.host = good
            guard case .published(let published)? = publisher.request(.publish(publishRequest(leg: leg))) else {
                Issue.record("\(good) was refused"); continue
            }
            #expect(publisher.request(.unpublish(streamId: published.stream.streamId)) == .ok)
        }
    }
}

struct RelayedTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
