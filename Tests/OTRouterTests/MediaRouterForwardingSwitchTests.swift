import Foundation
import OTMedia
import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// `MediaRouter.setForwarding` (a subscriber's subscribeToAudio / subscribeToVideo) with
/// real pipelines on 127.0.0.1: a kind turned off stops reaching that leg only, and
/// turned back on it resumes at once (a keyframe) without looking like loss.
@Suite(.serialized) struct MediaRouterForwardingSwitchTests {
    @Test func videoOffForOneSubscriberStopsItsVideoOnlyAndResumesWithoutLoss() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        let legA = try router.addAVSubscriber("a")
        let legB = try router.addAVSubscriber("b")
        // c subscribes with video off: its leg still carries video, so it can turn it on later.
        let legC = try router.addSubscriber(subscriberId: "c", streamId: "s1", audio: true, video: false)
        #expect(legC.videoSSRC != nil && legC.audioSSRC != nil, "a leg carries every kind the stream has")
        let a = try TestSubscriber(leg: legA)
        let b = try TestSubscriber(leg: legB)
        let c = try TestSubscriber(leg: legC)
        let publisher = try TestPublisher(leg: publisherLeg)
        defer { publisher.stop(); a.stop(); b.stop(); c.stop() }

        let warmUp = publisher.framesSent(0..<60)
        #expect(waitForDelivery(of: warmUp, to: a, b), "both subscribers decode before the switch")
        #expect(c.pipeline.videoCounters.snapshot().packets == 0, "c asked for no video")
        #expect(c.pipeline.audioCounters.snapshot().packets > 0, "c gets audio")

        router.setForwarding(subscriberId: "b", audio: true, video: false)
        Thread.sleep(forTimeInterval: 0.3)  // the frame in progress ends, packets in flight land
        let bVideo = b.pipeline.videoCounters.snapshot().packets
        let bAudio = b.pipeline.audioCounters.snapshot().packets
        let aVideo = a.pipeline.videoCounters.snapshot().packets
        let lostBefore = b.pipeline.videoCounters.snapshot().packetsLost
        let keyframeRequestsBefore = try #require(router.counters(streamId: "s1")).keyframeRequests
        let during = publisher.framesSent(publisher.sent.count..<(publisher.sent.count + 45))
        #expect(waitForDelivery(of: during, to: a), "a keeps decoding")
        #expect(b.pipeline.videoCounters.snapshot().packets == bVideo, "b received no video while it was off")
        #expect(a.pipeline.videoCounters.snapshot().packets > aVideo + 30, "a's video kept flowing")
        #expect(b.pipeline.audioCounters.snapshot().packets > bAudio + 30, "b's audio kept flowing")
        #expect(b.decoded.share(of: during) == 0, "b decoded nothing sent while its video was off")

        router.setForwarding(subscriberId: "b", audio: true, video: true)
        router.setForwarding(subscriberId: "c", audio: true, video: true)
        let resumed = publisher.framesSent(publisher.sent.count..<(publisher.sent.count + 60))
        let tail = Array(resumed.suffix(30))
        #expect(waitUntil(seconds: 5) { b.decoded.share(of: tail) >= 0.9 && c.decoded.share(of: tail) >= 0.9 },
                "b \(b.decoded.share(of: tail)), c \(c.decoded.share(of: tail)) of the frames after the switch")
        let counters = try #require(router.counters(streamId: "s1"))
        #expect(counters.keyframeRequests > keyframeRequestsBefore, "video back on asked the publisher for a keyframe")
        #expect(b.decoded.numbersIncrease && c.decoded.numbersIncrease)
        #expect(b.decoded.unreadableFrames == 0)
        let lostAfter = b.pipeline.videoCounters.snapshot().packetsLost
        #expect(lostAfter - lostBefore <= 2, "the pause is not reported as loss: \(lostBefore) → \(lostAfter)")
        #expect(c.pipeline.videoCounters.snapshot().packetsLost <= 2, "c's first video is not loss either")
        #expect(counters.reportedPacketsLost <= 4, "the subscribers' reports show no burst of loss: \(counters)")
        router.removePublisher(streamId: "s1")
    }

    @Test func unknownSubscriberIdsAreIgnored() throws {
        let router = try MediaRouter()
        router.setForwarding(subscriberId: "nobody", audio: false, video: false)
        _ = try router.addAVPublisher()
        let leg = try router.addAVSubscriber("a")
        router.setForwarding(subscriberId: "nobody", audio: false, video: false)
        #expect(leg.videoSSRC != nil)
        router.removePublisher(streamId: "s1")
        router.setForwarding(subscriberId: "a", audio: false, video: false)  // gone with its stream: harmless
    }
}
