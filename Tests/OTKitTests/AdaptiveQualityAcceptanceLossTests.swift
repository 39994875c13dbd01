import Foundation
import OTMedia
import OTSignaling
import Testing
@testable import OTKit

/// Issue 5, acceptance 5: 5 % random loss and 100 ms ± 20 ms of delay together, in both
/// directions of one media leg (the publisher's, then the subscriber's): at least 98 %
/// of the frames decoded (by frame numbers over a 10 s window) and no frozen period over
/// 1 s of media time. Prints the router's upstream NACKs and repairs and the leg's layer
/// state (docs/adapt.md has the fixes this needed).
@Suite(.serialized)
struct AdaptiveQualityAcceptanceLossTests {
    static let project = ProjectCredentials(apiKey: "4755", apiSecret: "0123456789abcdef0123456789abcdef01234755")
    /// 5 % loss, 80 ms + 0...40 ms (100 ± 20 ms), seeded per proxy.
    static let lossy = ImpairmentSettings(lossProbability: 0.05, delayNanoseconds: 80_000_000, jitterNanoseconds: 40_000_000)

    @Test(arguments: ["publisher", "subscriber"])
    func lossAndDelayKeepNearlyEveryFrame(_ impairedLeg: String) throws {
        try AudioDeviceTestLock.run { try body(impairedLeg) }
    }

    private func body(_ impairedLeg: String) throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let rig = try AcceptanceRig(project: Self.project)
        defer { rig.stop() }
        let a = try rig.join(impaired: impairedLeg == "publisher")
        let (publisher, streamId) = try rig.kit.publishPattern(a.session, a.recorder, width: 320, height: 180, fps: 30)
        let pipeline = try #require(publisher.lock.withLock { publisher.pipeline })
        let b = try rig.join(impaired: impairedLeg == "subscriber", role: .subscriber)
        let proxies = try #require(impairedLeg == "publisher" ? a.proxies : b.proxies)
        proxies.setImpairment(Self.lossy, for: .forward)
        proxies.setImpairment(Self.lossy, for: .reverse)
        let (subscriber, render) = try rig.subscribe(b, to: streamId)
        #expect(poll(20) { render.seen.count >= 60 }, "B decodes")
        Thread.sleep(forTimeInterval: 3)

        let start = Date()
        let decimated = pipeline.videoFramesDecimated
        Thread.sleep(forTimeInterval: 10)
        let lastBefore = render.rendered.last { $0.at < start }
        let numbers = (lastBefore.map { [$0.number] } ?? []) + render.rendered(since: start).map(\.number)
        let share = FrameGaps.decodedShare(numbers), step = FrameGaps.largestStep(numbers)
        let video = subscriber.counters?.video
        let dropped = proxies.all.map { ($0.counters(for: .forward).droppedByLoss, $0.counters(for: .reverse).droppedByLoss) }
        let report = "\(impairedLeg) leg: \(numbers.count) frames, \(String(format: "%.2f", share * 100)) % decoded, largest step \(step), " +
            "unreadable \(render.unreadableFrames), decimated \(pipeline.videoFramesDecimated - decimated), encoding \(String(describing: pipeline.currentVideoEncoding)), " +
            "subscriber lost \(video?.packetsLost ?? -1) nacks \(video?.nacks ?? 0) keyframe requests \(video?.keyframeRequests ?? 0), proxy loss drops \(dropped)"
        let routed = rig.media.counters(streamId: streamId)
        let leg = subscriber.lock.withLock { subscriber.subscriberId }.flatMap { rig.media.status(subscriberId: $0) }
        print("AdaptiveQualityAcceptance loss:", report, "router upstream NACKs \(routed?.upstreamNACKs ?? 0) repaired " +
              "\(routed?.upstreamRepaired ?? 0) resent \(routed?.retransmissions ?? 0) PLIs \(routed?.keyframeRequests ?? 0), " +
              "leg: TL\(leg?.temporalLayer ?? -1) frames dropped for their layer \(leg?.framesDropped ?? 0) estimate \(leg?.estimatedBitrate ?? 0)")
        #expect(dropped.contains { $0.0 > 0 && $0.1 > 0 }, "the proxy does drop packets both ways: \(report)")
        #expect(share >= 0.98, "at least 98 % of the frames decoded: \(report)")
        #expect(step <= 30, "no frozen period over 1 s (30 frames): \(report)")
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "in order")
    }
}
