import Foundation
import OTMedia
import OTSignaling
import Synchronization
import Testing
@testable import OTKit

/// An OTPublisherKit sends real SRTP media to the leg the "router" hands out (here a
/// SubscriberPipeline standing where the router's port would be): decoded frame
/// numbers increase; publishVideo/publishAudio stop packets; the stats delegate reports
/// the pipeline's counters.
@Suite(.serialized)
struct PublisherMediaTests {
    final class Stats: OTPublisherKitNetworkStatsDelegate, @unchecked Sendable {
        let videoSent = Mutex<Int64>(0)
        func publisher(_ publisher: OTPublisherKit, videoNetworkStatsUpdated stats: [OTPublisherKitVideoNetworkStats]) {
            videoSent.withLock { $0 = stats.first?.videoPacketsSent ?? 0 }
        }
    }

    /// Frame numbers read from decoded pictures (receive thread → test).
    final class NumberLog: Sendable {
        private let numbers = Mutex<[UInt32]>([])
        func append(_ number: UInt32) { numbers.withLock { $0.append(number) } }
        var values: [UInt32] { numbers.withLock { $0 } }
    }

    /// Decoded audio samples (playout thread → test).
    final class SampleLog: Sendable {
        private let samples = Mutex<[Int16]>([])
        func append(_ buffer: UnsafeMutableBufferPointer<Int16>) { samples.withLock { $0.append(contentsOf: buffer) } }
        var values: [Int16] { samples.withLock { $0 } }
    }

    /// A receiver where the router's media port would be, and a connected session whose
    /// scripted router hands out a leg to it.
    final class Harness: @unchecked Sendable {
        let receiver: SubscriberPipeline
        let decodedNumbers = NumberLog()
        let decodedAudio = SampleLog()
        let router = ScriptedRouter()
        let recorder = DelegateRecorder()
        let session: OTSession

        init(device: (any OTAudioDevice)? = nil) throws {
            OTAudioDeviceManager.setAudioDevice(device)
            let keys = SRTPLegKeys.random()
            var configuration = SubscriberConfiguration()
            configuration.keys = keys.reversed
            configuration.localAddress = .ipv4Loopback()
            configuration.videoStream = RTPStreamParameters(ssrc: 1111, payloadType: 96, clockRate: 90_000)
            configuration.audioStream = RTPStreamParameters(ssrc: 2222, payloadType: 111, clockRate: 48_000)
            let numbers = decodedNumbers
            let audio = decodedAudio
            receiver = try SubscriberPipeline(configuration: configuration, onVideoFrame: { frame, _ in
                if let number = FrameNumberStamp.read(from: frame) { numbers.append(number) }
            }, onAudioFrame: { frame in audio.append(frame.buffer) })
            try receiver.start()
            router.publishMedia = WireMediaLeg(host: "127.0.0.1", port: Int(receiver.localAddress.port), profile: keys.send.profile.rfcName,
                                               clientKey: keys.send.base64, routerKey: keys.receive.base64, audioSSRC: 2222, videoSSRC: 1111)
            let settings = OTSessionSettings()
            settings.transportFactory = router.factory()
            settings.statsInterval = 0.2
            guard let session = OTSession(apiKey: "123", sessionId: "1_s", delegate: recorder, settings: settings) else { throw OTError(OTSessionErrorCode.internalError, "no session") }
            self.session = session
            session.apiQueue = recorder.queue
            try session.connect(withToken: "T1==t")
            #expect(recorder.wait { $0.contains("didConnect") })
        }

        func publish(_ publisher: OTPublisherKit) throws -> PublishRequest? {
            try session.publish(publisher)
            #expect(recorder.wait { $0.contains("publisher streamCreated own-stream") })
            return router.messages.compactMap { if case .publish(let r) = $0 { return r } else { return nil } }.first
        }

        /// Waits for `count` decoded frames and checks their numbers increase.
        func expectIncreasingFrames(_ count: Int) {
            #expect(recorder.wait(20) { _ in decodedNumbers.values.count >= count })
            let numbers = decodedNumbers.values
            #expect(numbers.count >= count)
            #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "frame numbers increase")
        }

        func finish() {
            session.disconnect()
            #expect(recorder.wait { $0.last == "didDisconnect" })
            receiver.stop()
            OTAudioDeviceManager.setAudioDevice(nil)
        }
    }

    @Test func capturerFramesArriveDecodedAndSwitchesStopPackets() throws {
        try AudioDeviceTestLock.run { try capturerFrames() }
    }

    private func capturerFrames() throws {
        let harness = try Harness()
        let capturer = TestPatternCapturer(width: 320, height: 240, fps: 30)
        let publisherSettings = OTPublisherKitSettings()
        publisherSettings.videoCapture = capturer
        publisherSettings.name = "pattern"
        let publisher = OTPublisherKit(delegate: harness.recorder, settings: publisherSettings)
        let stats = Stats()
        publisher.networkStatsDelegate = stats
        let request = try harness.publish(publisher)
        #expect(request?.videoWidth == 320 && request?.videoHeight == 240 && request?.videoType == "custom")
        harness.expectIncreasingFrames(20)
        let receiver = harness.receiver
        #expect(harness.recorder.wait { _ in stats.videoSent.withLock { $0 } > 0 })
        #expect(harness.recorder.wait { _ in receiver.audioCounters.snapshot().packets > 10 })

        publisher.publishAudio = false
        publisher.publishVideo = false
        Thread.sleep(forTimeInterval: 0.2)
        let audioBefore = receiver.audioCounters.snapshot().packets
        let videoBefore = receiver.videoCounters.snapshot().packets
        Thread.sleep(forTimeInterval: 0.6)
        #expect(receiver.audioCounters.snapshot().packets == audioBefore)
        #expect(receiver.videoCounters.snapshot().packets == videoBefore)
        let messages = harness.router.messages
        #expect(messages.contains(.streamChanged(StreamChange(streamId: "own-stream", hasAudio: false, hasVideo: nil))))
        #expect(messages.contains(.streamChanged(StreamChange(streamId: "own-stream", hasAudio: nil, hasVideo: false))))
        #expect(publisher.stream?.hasAudio == false && publisher.stream?.hasVideo == false)

        publisher.publishVideo = true
        #expect(harness.recorder.wait { _ in receiver.videoCounters.snapshot().packets > videoBefore })
        harness.finish()
        #expect(harness.recorder.calls.suffix(2) == ["publisher streamDestroyed own-stream", "didDisconnect"])
        #expect(!capturer.isCaptureStarted())
    }

    /// OTPublisher's camera: a V4L2 device when the machine has one; otherwise the test
    /// pattern stands in, and then its stamped numbers are read back.
    @Test func cameraPublisherSendsTheCameraOrTheTestPattern() throws {
        try AudioDeviceTestLock.run { try cameraPublisher() }
    }

    private func cameraPublisher() throws {
        let harness = try Harness()
        let settings = OTPublisherSettings()
        settings.cameraResolution = .low
        settings.cameraFrameRate = .rate15FPS
        let publisher = try #require(OTPublisher(delegate: harness.recorder, settings: settings))
        let request = try harness.publish(publisher)
        #expect(request?.videoType == "camera" && request?.videoWidth == 320 && request?.videoHeight == 240)
        if V4L2Camera.devices().isEmpty {
            harness.expectIncreasingFrames(10)
        } else {
            let receiver = harness.receiver
            #expect(harness.recorder.wait(20) { _ in receiver.videoCounters.snapshot().frames >= 10 })
        }
        harness.finish()
    }

    /// A custom OTAudioDevice's captured tone (pushed through OTAudioBus) is what the
    /// publisher sends: the receiver decodes the same frequency.
    @Test func customAudioDeviceToneIsPublished() throws {
        try AudioDeviceTestLock.run {
            let device = ToneLoopDevice(frequency: 660)
            let harness = try Harness(device: device)
            let settings = OTPublisherKitSettings()
            settings.videoTrack = false
            let publisher = OTPublisherKit(delegate: harness.recorder, settings: settings)
            let request = try harness.publish(publisher)
            #expect(request?.hasAudio == true && request?.hasVideo == false)
            #expect(device.isCapturing())
            #expect(harness.recorder.wait(20) { _ in harness.decodedAudio.values.count >= 48_000 * 2 })
            let samples = Array(harness.decodedAudio.values.suffix(48_000))
            let frequency = try #require(AudioAnalysis.dominantFrequency(samples: samples, sampleRate: 48_000))
            #expect(abs(frequency - 660) < 2)
            harness.finish()
            #expect(!device.isCapturing())
        }
    }
}
