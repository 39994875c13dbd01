import Foundation
import Testing
@testable import OTMedia

/// publishAudio / publishVideo in the engine: a disabled stream's frames stop before the
/// encoder, so its packet counter stays flat while the frames-dropped counter grows.
@Suite(.serialized)
struct PublisherSwitchTests {
    /// A running publisher (tone + test pattern) sending plain RTP to a subscriber.
    private func makePair() throws -> (PublisherPipeline, SubscriberPipeline) {
        var subscriberConfiguration = SubscriberConfiguration()
        subscriberConfiguration.localAddress = .ipv4Loopback()
        let subscriber = try SubscriberPipeline(configuration: subscriberConfiguration)
        try subscriber.start()
        var configuration = PublisherConfiguration(
            destination: subscriber.localAddress,
            video: VP8EncoderSettings(width: 160, height: 120, frameRate: 30, bitrateKbps: 200),
            audio: OpusEncoderSettings(format: .mono20ms))
        configuration.localAddress = .ipv4Loopback()
        let publisher = try PublisherPipeline(
            configuration: configuration,
            videoSource: try TestPatternSource(format: VideoFormat(width: 160, height: 120, frameRate: 30)),
            audioSource: try ToneSource(frequency: 440))
        try publisher.start()
        return (publisher, subscriber)
    }

    private func waitUntil(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    @Test func disabledAudioSendsNoPacketsAndCountsDroppedFrames() throws {
        let (publisher, subscriber) = try makePair()
        defer { publisher.stop(); subscriber.stop() }
        #expect(waitUntil { publisher.audioCounters.snapshot().packets >= 10 })

        publisher.audioEnabled = false
        // Let a frame that was already past the switch finish, then take the baseline.
        Thread.sleep(forTimeInterval: 0.1)
        let audioBefore = publisher.audioCounters.snapshot()
        let videoBefore = publisher.videoCounters.snapshot().packets
        let droppedBefore = publisher.audioFramesDroppedWhileDisabled
        #expect(waitUntil { publisher.audioFramesDroppedWhileDisabled >= droppedBefore + 25 })
        let audioAfter = publisher.audioCounters.snapshot()
        #expect(audioAfter.packets == audioBefore.packets)
        #expect(audioAfter.frames == audioBefore.frames, "nothing reaches the encoder")
        #expect(publisher.videoCounters.snapshot().packets > videoBefore, "video goes on")
        #expect(!publisher.audioEnabled)

        publisher.audioEnabled = true
        #expect(waitUntil { publisher.audioCounters.snapshot().packets >= audioAfter.packets + 10 })
        #expect(waitUntil { subscriber.audioCounters.snapshot().packets > 0 })
    }

    @Test func disabledVideoSendsNothingAndReenablingSendsAKeyframe() throws {
        let (publisher, subscriber) = try makePair()
        defer { publisher.stop(); subscriber.stop() }
        #expect(waitUntil { publisher.videoCounters.snapshot().frames >= 5 })

        publisher.videoEnabled = false
        Thread.sleep(forTimeInterval: 0.1)
        let before = publisher.videoCounters.snapshot()
        let droppedBefore = publisher.videoFramesDroppedWhileDisabled
        let audioBefore = publisher.audioCounters.snapshot().packets
        #expect(waitUntil { publisher.videoFramesDroppedWhileDisabled >= droppedBefore + 15 })
        let after = publisher.videoCounters.snapshot()
        #expect(after.packets == before.packets)
        #expect(after.frames == before.frames)
        #expect(publisher.audioCounters.snapshot().packets > audioBefore, "audio goes on")

        publisher.videoEnabled = true
        #expect(waitUntil { publisher.videoCounters.snapshot().keyframes > after.keyframes })
        // The keyframe is counted as encoded before its packets are counted as sent.
        #expect(waitUntil { publisher.videoCounters.snapshot().packets > after.packets })
    }
}
