import Foundation
import OTMedia
import OTSignaling
import Testing
@testable import OTKit

/// Issue 17, acceptance: the router still does its job on end-to-end encrypted media.
/// A 320x180 publisher (temporal layers) in an e2ee session, the subscriber's media leg
/// under 5 % loss and 100 ± 20 ms of delay both ways (the loss acceptance test's set-up
/// and impairment): ≥ 95 % of frames decoded over 8 s (NACK answers and keyframe requests
/// work on sealed frames); then, still under loss, the router switches the subscriber
/// down to the base temporal layer on its preferred frame rate and back up when it is
/// lifted (layer selection reads only the descriptor and the clear frame tag), and every
/// frame still verifies.
@Suite(.serialized)
struct E2EELayersAndLossTests {
    static let project = ProjectCredentials(apiKey: "4720", apiSecret: "0123456789abcdef0123456789abcdef01234720")
    static let lossy = ImpairmentSettings(lossProbability: 0.05, delayNanoseconds: 80_000_000, jitterNanoseconds: 40_000_000)

    @Test func layerSwitchingAndNACKRecoveryUnderLoss() throws {
        try AudioDeviceTestLock.run { try body() }
    }

    private func body() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let rig = try AcceptanceRig(project: Self.project, e2ee: true)
        defer { rig.stop() }
        let a = try rig.join(impaired: false)
        let b = try rig.join(impaired: true, role: .subscriber)
        for participant in [a, b] { try participant.session.setEncryptionSecret("layers and losses") }
        #expect(poll(20) { a.session.encryptionKeys.hasKey && b.session.encryptionKeys.hasKey })
        let (publisher, streamId) = try rig.kit.publishPattern(a.session, a.recorder, width: 320, height: 180, fps: 30)
        let pipeline = try #require(publisher.lock.withLock { publisher.pipeline })
        let proxies = try #require(b.proxies)
        proxies.setImpairment(Self.lossy, for: .forward)
        proxies.setImpairment(Self.lossy, for: .reverse)
        let (subscriber, render) = try rig.subscribe(b, to: streamId)
        let subscriberId = try #require(subscriber.lock.withLock { subscriber.subscriberId })
        #expect(poll(20) { render.seen.count >= 60 }, "B decodes")
        Thread.sleep(forTimeInterval: 2)

        let start = Date()
        Thread.sleep(forTimeInterval: 8)
        let lastBefore = render.rendered.last { $0.at < start }
        let numbers = (lastBefore.map { [$0.number] } ?? []) + render.rendered(since: start).map(\.number)
        let share = FrameGaps.decodedShare(numbers)
        let leg = rig.media.status(subscriberId: subscriberId)
        let video = subscriber.counters?.video
        let receiving = try #require(subscriber.lock.withLock { subscriber.pipeline })
        let dropped = proxies.all.map { ($0.counters(for: .forward).droppedByLoss, $0.counters(for: .reverse).droppedByLoss) }
        let report = "\(numbers.count) frames, \(String(format: "%.2f", share * 100)) % decoded, lost \(video?.packetsLost ?? -1) " +
            "nacks \(video?.nacks ?? 0) keyframe requests \(video?.keyframeRequests ?? 0), proxy drops \(dropped), " +
            "frames that did not verify \(receiving.decryption.framesFailed), unreadable \(render.unreadableFrames), " +
            "decimated \(pipeline.videoFramesDecimated), leg TL\(leg?.temporalLayer ?? -1) dropped for layer \(leg?.framesDropped ?? 0)"
        print("E2EE layers and loss:", report)
        #expect(dropped.contains { $0.0 > 0 && $0.1 > 0 }, "the proxy drops packets both ways: \(report)")
        #expect((video?.nacks ?? 0) > 0, "losses were NACKed: \(report)")
        #expect(share >= 0.95, "≥ 95 % decoded: \(report)")
        #expect(receiving.decryption.framesFailed == 0 && render.unreadableFrames == 0, "every frame verified: \(report)")

        // Down to the base temporal layer, then back up, still under loss.
        subscriber.preferredFrameRate = 7.5
        let down = poll(15) { rig.media.status(subscriberId: subscriberId)?.temporalLayer == 0 }
        #expect(down, "switched to TL0: \(String(describing: rig.media.status(subscriberId: subscriberId)))")
        Thread.sleep(forTimeInterval: 1)
        let slow = Date()
        Thread.sleep(forTimeInterval: 2)
        let slowFrames = render.rendered(since: slow).count
        subscriber.preferredFrameRate = 0
        let up = poll(15) { (rig.media.status(subscriberId: subscriberId)?.temporalLayer ?? 0) > 0 }
        #expect(up, "back on every layer: \(String(describing: rig.media.status(subscriberId: subscriberId)))")
        Thread.sleep(forTimeInterval: 1)
        let fast = Date()
        Thread.sleep(forTimeInterval: 2)
        let fastFrames = render.rendered(since: fast).count
        print("E2EE layers and loss: \(slowFrames) frames in 2 s on TL0, \(fastFrames) in 2 s on every layer")
        #expect(slowFrames > 0 && slowFrames <= 24, "about 7.5 fps on TL0: \(slowFrames) in 2 s")
        #expect(fastFrames >= 40, "the full rate again: \(fastFrames) in 2 s")
        #expect(receiving.decryption.framesFailed == 0 && render.unreadableFrames == 0)
    }
}
