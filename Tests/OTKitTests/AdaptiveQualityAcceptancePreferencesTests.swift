import Foundation
import OTMedia
import OTSignaling
import Testing
@testable import OTKit

/// Issue 5, acceptance 4: `preferredFrameRate = 7.5` and `preferredResolution = 320x180`
/// on one subscriber: it receives about 7.5 fps (±20 %) of pictures no larger than
/// 320x180, and fewer bytes. Routed: the router picks the simulcast encoding and the
/// temporal layer (a second subscriber without preferences keeps everything). Relayed:
/// the publisher itself encodes at the limit.
@Suite(.serialized)
struct AdaptiveQualityAcceptancePreferencesTests {
    static let project = ProjectCredentials(apiKey: "4754", apiSecret: "0123456789abcdef0123456789abcdef01234754")

    @Test func routedTheRouterSendsThePreferredSizeAndRate() throws {
        try AudioDeviceTestLock.run { try routed() }
    }

    @Test func relayedThePublisherEncodesThePreferredSizeAndRate() throws {
        try AudioDeviceTestLock.run { try relayed() }
    }

    private func setPreferences(_ subscriber: OTSubscriber) {
        subscriber.preferredResolution = OTVideoDimensions(width: 320, height: 180)
        subscriber.preferredFrameRate = 7.5
    }

    private func routed() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let rig = try AcceptanceRig(project: Self.project)
        defer { rig.stop() }
        let a = try rig.join(impaired: false)
        let (publisher, streamId) = try rig.kit.publishPattern(a.session, a.recorder, width: 640, height: 360, fps: 30)
        let pipeline = try #require(publisher.lock.withLock { publisher.pipeline })
        let b = try rig.join(impaired: false, role: .subscriber)
        let c = try rig.join(impaired: false, role: .subscriber)
        let (preferring, preferringRender) = try rig.subscribe(b, to: streamId)
        let (other, otherRender) = try rig.subscribe(c, to: streamId)
        let preferringId = try #require(preferring.lock.withLock { preferring.subscriberId })
        #expect(poll(20) { preferringRender.seen.count >= 60 && otherRender.seen.count >= 60 }, "both decode")
        #expect(pipeline.currentVideoEncodings.count == 2, "a 640x360 routed publisher simulcasts two encodings: \(pipeline.currentVideoEncodings)")

        setPreferences(preferring)
        let switched = poll(15) {
            rig.media.status(subscriberId: preferringId).map { $0.spatialLayer == 0 && $0.temporalLayer == 0 } == true
                && preferringRender.rendered.last.map { $0.width <= 320 } == true
        }
        #expect(switched, "B is on the small encoding's TL0: \(String(describing: rig.media.status(subscriberId: preferringId)))")
        Thread.sleep(forTimeInterval: 1)

        func bytes() -> [UInt64] { [preferring.counters?.video.bytes ?? 0, other.counters?.video.bytes ?? 0] }
        let start = Date()
        let window = CounterWindow(bytes())
        Thread.sleep(forTimeInterval: 5)
        let rates = window.bitrates(bytes())
        let seconds = Date().timeIntervalSince(start)
        let mine = preferringRender.rendered(since: start), theirs = otherRender.rendered(since: start)
        let fps = Double(mine.count) / seconds, otherFps = Double(theirs.count) / seconds
        let report = "preferring \(Int(rates[0])) bps \(String(format: "%.2f", fps)) fps sizes \(Set(mine.map { "\($0.width)x\($0.height)" })); " +
            "other \(Int(rates[1])) bps \(String(format: "%.2f", otherFps)) fps sizes \(Set(theirs.map { "\($0.width)x\($0.height)" }))"
        print("AdaptiveQualityAcceptance preferences routed:", report)
        #expect(fps >= 7.5 * 0.8 && fps <= 7.5 * 1.2, "about 7.5 fps: \(report)")
        #expect(!mine.isEmpty && mine.allSatisfy { $0.width <= 320 && $0.height <= 180 }, "no larger than 320x180: \(report)")
        #expect(otherFps >= 24 && theirs.allSatisfy { $0.width == 640 }, "the other keeps everything: \(report)")
        #expect(rates[0] < 0.3 * rates[1], "its bitrate drops accordingly: \(report)")
    }

    private func relayed() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let rig = try AcceptanceRig(project: Self.project, relayed: true)
        defer { rig.stop() }
        let a = try rig.join(impaired: false)
        let (publisher, streamId) = try rig.kit.publishPattern(a.session, a.recorder, width: 640, height: 360, fps: 30)
        let pipeline = try #require(publisher.lock.withLock { publisher.pipeline })
        let b = try rig.join(impaired: false, role: .subscriber)
        let (subscriber, render) = try rig.subscribe(b, to: streamId)
        #expect(poll(20) { render.seen.count >= 60 }, "B decodes peer to peer")
        Thread.sleep(forTimeInterval: 2)

        func measure(_ label: String) -> (bitrate: Double, fps: Double, frames: [FrameNumberRender.Rendered]) {
            let start = Date()
            let window = CounterWindow([subscriber.counters?.video.bytes ?? 0])
            Thread.sleep(forTimeInterval: 4)
            let bitrate = window.bitrates([subscriber.counters?.video.bytes ?? 0])[0]
            let frames = render.rendered(since: start)
            return (bitrate, Double(frames.count) / Date().timeIntervalSince(start), frames)
        }
        let before = measure("before")
        setPreferences(subscriber)
        let limited = poll(15) {
            guard let encoding = pipeline.currentVideoEncoding else { return false }
            return encoding.width <= 320 && encoding.height <= 180 && encoding.frameRate <= 7.5
                && render.rendered.last.map { $0.width <= 320 } == true
        }
        #expect(limited, "the publisher encodes at the limit: \(String(describing: pipeline.currentVideoEncoding)) \(String(describing: publisher.lock.withLock { publisher.lastEncodingPreferences }))")
        Thread.sleep(forTimeInterval: 1)
        let after = measure("after")
        let report = "before \(Int(before.bitrate)) bps \(String(format: "%.2f", before.fps)) fps; after \(Int(after.bitrate)) bps " +
            "\(String(format: "%.2f", after.fps)) fps sizes \(Set(after.frames.map { "\($0.width)x\($0.height)" })); " +
            "encoding \(String(describing: pipeline.currentVideoEncoding))"
        print("AdaptiveQualityAcceptance preferences relayed:", report)
        #expect(before.fps >= 24, "full rate before: \(report)")
        #expect(after.fps >= 7.5 * 0.8 && after.fps <= 7.5 * 1.2, "about 7.5 fps: \(report)")
        #expect(!after.frames.isEmpty && after.frames.allSatisfy { $0.width <= 320 && $0.height <= 180 }, "no larger than 320x180: \(report)")
        #expect(after.bitrate < 0.3 * before.bitrate, "its bitrate drops accordingly: \(report)")
    }
}
