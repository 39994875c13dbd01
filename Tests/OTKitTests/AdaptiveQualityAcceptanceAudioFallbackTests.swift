import Foundation
import OTMedia
import OTSignaling
import Testing
@testable import OTKit

/// Issue 5, acceptance 3: audio fallback end to end. A subscriber's downlink at 60 kbps:
/// the warning, then `subscriberVideoDisabled(.qualityChanged)` within 10 s while audio
/// keeps playing (packets arrive, the tone is heard); lifted, `subscriberVideoEnabled`
/// within 15 s. The publisher's side with `publisherAudioFallbackEnabled` and its own
/// uplink at 60 kbps: its warning, disabled (no frame encoded while off), enabled.
@Suite(.serialized)
struct AdaptiveQualityAcceptanceAudioFallbackTests {
    static let project = ProjectCredentials(apiKey: "4753", apiSecret: "0123456789abcdef0123456789abcdef01234753")
    static let starved = ImpairmentSettings(bandwidthBitsPerSecond: 60_000, queueLimitBytes: 8_000)

    @Test func aStarvedDownlinkFallsBackToAudioAndComesBack() throws {
        try AudioDeviceTestLock.run { try subscriberSide() }
    }

    @Test func aStarvedUplinkStopsEncodingVideoAndComesBack() throws {
        try AudioDeviceTestLock.run { try publisherSide() }
    }

    private func subscriberSide() throws {
        let device = ToneLoopDevice(frequency: 440)
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        let rig = try AcceptanceRig(project: Self.project)
        defer { rig.stop() }
        let a = try rig.join(impaired: false)
        let (_, streamId) = try rig.kit.publishPattern(a.session, a.recorder, width: 320, height: 180, fps: 30)
        let b = try rig.join(impaired: true, role: .subscriber)
        let (subscriber, render) = try rig.subscribe(b, to: streamId)
        let subscriberId = try #require(subscriber.lock.withLock { subscriber.subscriberId })
        let proxies = try #require(b.proxies)
        #expect(poll(20) { render.seen.count >= 60 }, "B decodes")

        proxies.setImpairment(Self.starved, for: .reverse)
        let cappedAt = Date()
        let disabled = b.recorder.wait(10) { $0.contains("subscriber videoDisabled 3") }
        let fallback = { b.recorder.calls.filter { $0.hasPrefix("subscriber video") } }
        print("AdaptiveQualityAcceptance subscriber fallback: disabled \(String(format: "%.1f", Date().timeIntervalSince(cappedAt))) s after the cap")
        #expect(disabled, "video off within 10 s: \(fallback()) \(String(describing: rig.media.status(subscriberId: subscriberId)))")
        if !disabled { #expect(b.recorder.wait(30) { $0.contains("subscriber videoDisabled 3") }, "at all: \(fallback())") }
        #expect(Array(fallback().prefix(2)) == ["subscriber videoDisableWarning", "subscriber videoDisabled 3"], "the warning comes first")

        // While video is off: audio arrives and plays the publisher's tone; video does not.
        Thread.sleep(forTimeInterval: 1)
        let before = try #require(subscriber.counters, "B's pipeline runs")
        let downlinkBefore = Self.downlink(proxies)
        Thread.sleep(forTimeInterval: 3)
        let after = try #require(subscriber.counters, "B's pipeline still runs")
        let downlink = Self.downlink(proxies)
        let audioPackets = after.audio.packets - before.audio.packets
        let videoPackets = after.video.packets - before.video.packets
        // Where packets went in the window, should the audio check fail: reached the
        // downlink proxy, left it, dropped at its 60 kbps cap; and the router's view.
        let path = "downlink: received \(downlink.received - downlinkBefore.received) forwarded \(downlink.forwarded - downlinkBefore.forwarded) "
            + "capped \(downlink.droppedByCap - downlinkBefore.droppedByCap); router: \(String(describing: rig.media.status(subscriberId: subscriberId)))"
        let heard = device.lastRendered(24_000)
        let frequency = AudioAnalysis.dominantFrequency(samples: heard, sampleRate: 48_000) ?? 0
        print("AdaptiveQualityAcceptance subscriber fallback: \(fallback()) audio \(audioPackets) packets in 3 s, video \(videoPackets), tone \(frequency) Hz rms \(AudioAnalysis.rms(heard)); \(path)")
        #expect(audioPackets >= 120, "audio keeps arriving (50 packets/s): \(audioPackets) in 3 s; \(path)")
        #expect(videoPackets <= 2, "no video while disabled: \(videoPackets)")
        #expect(AudioAnalysis.rms(heard) > 1000 && abs(frequency - 440) < 2, "the tone plays: \(frequency) Hz")

        proxies.setImpairment(ImpairmentSettings(), for: .reverse)
        let liftedAt = Date()
        #expect(b.recorder.wait(15) { $0.contains("subscriber videoEnabled 3") }, "video back within 15 s: \(fallback()) \(String(describing: rig.media.status(subscriberId: subscriberId)))")
        print("AdaptiveQualityAcceptance subscriber fallback: enabled \(String(format: "%.1f", Date().timeIntervalSince(liftedAt))) s after the lift")
        let frames = render.seen.count
        #expect(poll(10) { render.seen.count >= frames + 30 }, "and B decodes again")
        #expect(!b.recorder.calls.contains { $0.hasPrefix("subscriber didFail") || $0 == "subscriber disconnected" })
    }

    /// The router → B direction summed over B's proxies: received, forwarded, dropped at the cap.
    private static func downlink(_ proxies: MediaProxies) -> (received: UInt64, forwarded: UInt64, droppedByCap: UInt64) {
        proxies.all.reduce(into: (received: UInt64(0), forwarded: UInt64(0), droppedByCap: UInt64(0))) { sum, proxy in
            let c = proxy.counters(for: .reverse)
            sum.received += c.received
            sum.forwarded += c.forwarded
            sum.droppedByCap += c.droppedByCap
        }
    }

    private func publisherSide() throws {
        let device = ToneLoopDevice(frequency: 440)
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        let rig = try AcceptanceRig(project: Self.project)
        defer { rig.stop() }
        let a = try rig.join(impaired: true)
        let (publisher, streamId) = try rig.kit.publishPattern(a.session, a.recorder, width: 320, height: 180, fps: 30) {
            $0.publisherAudioFallbackEnabled = true
        }
        let pipeline = try #require(publisher.lock.withLock { publisher.pipeline })
        let proxies = try #require(a.proxies)
        let b = try rig.join(impaired: false, role: .subscriber)
        let (subscriber, render) = try rig.subscribe(b, to: streamId)
        #expect(poll(20) { render.seen.count >= 60 }, "B decodes")

        proxies.setImpairment(Self.starved, for: .forward)
        let cappedAt = Date()
        let fallback = { a.recorder.calls.filter { $0.hasPrefix("publisher video") } }
        let state = { "\(fallback()) estimate \(pipeline.bandwidthEstimate) target \(pipeline.targetVideoBitrate) state \(pipeline.videoFallbackState)" }
        let disabled = a.recorder.wait(10) { $0.contains("publisher videoDisabled 3") }
        #expect(disabled, "video off within 10 s: \(state())")
        print("AdaptiveQualityAcceptance publisher fallback: disabled \(String(format: "%.1f", Date().timeIntervalSince(cappedAt))) s after the cap")
        if !disabled { #expect(a.recorder.wait(30) { $0.contains("publisher videoDisabled 3") }, "at all: \(state())") }
        #expect(Array(fallback().prefix(2)) == ["publisher videoDisableWarning", "publisher videoDisabled 3"], "the warning comes first")

        // While video is off: nothing is encoded, audio reaches B.
        Thread.sleep(forTimeInterval: 0.5)
        let encoded = pipeline.videoCounters.snapshot().frames, dropped = pipeline.videoFramesDroppedByFallback
        let audio = subscriber.counters?.audio.packets ?? 0
        Thread.sleep(forTimeInterval: 3)
        let encodedWhileOff = pipeline.videoCounters.snapshot().frames - encoded
        let droppedWhileOff = pipeline.videoFramesDroppedByFallback - dropped
        let audioPackets = (subscriber.counters?.audio.packets ?? 0) - audio
        print("AdaptiveQualityAcceptance publisher fallback: \(state()) encoded \(encodedWhileOff) dropped \(droppedWhileOff) audio \(audioPackets) in 3 s")
        #expect(encodedWhileOff == 0 && droppedWhileOff >= 60, "no frame encoded while off: \(encodedWhileOff) encoded, \(droppedWhileOff) dropped")
        // While video is off the publisher sends audio and short probe clusters only (no
        // padding up to its 100 kbps estimate floor over this 60 kbps link, which cost
        // 15-22 % of the audio packets): 154-161 of 150 per 3 s now (the window catches
        // up what queued before it).
        #expect(audioPackets >= 135, "audio keeps arriving at B (90 %): \(audioPackets) in 3 s")
        proxies.setImpairment(ImpairmentSettings(), for: .forward)
        let liftedAt = Date()
        #expect(a.recorder.wait(15) { $0.contains("publisher videoEnabled 3") }, "video back within 15 s: \(state())")
        print("AdaptiveQualityAcceptance publisher fallback: enabled \(String(format: "%.1f", Date().timeIntervalSince(liftedAt))) s after the lift")
        let frames = render.seen.count
        #expect(poll(10) { render.seen.count >= frames + 30 }, "and B decodes again")
        #expect(pipeline.videoCounters.snapshot().frames > encoded, "the publisher encodes again")
    }
}
