import Foundation
import OTMedia
import OTRouter
import OTSignaling
import Testing

/// The SFU adapting per subscriber with real pipelines on 127.0.0.1 and the impairment
/// proxy on one subscriber's downlink: layers chosen from the leg's own estimate and the
/// subscriber's preferences, audio fallback and its events. Rates and counts, never
/// durations, are asserted; waits poll with generous deadlines.
@Suite(.serialized) struct SFUAdaptationTests {
    @Test func aCappedSubscriberGetsFewerLayersWhileTheOtherKeepsFullRate() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        let legA = try router.addAVSubscriber("a")
        let legB = try router.addAVSubscriber("b")
        // b's downlink: 250 kbps with a 32 KB bottleneck queue (a keyframe fits).
        let cap = ImpairmentSettings(bandwidthBitsPerSecond: 250_000, queueLimitBytes: 32_000)
        let proxy = try ImpairmentProxy(target: try LegClient.address(legB), reverse: cap, seed: 5)
        let a = try MeasuredSubscriber(leg: legA)
        let b = try MeasuredSubscriber(leg: legB, feedback: proxy.listenAddress)
        // 300 kbps in three temporal layers: TL0 alone fits the cap, all three do not.
        let publisher = try LayeredPublisher(leg: publisherLeg, bitrateKbps: 300)
        defer { publisher.stop(); a.stop(); b.stop(); proxy.stop(); router.removePublisher(streamId: "s1") }

        let early = RateWindow([publisher.videoBytes])
        Thread.sleep(forTimeInterval: 2)
        #expect(waitUntil(seconds: 30) { (router.status(subscriberId: "b")?.temporalLayer ?? 2) < 2 },
                "b's leg came down a layer: \(String(describing: router.status(subscriberId: "b")))")
        let publisherEarly = early.bitrates([publisher.videoBytes])[0]
        Thread.sleep(forTimeInterval: 2)
        let window = RateWindow([a.videoBytes, b.videoBytes, publisher.videoBytes])
        let startFrames = (a.decoded.count, b.decoded.count)
        Thread.sleep(forTimeInterval: 5)
        let rates = window.bitrates([a.videoBytes, b.videoBytes, publisher.videoBytes])
        let fpsA = Double(a.decoded.count - startFrames.0) / 5, fpsB = Double(b.decoded.count - startFrames.1) / 5
        let statusA = try #require(router.status(subscriberId: "a")), statusB = try #require(router.status(subscriberId: "b"))
        let report = "a \(Int(rates[0])) bps \(fpsA) fps \(statusA); b \(Int(rates[1])) bps \(fpsB) fps \(statusB); publisher \(Int(rates[2])) (early \(Int(publisherEarly)))"
        print("SFUAdaptation capped:", "\(report)")
        #expect(fpsA >= 24, "the uncapped subscriber keeps full rate: \(report)")
        #expect(fpsB <= 0.75 * fpsA && fpsB >= 3, "the capped one gets fewer frames, still some: \(report)")
        #expect(rates[1] < 0.7 * rates[0], "and fewer bits: \(report)")
        #expect(statusA.temporalLayer == 2 && statusB.temporalLayer < 2, "\(report)")
        #expect(rates[2] >= 0.7 * publisherEarly, "the publisher is not dragged down: \(report)")
        #expect(statusB.framesDropped > 0 && statusA.framesDropped == 0, "\(report)")
        #expect(a.pictureIDsContinue, "a's PictureIDs continue")
        let continuity = b.pictureIDContinuity(since: window.start)
        #expect(b.pictureIDsIncrease && continuity >= 0.9,
                "b's PictureIDs move forward and, once adapted, continue across the dropped layers: \(continuity)")
        #expect(a.pipeline.videoCounters.snapshot().badPackets == 0)
    }

    @Test func aPreferredFrameRateThinsThatSubscribersStreamOnly() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        let legA = try router.addAVSubscriber("a")
        let legB = try router.addAVSubscriber("b")
        let a = try MeasuredSubscriber(leg: legA)
        let b = try MeasuredSubscriber(leg: legB)
        let publisher = try LayeredPublisher(leg: publisherLeg, bitrateKbps: 500)
        defer { publisher.stop(); a.stop(); b.stop(); router.removePublisher(streamId: "s1") }
        #expect(waitUntil(seconds: 10) { a.decoded.count >= 30 && b.decoded.count >= 30 })
        router.setPreferences(subscriberId: "b", width: 320, height: 180, frameRate: 7.5)
        router.setPreferences(subscriberId: "nobody", width: 1, height: 1, frameRate: 1)  // ignored
        #expect(waitUntil(seconds: 10) { router.status(subscriberId: "b")?.temporalLayer == 0 })
        Thread.sleep(forTimeInterval: 1)
        let window = RateWindow([a.videoBytes, b.videoBytes])
        let startFrames = (a.decoded.count, b.decoded.count)
        Thread.sleep(forTimeInterval: 4)
        let rates = window.bitrates([a.videoBytes, b.videoBytes])
        let fpsA = Double(a.decoded.count - startFrames.0) / 4, fpsB = Double(b.decoded.count - startFrames.1) / 4
        let report = "a \(Int(rates[0])) bps \(fpsA) fps; b \(Int(rates[1])) bps \(fpsB) fps"
        print("SFUAdaptation preferences:", "\(report)")
        #expect(fpsB >= 7.5 * 0.8 && fpsB <= 7.5 * 1.2, "b receives about 7.5 fps: \(report)")
        #expect(fpsA >= 24, "\(report)")
        #expect(rates[1] < 0.8 * rates[0], "b receives fewer bytes: \(report)")
        #expect(b.pictureIDsContinue, "b's decoder sees no missing picture")
        // Preference lifted: back to every layer (at the next TL0 or sync frame).
        router.setPreferences(subscriberId: "b", width: nil, height: nil, frameRate: nil)
        #expect(waitUntil(seconds: 10) { router.status(subscriberId: "b")?.temporalLayer == 2 && b.frameRate(last: 1) >= 24 })
        #expect(b.pictureIDsContinue)
    }
}

/// Subscriber audio fallback at the router: a downlink that cannot carry even the lowest
/// layer gets the warning, then video off (audio keeps flowing), then video back once the
/// path recovers, each reported as `subscriberQuality` states.
@Suite(.serialized) struct SFUAudioFallbackTests {
    @Test func aStarvedLegWarnsThenDropsVideoKeepsAudioAndComesBack() throws {
        let router = try MediaRouter()
        let events = QualityEvents()
        router.setSubscriberQualityHandler { events.add($0) }
        let publisherLeg = try router.addAVPublisher()
        let legA = try router.addAVSubscriber("a")
        let legB = try router.addAVSubscriber("b")
        let proxy = try ImpairmentProxy(target: try LegClient.address(legB),
                                        reverse: ImpairmentSettings(bandwidthBitsPerSecond: 60_000, queueLimitBytes: 8_000), seed: 9)
        let a = try MeasuredSubscriber(leg: legA)
        let b = try MeasuredSubscriber(leg: legB, feedback: proxy.listenAddress)
        let publisher = try LayeredPublisher(leg: publisherLeg, bitrateKbps: 300)
        defer { publisher.stop(); a.stop(); b.stop(); proxy.stop(); router.removePublisher(streamId: "s1") }

        #expect(waitUntil(seconds: 30) { events.states(of: "b").contains("disabled") },
                "b's leg cannot carry video: \(events.states(of: "b")) \(String(describing: router.status(subscriberId: "b")))")
        #expect(Array(events.states(of: "b").prefix(2)) == ["warning", "disabled"], "the warning comes first")
        #expect(events.states(of: "a").isEmpty, "a's leg is fine: \(events.states(of: "a"))")
        #expect(router.status(subscriberId: "b")?.videoDisabledForQuality == true)
        Thread.sleep(forTimeInterval: 1)  // what was queued at the bottleneck drains
        let video = b.pipeline.videoCounters.snapshot().packets
        let audio = b.pipeline.audioCounters.snapshot().packets
        let aFrames = a.decoded.count
        Thread.sleep(forTimeInterval: 3)
        let audioPackets = b.pipeline.audioCounters.snapshot().packets - audio
        #expect(b.pipeline.videoCounters.snapshot().packets - video <= 2, "no video reaches b while disabled")
        #expect(audioPackets >= 120, "audio keeps flowing (50 packets/s): \(audioPackets) in 3 s")
        #expect(a.decoded.count - aFrames >= 75, "a keeps its video")

        proxy.setSettings(ImpairmentSettings(), for: .reverse)
        #expect(waitUntil(seconds: 60) { events.states(of: "b").last == "enabled" },
                "video comes back once the path recovers: \(events.states(of: "b")) \(String(describing: router.status(subscriberId: "b")))")
        let frames = b.decoded.count
        #expect(waitUntil(seconds: 10) { b.decoded.count >= frames + 30 }, "and b decodes again (from a keyframe)")
        let status = try #require(router.status(subscriberId: "b"))
        #expect(status.probesSent > 0 && !status.videoDisabledForQuality, "\(status)")
        #expect(b.pictureIDsIncrease, "PictureIDs move forward across the pause")
    }
}

/// A stream that needs little (320x180 at 5 fps, ~30 kbps, no audio: a still scene, a slow camera)
/// on a clean leg keeps its video: fallback judges the path, not how little the stream
/// happens to send. Capping the estimate at twice the leg's rate while video flowed warned
/// after 2 s here and turned a 5 fps camera's video off in the hardware VM.
@Suite(.serialized) struct SFUAudioFallbackLowRateTests {
    @Test func aLowRateStreamOnACleanLegKeepsItsVideo() throws {
        let router = try MediaRouter()
        let events = QualityEvents()
        router.setSubscriberQualityHandler { events.add($0) }
        let publisherLeg = try router.addAVPublisher()
        let leg = try router.addAVSubscriber("a")
        let a = try MeasuredSubscriber(leg: leg)
        let publisher = try LayeredPublisher(leg: publisherLeg, width: 320, height: 180, bitrateKbps: 30, audio: false, frameRate: 5)
        defer { publisher.stop(); a.stop(); router.removePublisher(streamId: "s1") }

        #expect(waitUntil(seconds: 20) { a.decoded.count >= 10 }, "a decodes")
        let bytes = publisher.videoBytes
        Thread.sleep(forTimeInterval: 10)
        let kbps = (publisher.videoBytes - bytes) * 8 / 10_000
        let status = try #require(router.status(subscriberId: "a"))
        #expect(kbps >= 20 && kbps < 50, "the stream is one fallback judges (over 20 kbps) and needs little: \(kbps) kbps")
        #expect(events.states(of: "a").isEmpty, "no warning on a clean leg: \(events.states(of: "a")) \(status)")
        #expect(!status.videoDisabledForQuality, "\(status)")
        #expect(a.frameRate(last: 2) >= 3, "video keeps flowing: \(a.frameRate(last: 2)) fps, \(status)")
    }
}

/// Simulcast at the router: a publisher leg with two encodings (each sent here by its own
/// pipeline under the SSRC the leg gave it, keyframes every second since only one of them
/// hears the router's PLIs); each subscriber gets the encoding that fits its preferences,
/// switched at a keyframe, as one continuous stream.
@Suite(.serialized) struct SFUSimulcastTests {
    @Test func eachSubscriberGetsTheEncodingItsPreferencesAllowSwitchedAtKeyframes() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addPublisher(streamId: "s1", audio: true, video: true, simulcastLayers: 2)
        let small = try #require(publisherLeg.simulcastSSRCs?.first)
        #expect(publisherLeg.simulcastSSRCs?.count == 1 && small != publisherLeg.videoSSRC)
        #expect(throws: MediaError.self) { try router.addPublisher(streamId: "s2", audio: true, video: true, simulcastLayers: 4) }
        let legA = try router.addAVSubscriber("a")
        let legB = try router.addAVSubscriber("b")
        let a = try MeasuredSubscriber(leg: legA)
        let b = try MeasuredSubscriber(leg: legB)
        // The publishers hold their rates: this test is about the router's per-leg choice.
        let full = try LayeredPublisher(leg: publisherLeg, width: 640, height: 360, bitrateKbps: 600, keyframeInterval: 30, holdsRate: true)
        let reduced = try LayeredPublisher(leg: publisherLeg, videoSSRC: small, width: 320, height: 180, bitrateKbps: 150,
                                           audio: false, keyframeInterval: 30, holdsRate: true)
        defer { full.stop(); reduced.stop(); a.stop(); b.stop(); router.removePublisher(streamId: "s1") }

        #expect(waitUntil(seconds: 30) { a.decoded.last?.width == 640 && b.decoded.last?.width == 640 },
                "both start on the full encoding: a \(String(describing: a.decoded.last?.width)) b \(String(describing: b.decoded.last?.width))")
        router.setPreferences(subscriberId: "b", width: 320, height: 180, frameRate: nil)
        #expect(waitUntil(seconds: 30) { router.status(subscriberId: "b")?.spatialLayer == 0 && b.decoded.last?.width == 320 },
                "b switched to the small encoding: \(String(describing: router.status(subscriberId: "b")))")
        Thread.sleep(forTimeInterval: 1)
        let fullSent = { full.pipeline.videoCounters.snapshot().bytes }
        let window = RateWindow([a.videoBytes, b.videoBytes, fullSent()])
        let start = window.start
        Thread.sleep(forTimeInterval: 3)
        let rates = window.bitrates([a.videoBytes, b.videoBytes, fullSent()])
        let recentB = b.decoded.filter { $0.at >= start }
        let recentA = a.decoded.filter { $0.at >= start }
        let aFull = recentA.filter { $0.width == 640 }.count
        let report = "a \(Int(rates[0])) bps \(recentA.count) frames (\(aFull) at 640x360); b \(Int(rates[1])) bps \(recentB.count) frames; " +
                     "full encoding sent at \(Int(rates[2])) bps"
        print("SFUSimulcast:", report)
        #expect(recentB.allSatisfy { $0.width == 320 && $0.height == 180 } && recentB.count >= 70, "\(report)")
        // a has no preference: the full encoding, but its estimate is its own; under a loaded
        // machine's scheduling noise it may step down for a moment (one CI run), so most of
        // the window, and back on it by the end.
        #expect(recentA.count >= 70 && aFull * 10 >= recentA.count * 8, "\(report)")
        #expect(waitUntil(seconds: 30) { a.decoded.last?.width == 640 }, "a back on the full encoding: \(report)")
        // The preference is about bytes too: b gets the small encoding's, well under the full one's.
        #expect(rates[1] < 0.6 * rates[2], "b receives fewer bytes: \(report)")
        #expect(b.pictureIDsIncrease && b.pictureIDContinuity(since: start) >= 0.95, "one continuous stream across the switch")
        #expect(b.pipeline.videoCounters.snapshot().packetsLost <= 2, "the switch does not look like loss")
        #expect((router.status(subscriberId: "b")?.spatialSwitches ?? 0) >= 2)
        // Preference lifted: back up to the full encoding (after the selector's hold).
        router.setPreferences(subscriberId: "b", width: nil, height: nil, frameRate: nil)
        #expect(waitUntil(seconds: 30) { b.decoded.last?.width == 640 })
        #expect(b.pictureIDsIncrease)
    }

    @Test func encodingsThePublisherDoesNotSendAreNeverWaitedFor() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addPublisher(streamId: "s1", audio: true, video: true, simulcastLayers: 3)
        #expect(publisherLeg.simulcastSSRCs?.count == 2)
        let legA = try router.addAVSubscriber("a")
        let a = try MeasuredSubscriber(leg: legA)
        // Only the full-size encoding is sent.
        let full = try LayeredPublisher(leg: publisherLeg, width: 640, height: 360, bitrateKbps: 500)
        defer { full.stop(); a.stop(); router.removePublisher(streamId: "s1") }
        #expect(waitUntil(seconds: 15) { router.status(subscriberId: "a")?.spatialLayer == 2 && a.frameRate(last: 1) >= 24 },
                "a moved to the one encoding sent: \(String(describing: router.status(subscriberId: "a")))")
        Thread.sleep(forTimeInterval: 1)
        let before = try #require(router.counters(streamId: "s1")).keyframeRequests
        Thread.sleep(forTimeInterval: 3)
        let after = try #require(router.counters(streamId: "s1")).keyframeRequests
        #expect(after - before <= 1, "no keyframe requests for encodings never sent: \(before) → \(after)")
        #expect(a.decoded.suffix(30).allSatisfy { $0.width == 640 })
    }
}
