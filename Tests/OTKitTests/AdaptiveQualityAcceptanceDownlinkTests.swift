import Foundation
import OTMedia
import OTSignaling
import Testing
@testable import OTKit

/// Issue 5, acceptance 2: one subscriber's downlink capped at 250 kbps while a second has
/// none. The router adapts per subscriber: the capped one gets a lower layer (fewer
/// frames or a smaller picture, and fewer bytes), the other keeps full quality, and the
/// publisher is not dragged down.
@Suite(.serialized)
struct AdaptiveQualityAcceptanceDownlinkTests {
    static let project = ProjectCredentials(apiKey: "4752", apiSecret: "0123456789abcdef0123456789abcdef01234752")

    @Test func aCappedSubscriberGetsALowerLayerWhileTheOtherKeepsFullQuality() throws {
        try AudioDeviceTestLock.run { try body() }
    }

    private func body() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let rig = try AcceptanceRig(project: Self.project)
        defer { rig.stop() }
        let a = try rig.join(impaired: false)
        let (publisher, streamId) = try rig.kit.publishPattern(a.session, a.recorder, width: 640, height: 360, fps: 30)
        let pipeline = try #require(publisher.lock.withLock { publisher.pipeline })
        let capped = try rig.join(impaired: true, role: .subscriber)
        let free = try rig.join(impaired: false, role: .subscriber)
        let (cappedSubscriber, cappedRender) = try rig.subscribe(capped, to: streamId)
        let (freeSubscriber, freeRender) = try rig.subscribe(free, to: streamId)
        let cappedId = try #require(cappedSubscriber.lock.withLock { cappedSubscriber.subscriberId })
        let proxies = try #require(capped.proxies)

        #expect(poll(20) { cappedRender.seen.count >= 60 && freeRender.seen.count >= 60 }, "both decode")
        Thread.sleep(forTimeInterval: 3)
        func publisherBytes() -> UInt64 { pipeline.videoCounters.snapshot().bytes }
        let baselineWindow = CounterWindow([publisherBytes()])
        Thread.sleep(forTimeInterval: 3)
        let baseline = baselineWindow.bitrates([publisherBytes()])[0]
        let original = try #require(pipeline.currentVideoEncoding)

        proxies.setImpairment(ImpairmentSettings(bandwidthBitsPerSecond: 250_000, queueLimitBytes: 32_000), for: .reverse)
        let lowered = poll(20) {
            guard let status = rig.media.status(subscriberId: cappedId) else { return false }
            return status.spatialLayer == 0 || status.temporalLayer < 2
        }
        #expect(lowered, "the capped leg comes down a layer: \(String(describing: rig.media.status(subscriberId: cappedId)))")
        Thread.sleep(forTimeInterval: 2)

        func bytes() -> [UInt64] {
            [cappedSubscriber.counters?.video.bytes ?? 0, freeSubscriber.counters?.video.bytes ?? 0, publisherBytes()]
        }
        let windowStart = Date()
        let window = CounterWindow(bytes())
        Thread.sleep(forTimeInterval: 5)
        let rates = window.bitrates(bytes())
        let seconds = Date().timeIntervalSince(windowStart)
        let cappedFrames = cappedRender.rendered(since: windowStart), freeFrames = freeRender.rendered(since: windowStart)
        let cappedFps = Double(cappedFrames.count) / seconds, freeFps = Double(freeFrames.count) / seconds
        let cappedWidest = cappedFrames.map(\.width).max() ?? 0
        let status = try #require(rig.media.status(subscriberId: cappedId))
        let encoding = try #require(pipeline.currentVideoEncoding)
        let report = "capped \(Int(rates[0])) bps \(String(format: "%.1f", cappedFps)) fps ≤\(cappedWidest) wide (\(status)); " +
            "free \(Int(rates[1])) bps \(String(format: "%.1f", freeFps)) fps; publisher \(Int(rates[2])) bps (before \(Int(baseline))), " +
            "encoding \(encoding.width)x\(encoding.height)@\(encoding.frameRate)"
        print("AdaptiveQualityAcceptance downlink:", report)
        #expect(freeFps >= 24 && freeFrames.allSatisfy { $0.width == 640 && $0.height == 360 }, "the free one keeps full quality: \(report)")
        #expect(cappedFps <= 0.75 * freeFps || cappedWidest < 640, "the capped one gets fewer frames or a smaller picture: \(report)")
        #expect(cappedFps >= 3, "and still decodes: \(report)")
        #expect(rates[0] < 0.7 * rates[1] && rates[0] <= 250_000, "and fewer bytes, under its cap: \(report)")
        #expect(rates[2] >= 0.7 * baseline, "the publisher is not dragged down: \(report)")
        #expect(encoding.width == original.width && encoding.frameRate == original.frameRate, "its full encoding stays: \(report)")
        #expect(FrameGaps.largestStep(freeFrames.map(\.number)) <= 2, "the free subscriber misses nothing: \(report)")
    }
}
