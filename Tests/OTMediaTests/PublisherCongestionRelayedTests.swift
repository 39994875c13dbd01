import Foundation
import OTTestSupport
import Synchronization
import Testing
@testable import OTMedia

/// Relayed fan-out: the publisher learns its destinations from authenticated RTCP and
/// sends every packet to each, with one estimate per destination.
@Suite struct PublisherCongestionRelayedTests {
    @Test func twoSubscribersLearnedFromTheirRTCPBothDecodeAndASilentOneExpires() throws {
        let keys = SRTPLegKeys.random(profile: .aeadAES128GCM)
        var video = VP8EncoderSettings(width: 320, height: 180, frameRate: 15, bitrateKbps: 300)
        video.maxKeyframeInterval = 3000
        var configuration = PublisherConfiguration(destination: .ipv4Loopback(port: 9), video: video,
                                                   audio: OpusEncoderSettings(format: .mono20ms))
        configuration.keys = keys
        configuration.localAddress = .ipv4Loopback()
        configuration.relayedFanOut = true
        configuration.relayedDestinationTimeoutNanoseconds = 1_500_000_000
        let publisher = try PublisherPipeline(
            configuration: configuration,
            videoSource: try TestPatternSource(format: VideoFormat(width: 320, height: 180, frameRate: 15)),
            audioSource: try ToneSource(frequency: 440, amplitude: 0.5, format: .mono20ms))
        try publisher.start()
        defer { publisher.stop() }

        var counts: [PublisherCongestionTests.Count] = []
        var subscribers: [SubscriberPipeline] = []
        for _ in 0..<2 {
            var subscriberConfiguration = SubscriberConfiguration()
            subscriberConfiguration.keys = keys.reversed
            subscriberConfiguration.localAddress = .ipv4Loopback()
            subscriberConfiguration.feedbackDestination = publisher.localAddress
            let count = PublisherCongestionTests.Count()
            let subscriber = try SubscriberPipeline(configuration: subscriberConfiguration,
                                                    onVideoFrame: { _, _ in count.add() }, onAudioFrame: { _ in })
            try subscriber.start()
            counts.append(count)
            subscribers.append(subscriber)
        }
        defer { for subscriber in subscribers { subscriber.stop() } }

        #expect(PublisherCongestionTests.poll(seconds: 15) { counts.allSatisfy { $0.current > 30 } },
                "decoded: \(counts.map(\.current))")
        #expect(publisher.transportCounters.snapshot().relayedDestinations == 2)
        #expect(PublisherCongestionTests.poll(seconds: 10) { publisher.bandwidthEstimate > 0 })
        #expect(subscribers.allSatisfy { $0.transportCounters.snapshot().feedbackPackets > 10 })
        // The second subscriber goes quiet: it is dropped after the timeout, the first goes on.
        subscribers[1].stop()
        #expect(PublisherCongestionTests.poll(seconds: 10) { publisher.transportCounters.snapshot().relayedDestinations == 1 })
        let before = counts[0].current
        #expect(PublisherCongestionTests.poll(seconds: 10) { counts[0].current > before + 15 })
    }
}
