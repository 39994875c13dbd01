import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// OTKit in a relayed session with the real router: the publisher binds its own socket
/// and announces it (address, keys, SSRCs); the subscriber's pipeline is set up from that
/// leg (its RTCP goes to the publisher, its keys mirror the publisher's); the subscriber's
/// preferences come back to the publisher as an encoding limit; media flows peer to peer
/// (the publisher pipeline's relayed fan-out learns the subscriber from its RTCP).
@Suite(.serialized)
struct RelayedMediaPathTests {
    static let project = ProjectCredentials(apiKey: "4733", apiSecret: "0123456789abcdef0123456789abcdef01234733")
    private let kit = SessionTestKit(project: Self.project)

    @Test func theSubscriberIsSetUpFromThePublishersOwnLegMediaFlowsAndItsPreferencesLimitTheEncoder() throws {
        try AudioDeviceTestLock.run { try body() }
    }

    private func body() throws {
        let device = ToneLoopDevice(frequency: 440)
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey, relayed: true)

        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let (publisher, streamId) = try kit.publishPattern(sessionA, a, width: 160, height: 120, fps: 30)
        let publisherPipeline = try #require(publisher.lock.withLock { publisher.pipeline }, "the relayed publisher runs its own pipeline")

        let b = DelegateRecorder()
        let sessionB = try kit.joinSeeing(streamId, router, sessionId, b)
        let (subscriber, render) = try kit.subscribeReadingFrameNumbers(sessionB, b, try #require(sessionB.streams[streamId]))
        let subscriberPipeline = try #require(subscriber.lock.withLock { subscriber.pipeline })

        // The subscriber talks to the publisher's socket, with keys of its own (derived from
        // the publisher's and its receiver SSRC) and the publisher's SSRCs.
        let sub = subscriberPipeline.configuration
        let pub = publisherPipeline.configuration
        #expect(sub.feedbackDestination == SocketAddress(ipv4: "127.0.0.1", port: publisherPipeline.localAddress.port))
        let own = try #require(pub.keys?.relayedReceiver(ssrc: sub.ssrc))
        #expect(sub.keys?.send == own.receive, "the subscriber's RTCP key is derived from the publisher's receive key")
        #expect(sub.keys?.receive == own.send, "the subscriber's media key is derived from the publisher's send key")
        #expect(sub.keys?.receive != pub.keys?.send && sub.keys?.send != pub.keys?.receive, "never the publisher's own keys")
        #expect(pub.keys?.send.keyAndSalt != pub.keys?.receive.keyAndSalt, "fresh keys per direction")
        #expect(sub.videoStream?.ssrc == pub.videoStream.ssrc && sub.audioStream?.ssrc == pub.audioStream.ssrc)
        #expect(pub.videoStream.ssrc != pub.audioStream.ssrc && pub.videoStream.ssrc != RTPProbe.ssrc)

        // Preferences become the publisher's encoding limit (the router's aggregation).
        subscriber.preferredResolution = OTVideoDimensions(width: 320, height: 180)
        subscriber.preferredFrameRate = 7.5
        let limit = EncodingPreferences(streamId: streamId, maxWidth: 320, maxHeight: 180, maxFrameRate: 7.5)
        #expect(a.wait { _ in publisher.lock.withLock { publisher.lastEncodingPreferences } == limit },
                "got \(String(describing: publisher.lock.withLock { publisher.lastEncodingPreferences }))")

        // A second subscriber: keys of its own, both get the stream (one copy each).
        let c = DelegateRecorder()
        let sessionC = try kit.joinSeeing(streamId, router, sessionId, c)
        let (second, secondRender) = try kit.subscribeReadingFrameNumbers(sessionC, c, try #require(sessionC.streams[streamId]))
        let secondKeys = try #require(second.lock.withLock { second.pipeline }?.configuration.keys)
        #expect(secondKeys.receive != sub.keys?.receive && secondKeys.send != sub.keys?.send, "two subscribers, two sets of keys")
        #expect(c.wait(20) { _ in secondRender.seen.count >= 15 }, "the second subscriber decodes: \(secondRender.seen.count)")
        #expect(a.wait { _ in publisherPipeline.transportCounters.snapshot().relayedDestinations == 2 })
        sessionC.disconnect()
        #expect(c.wait { $0.last == "didDisconnect" })
        // The router revokes its keys at the publisher, whose pipeline stops sending to it.
        #expect(a.wait { _ in sessionA.log.lines().contains { $0.hasSuffix("relayed receivers revoked: 1") } },
                "the publisher is told the second subscriber's keys are void")
        #expect(a.wait { _ in publisherPipeline.transportCounters.snapshot().relayedDestinations == 1 })

        #expect(b.wait(20) { _ in render.seen.count >= 15 }, "frames arrive peer to peer: \(render.seen.count)")
        #expect(b.wait(20) { _ in (subscriber.counters?.audio.packets ?? 0) >= 50 }, "audio arrives peer to peer")
        let numbers = render.seen
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "frame numbers increase")

        sessionB.disconnect()
        sessionA.disconnect()
        #expect(b.wait { $0.last == "didDisconnect" })
        #expect(a.wait { $0.last == "didDisconnect" })
    }
}
