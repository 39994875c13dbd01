import Foundation
import OTMedia
import OTSignaling
import Synchronization
import Testing
@testable import OTKit

/// An OTPublisherKit with a custom capturer sends real SRTP media to the leg the
/// "router" hands out (here a SubscriberPipeline standing where the router's port
/// would be): decoded frame numbers increase; publishVideo/publishAudio stop packets;
/// the stats delegate reports the pipeline's counters.
@Suite(.serialized)
struct PublisherMediaTests {
    final class Stats: OTPublisherKitNetworkStatsDelegate, @unchecked Sendable {
        let videoSent = Mutex<Int64>(0)
        func publisher(_ publisher: OTPublisherKit, videoNetworkStatsUpdated stats: [OTPublisherKitVideoNetworkStats]) {
            videoSent.withLock { $0 = stats.first?.videoPacketsSent ?? 0 }
        }
    }

    @Test func capturerFramesArriveDecodedAndSwitchesStopPackets() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let keys = SRTPLegKeys.random()
        let decodedNumbers = Mutex<[UInt32]>([])
        var configuration = SubscriberConfiguration()
        configuration.keys = keys.reversed
        configuration.localAddress = .ipv4Loopback()
        configuration.videoStream = RTPStreamParameters(ssrc: 1111, payloadType: 96, clockRate: 90_000)
        configuration.audioStream = RTPStreamParameters(ssrc: 2222, payloadType: 111, clockRate: 48_000)
        let receiver = try SubscriberPipeline(configuration: configuration, onVideoFrame: { frame, _ in
            if let number = FrameNumberStamp.read(from: frame) { decodedNumbers.withLock { $0.append(number) } }
        })
        try receiver.start()
        defer { receiver.stop() }

        let router = ScriptedRouter()
        router.publishMedia = WireMediaLeg(host: "127.0.0.1", port: Int(receiver.localAddress.port), profile: keys.send.profile.rfcName,
                                           clientKey: keys.send.base64, routerKey: keys.receive.base64, audioSSRC: 2222, videoSSRC: 1111)
        let recorder = DelegateRecorder()
        var settings = OTSessionSettings()
        settings.transportFactory = router.factory()
        settings.statsInterval = 0.2
        let session = try #require(OTSession(apiKey: "123", sessionId: "1_s", delegate: recorder, settings: settings))
        session.apiQueue = recorder.queue
        try session.connect(withToken: "T1==t")
        #expect(recorder.wait { $0.contains("didConnect") })

        let capturer = TestPatternCapturer(width: 320, height: 240, fps: 30)
        let publisherSettings = OTPublisherKitSettings()
        publisherSettings.videoCapture = capturer
        publisherSettings.name = "pattern"
        let publisher = OTPublisherKit(delegate: recorder, settings: publisherSettings)
        let stats = Stats()
        publisher.networkStatsDelegate = stats
        try session.publish(publisher)
        #expect(recorder.wait { $0.contains("publisher streamCreated own-stream") })
        let request = router.messages.compactMap { if case .publish(let r) = $0 { return r } else { return nil } }.first
        #expect(request?.videoWidth == 320 && request?.videoHeight == 240 && request?.videoType == "custom")

        #expect(recorder.wait { _ in decodedNumbers.withLock { $0.count } >= 20 })
        let numbers = decodedNumbers.withLock { $0 }
        #expect(numbers.count >= 20)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "frame numbers increase")
        #expect(recorder.wait { _ in stats.videoSent.withLock { $0 } > 0 })
        #expect(recorder.wait { _ in receiver.audioCounters.snapshot().packets > 10 })

        publisher.publishAudio = false
        publisher.publishVideo = false
        Thread.sleep(forTimeInterval: 0.2)
        let audioBefore = receiver.audioCounters.snapshot().packets
        let videoBefore = receiver.videoCounters.snapshot().packets
        Thread.sleep(forTimeInterval: 0.6)
        #expect(receiver.audioCounters.snapshot().packets == audioBefore)
        #expect(receiver.videoCounters.snapshot().packets == videoBefore)
        #expect(router.messages.contains(.streamChanged(StreamChange(streamId: "own-stream", hasAudio: false, hasVideo: nil))))
        #expect(router.messages.contains(.streamChanged(StreamChange(streamId: "own-stream", hasAudio: nil, hasVideo: false))))
        #expect(publisher.stream?.hasAudio == false && publisher.stream?.hasVideo == false)

        publisher.publishVideo = true
        #expect(recorder.wait { _ in receiver.videoCounters.snapshot().packets > videoBefore })
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
        #expect(recorder.calls.suffix(2) == ["publisher streamDestroyed own-stream", "didDisconnect"])
        #expect(!capturer.isCaptureStarted())
    }
}
