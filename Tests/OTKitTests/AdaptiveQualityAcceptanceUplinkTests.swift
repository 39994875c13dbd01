import Foundation
import OTMedia
import OTSignaling
import Testing
@testable import OTKit

/// Issue 5, acceptance 1: the publisher's uplink capped at 300 kbps (the forward
/// direction of its media proxy). Within 10 s what it sends fits under the cap, the
/// subscriber keeps decoding (after the first 10 s no gap over 1 s of media time), and
/// the publisher encodes a smaller picture or fewer frames; once the cap is lifted it is
/// back at its original size and rate within 20 s.
@Suite(.serialized)
struct AdaptiveQualityAcceptanceUplinkTests {
    static let project = ProjectCredentials(apiKey: "4751", apiSecret: "0123456789abcdef0123456789abcdef01234751")
    static let cap: UInt64 = 300_000

    @Test func aCappedUplinkFitsUnderTheCapKeepsDecodingAndRecovers() throws {
        try AudioDeviceTestLock.run { try body() }
    }

    private func body() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let rig = try AcceptanceRig(project: Self.project)
        defer { rig.stop() }
        let a = try rig.join(impaired: true)
        let (publisher, streamId) = try rig.kit.publishPattern(a.session, a.recorder, width: 640, height: 360, fps: 30)
        let pipeline = try #require(publisher.lock.withLock { publisher.pipeline })
        let proxies = try #require(a.proxies)
        let b = try rig.join(impaired: false, role: .subscriber)
        let (_, render) = try rig.subscribe(b, to: streamId)

        #expect(poll(20) { render.seen.count >= 60 }, "B decodes: \(render.seen.count)")
        let original = try #require(pipeline.currentVideoEncoding)
        #expect(original.width == 640 && original.height == 360 && original.frameRate == 30, "\(original)")
        let uncapped = CounterWindow([proxies.bytesReceived(.forward)])
        Thread.sleep(forTimeInterval: 2)
        let before = uncapped.bitrates([proxies.bytesReceived(.forward)])[0]

        // The cap: a 300 kbps bottleneck with about 0.85 s of queue.
        proxies.setImpairment(ImpairmentSettings(bandwidthBitsPerSecond: Self.cap, queueLimitBytes: 32_000), for: .forward)
        let cappedAt = Date()
        let sent = RollingRate { proxies.bytesReceived(.forward) }
        sent.sample()
        var fitAfter: Double?
        while Date().timeIntervalSince(cappedAt) < 10 {
            Thread.sleep(forTimeInterval: 0.5)
            sent.sample()
            if fitAfter == nil, let rate = sent.bitrate(over: 2.5), rate <= 1.1 * Double(Self.cap) {
                fitAfter = Date().timeIntervalSince(cappedAt)
            }
        }
        let rateAt10 = sent.bitrate(over: 2.5) ?? 0
        #expect(fitAfter != nil, "sent rate over 2.5 s fits under 1.1 × 300 kbps within 10 s: \(Int(rateAt10)) bps at 10 s (before the cap \(Int(before)))")

        // After the first 10 s: 8 s of steady capped operation.
        let steadyFrom = Date()
        let steady = CounterWindow([proxies.bytesReceived(.forward), pipeline.videoCounters.snapshot().frames])
        Thread.sleep(forTimeInterval: 8)
        let steadyRates = steady.rates([proxies.bytesReceived(.forward), pipeline.videoCounters.snapshot().frames])
        let steadyBitrate = steadyRates[0] * 8
        let lastBefore = render.rendered.last { $0.at < steadyFrom }
        let numbers = (lastBefore.map { [$0.number] } ?? []) + render.rendered(since: steadyFrom).map(\.number)
        let step = FrameGaps.largestStep(numbers)
        let capped = try #require(pipeline.currentVideoEncoding)
        let counters = pipeline.transportCounters.snapshot()
        let report = "fit after \(fitAfter.map { String(format: "%.1f s", $0) } ?? "never"); steady \(Int(steadyBitrate)) bps " +
            "(before \(Int(before))), \(numbers.count) frames decoded in 8 s, largest step \(step) frames, " +
            "encoding \(capped.width)x\(capped.height)@\(capped.frameRate) \(capped.bitrate) bps, " +
            "estimate \(counters.estimateBitsPerSecond) target \(counters.videoTargetBitsPerSecond), encodings \(pipeline.currentVideoEncodings.map { "\($0.width)x\($0.height)@\($0.frameRate) on=\($0.isActive)" })"
        print("AdaptiveQualityAcceptance uplink:", report)
        #expect(steadyBitrate <= 1.1 * Double(Self.cap), "stays under the cap: \(report)")
        #expect(numbers.count >= 8 * 5, "the subscriber keeps decoding: \(report)")
        #expect(step <= 30, "no gap over 1 s (30 frames) of media time: \(report)")
        #expect(capped.width * capped.height < original.width * original.height || capped.frameRate < original.frameRate,
                "a smaller picture or fewer frames: \(report)")

        // Lift the cap: back to the original size and rate within 20 s.
        proxies.setImpairment(ImpairmentSettings(), for: .forward)
        let liftedAt = Date()
        let recovered = poll(20) {
            guard let now = pipeline.currentVideoEncoding else { return false }
            return now.width == original.width && now.height == original.height && now.frameRate == original.frameRate
        }
        let after = pipeline.currentVideoEncoding
        print("AdaptiveQualityAcceptance uplink: recovered=\(recovered) after \(String(format: "%.1f", Date().timeIntervalSince(liftedAt))) s, estimate \(pipeline.bandwidthEstimate)")
        #expect(recovered, "back to \(original.width)x\(original.height)@\(original.frameRate) within 20 s: \(String(describing: after)), estimate \(pipeline.bandwidthEstimate)")
        let seen = render.seen.count
        #expect(poll(5) { render.seen.count >= seen + 30 }, "B still decodes")
    }
}
