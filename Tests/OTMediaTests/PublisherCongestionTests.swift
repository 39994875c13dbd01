import Foundation
import OTTestSupport
import Synchronization
import Testing
@testable import OTMedia

/// The publisher's transport side of congestion control with real pipelines through the
/// impairment proxy: transport-wide feedback from the subscriber drives the estimate and
/// the video target, the pacer spreads keyframes, audio goes first, probes fill the gap
/// and never reach the subscriber's decoder. Numbers have generous margins; time is only
/// a polling deadline.
@Suite struct PublisherCongestionTests {
    /// Publisher (640x360 test pattern + tone) → proxy → subscriber.
    /// Frames the subscriber decoded (its receive thread adds, the test reads).
    final class Count: Sendable {
        private let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var current: Int { value.load(ordering: .relaxed) }
    }

    final class Link {
        let subscriber: SubscriberPipeline
        let proxy: ImpairmentProxy
        let publisher: PublisherPipeline
        let decodedFrames = Count()

        init(maxBitrate: Int = 2_000_000, bitrateKbps: Int = 1500, width: Int = 640, height: Int = 360, fps: Int = 30,
             videoOff: Bool = false) throws {
            let keys = SRTPLegKeys.random(profile: .aeadAES128GCM)
            var subscriberConfiguration = SubscriberConfiguration()
            subscriberConfiguration.keys = keys.reversed
            subscriberConfiguration.localAddress = .ipv4Loopback()
            let decoded = decodedFrames
            subscriber = try SubscriberPipeline(configuration: subscriberConfiguration,
                                                onVideoFrame: { _, _ in decoded.add() },
                                                onAudioFrame: { _ in })
            try subscriber.start()
            proxy = try ImpairmentProxy(target: subscriber.localAddress, forward: ImpairmentSettings(),
                                        reverse: ImpairmentSettings(), seed: 11)
            var video = VP8EncoderSettings(width: width, height: height, frameRate: Double(fps), bitrateKbps: bitrateKbps)
            video.maxKeyframeInterval = 3000
            var configuration = PublisherConfiguration(destination: proxy.listenAddress, video: video,
                                                       audio: OpusEncoderSettings(format: .mono20ms))
            configuration.keys = keys
            configuration.localAddress = .ipv4Loopback()
            configuration.bandwidthEstimation = BandwidthEstimatorConfiguration(initialBitrate: 800_000, minBitrate: 100_000,
                                                                                maxBitrate: maxBitrate)
            let source = try TestPatternSource(format: VideoFormat(width: width, height: height, frameRate: fps))
            let tone = try ToneSource(frequency: 440, amplitude: 0.5, format: .mono20ms)
            publisher = try PublisherPipeline(configuration: configuration, videoSource: source, audioSource: tone)
            publisher.videoEnabled = !videoOff
            try publisher.start()
        }

        func stop() {
            publisher.stop()
            proxy.stop()
            subscriber.stop()
        }

        func cap(_ bitsPerSecond: UInt64?) {
            let queue = bitsPerSecond.map { ImpairmentSettings.queueLimitBytes(milliseconds: 300, bitsPerSecond: $0) }
            proxy.setSettings(ImpairmentSettings(bandwidthBitsPerSecond: bitsPerSecond, queueLimitBytes: queue ?? 64 * 1024),
                              for: .forward)
        }

        /// Bytes the publisher put on the wire: audio, video (retransmissions included), probes.
        var sentBytes: UInt64 {
            publisher.videoCounters.snapshot().bytes + publisher.audioCounters.snapshot().bytes
                + publisher.transportCounters.snapshot().probeBytes
        }
    }

    /// Polls `condition` every 100 ms until it holds or `seconds` pass; returns whether it held.
    static func poll(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return condition()
    }

    @Test func aCapPullsTheTargetUnderItAndALiftLetsItClimbBack() throws {
        // A small picture: until the adaptive encoder (resolution and frame rate ladder)
        // lands, only the bitrate follows the target, and VP8 at its highest quantizer
        // cannot go much below ~300 kbps at 640x360.
        let link = try Link(bitrateKbps: 800, width: 320, height: 180, fps: 15)
        defer { link.stop() }
        // Feedback flows and an estimate exists before the cap.
        #expect(Self.poll(seconds: 10) { link.publisher.bandwidthEstimate > 0 && link.decodedFrames.current > 30 })
        let cap: UInt64 = 300_000
        link.cap(cap)
        let audioBefore = link.subscriber.audioCounters.snapshot().packets
        // The estimate (audio + video) falls under the cap (generous deadline: the goal is 10 s).
        #expect(Self.poll(seconds: 20) { link.publisher.bandwidthEstimate <= cap })
        #expect(link.publisher.targetVideoBitrate < cap)
        // The sent rate follows: measured over ~3 s of counters, after 2 s for the encoder's
        // 1 s rate buffer and the pacer's queue to settle at the new target.
        Thread.sleep(forTimeInterval: 2)
        let bytesBefore = link.sentBytes
        let videoBefore = link.publisher.videoCounters.snapshot()
        let probesBefore = link.publisher.transportCounters.snapshot()
        let start = Date()
        Thread.sleep(forTimeInterval: 3)
        let seconds = Date().timeIntervalSince(start)
        let sentRate = Double(link.sentBytes - bytesBefore) * 8 / seconds
        let videoAfter = link.publisher.videoCounters.snapshot()
        let probesAfter = link.publisher.transportCounters.snapshot()
        #expect(sentRate < Double(cap) * 1.5, """
            sent \(Int(sentRate)) bps under a \(cap) bps cap: video \(videoAfter.bytes - videoBefore.bytes) B \
            (\(videoAfter.retransmissions - videoBefore.retransmissions) resent, \(videoAfter.frames - videoBefore.frames) frames), \
            probes \(probesAfter.probeBytes - probesBefore.probeBytes) B, target \(probesAfter.videoTargetBitsPerSecond), \
            padding \(probesAfter.paddingBitsPerSecond), dropped \(probesAfter.droppedPackets - probesBefore.droppedPackets)
            """)
        // Audio kept flowing to the subscriber through the cap (50 packets/s).
        let audioDuring = link.subscriber.audioCounters.snapshot().packets - audioBefore
        #expect(audioDuring > 100, "audio packets received under the cap: \(audioDuring)")
        #expect(link.publisher.transportCounters.snapshot().feedbackPackets > 20)
        // Lift: the target climbs back well above the cap.
        link.cap(nil)
        #expect(Self.poll(seconds: 40) { link.publisher.bandwidthEstimate >= 2 * cap })
    }

    @Test func keyframesLeaveThroughThePacerWithoutABurst() throws {
        let link = try Link()
        defer { link.stop() }
        #expect(Self.poll(seconds: 10) { link.decodedFrames.current > 30 })
        for _ in 0..<4 {
            link.publisher.requestKeyframe()
            Thread.sleep(forTimeInterval: 0.5)
        }
        let counters = link.publisher.transportCounters.snapshot()
        #expect(link.publisher.videoCounters.snapshot().keyframes >= 4)
        // Every send turn stayed within the pacer's bound (burst × rate + a packet of debt +
        // an audio packet), measured by the transport thread at each send.
        #expect(counters.burstsOverBound == 0)
        // At most 2.5 × 2 Mbps × 5 ms = 3.1 KB plus two packets per turn; a 360p keyframe
        // is several times that.
        #expect(counters.largestBurstBytes < 8_000, "largest burst \(counters.largestBurstBytes) bytes")
        #expect(counters.pacedPackets > 100)
    }

    @Test func probesFillTheGapAndNeverReachTheDecoder() throws {
        let link = try Link(videoOff: true)
        defer { link.stop() }
        // Video off: audio alone is far under the estimate, so the pacer probes.
        #expect(Self.poll(seconds: 15) {
            link.subscriber.transportCounters.snapshot().probePackets > 200 && link.subscriber.audioCounters.snapshot().packets > 100
        })
        let publisher = link.publisher.transportCounters.snapshot()
        let subscriber = link.subscriber.transportCounters.snapshot()
        #expect(publisher.probePackets >= subscriber.probePackets)
        #expect(subscriber.feedbackPackets > 10)
        // Probes were recorded for feedback but never counted, decoded or refused as media.
        let video = link.subscriber.videoCounters.snapshot()
        #expect(video.packets == 0)
        #expect(video.frames == 0)
        #expect(video.badPackets == 0)
        #expect(link.decodedFrames.current == 0)
        #expect(link.subscriber.audioCounters.snapshot().packets > 100)
    }
}
