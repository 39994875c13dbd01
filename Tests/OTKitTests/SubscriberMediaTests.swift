import Foundation
import OTMedia
import OTSignaling
import Synchronization
import Testing
@testable import OTKit

/// An OTSubscriberKit receives real SRTP media: its RTCP reaches the leg's address
/// (a socket standing for the router, which learns the subscriber's address from it, as
/// the router does), a PublisherPipeline then sends the test pattern there; the
/// OTVideoRender reads increasing frame numbers, the OTAudioRender hears the stream's own
/// 440 Hz tone (and nothing once `subscribeToAudio` is off), stats are real, and stream
/// interruptions and video toggles reach the subscriber delegate.
@Suite(.serialized)
struct SubscriberMediaTests {
    final class Stats: OTSubscriberKitNetworkStatsDelegate, @unchecked Sendable {
        let received = Mutex<UInt64>(0)
        func subscriber(_ subscriber: OTSubscriberKit, videoNetworkStatsUpdated stats: OTSubscriberKitVideoNetworkStats) {
            received.withLock { $0 = stats.videoPacketsReceived }
        }
    }

    /// Collects what `audioRender` is handed.
    final class HeardAudio: OTAudioRender, @unchecked Sendable {
        let samples = Mutex<[Int16]>([])
        let format = Mutex<(rate: Int, channels: Int)>((0, 0))
        func renderAudioFrame(_ samples: UnsafeBufferPointer<Int16>, sampleRate: Int, channels: Int) {
            self.samples.withLock { $0.append(contentsOf: samples) }
            format.withLock { $0 = (sampleRate, channels) }
        }
        var count: Int { samples.withLock { $0.count } }
    }

    @Test func renderReadsIncreasingFrameNumbersAndEventsArrive() throws {
        try AudioDeviceTestLock.run { try renderAndEvents() }
    }

    private func renderAndEvents() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let keys = SRTPLegKeys.random()   // send = the client's (its RTCP), receive = the router's
        let routerSocket = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 1 << 16, sendBufferBytes: 1 << 16)
        let router = ScriptedRouter()
        router.otherConnections = [WireConnection(connectionId: "alice", creationTime: 1, data: nil)]
        router.otherStreams = [WireStream(streamId: "alice-cam", connectionId: "alice", name: "A", hasAudio: true, hasVideo: true,
                                          videoWidth: 320, videoHeight: 240, videoType: "camera", creationTime: 3)]
        router.subscribeMedia = WireMediaLeg(host: "127.0.0.1", port: Int(routerSocket.localAddress.port), profile: keys.send.profile.rfcName,
                                             clientKey: keys.send.base64, routerKey: keys.receive.base64, audioSSRC: 3333, videoSSRC: 4444)
        let recorder = DelegateRecorder()
        let settings = OTSessionSettings()
        settings.transportFactory = router.factory()
        settings.statsInterval = 0.2
        let session = try #require(OTSession(apiKey: "123", sessionId: "1_s", delegate: recorder, settings: settings))
        session.apiQueue = recorder.queue
        try session.connect(withToken: "T1==t")
        #expect(recorder.wait { $0.contains("streamCreated alice-cam") })

        let stream = try #require(session.streams["alice-cam"])
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: recorder))
        let render = FrameNumberRender()
        let stats = Stats()
        let heard = HeardAudio()
        subscriber.videoRender = render
        subscriber.audioRender = heard
        subscriber.networkStatsDelegate = stats
        subscriber.preferredResolution = OTVideoDimensions(width: 160, height: 120)
        try session.subscribe(subscriber)
        #expect(recorder.wait { $0.contains("subscriber connected") })
        #expect(subscriber.preferredResolution == OTVideoDimensions(width: 160, height: 120))

        // The subscriber's first RTCP tells the "router" where it is.
        #expect(try routerSocket.waitUntilReadable(timeoutNanoseconds: 5_000_000_000))
        let pool = PacketBufferPool(initialCount: 1, bufferSize: 1600)
        let buffer = try #require(pool.take())
        _ = try routerSocket.receive(into: [buffer], batch: UDPMessageBatch(capacity: 1))
        let subscriberAddress = try #require(buffer.peer)

        var configuration = PublisherConfiguration(destination: subscriberAddress,
                                                   video: VP8EncoderSettings(width: 320, height: 240, frameRate: 30, bitrateKbps: 300),
                                                   audio: OpusEncoderSettings())
        configuration.keys = keys.reversed
        configuration.videoStream = .vp8(ssrc: 4444)
        configuration.audioStream = .opus(ssrc: 3333)
        configuration.localAddress = .ipv4Loopback()
        let sender = try PublisherPipeline(configuration: configuration,
                                           videoSource: try TestPatternSource(format: VideoFormat(width: 320, height: 240, frameRate: 30)),
                                           audioSource: try ToneSource())
        try sender.start()
        defer { sender.stop() }
        #expect(recorder.wait { _ in render.seen.count >= 20 })
        let numbers = render.seen
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "frame numbers increase")
        #expect(recorder.wait { _ in stats.received.withLock { $0 } > 0 })

        // The stream's own audio, before any mixing: 1 s of the tone.
        #expect(recorder.wait { _ in heard.count >= 96_000 })
        let tone = Array(heard.samples.withLock { $0 }.suffix(48_000))
        let frequency = AudioAnalysis.dominantFrequency(samples: tone, sampleRate: 48_000) ?? 0
        #expect(heard.format.withLock { $0 } == (48_000, 1))
        #expect(AudioAnalysis.rms(tone) > 1000 && abs(frequency - 440) < 2, "the audio render hears the tone: \(frequency) Hz")
        subscriber.subscribeToAudio = false
        Thread.sleep(forTimeInterval: 0.2)
        let heardBefore = heard.count
        Thread.sleep(forTimeInterval: 0.3)
        #expect(heard.count == heardBefore, "nothing while subscribeToAudio is off")
        subscriber.subscribeToAudio = true

        router.push(.streamInterrupted(streamId: "alice-cam"))
        router.push(.streamResumed(streamId: "alice-cam"))
        router.push(.streamChanged(StreamChange(streamId: "alice-cam", hasAudio: nil, hasVideo: false)))
        #expect(recorder.wait { $0.contains("subscriber videoDisabled 1") })
        subscriber.subscribeToVideo = false
        #expect(recorder.wait { $0.contains("subscriber videoDisabled 2") })
        subscriber.subscribeToVideo = true
        #expect(recorder.wait { $0.contains("subscriber videoEnabled 2") })
        let subscriberCalls = recorder.calls.filter { $0.hasPrefix("subscriber") }
        #expect(subscriberCalls == ["subscriber connected", "subscriber disconnected", "subscriber reconnected",
                                  "subscriber videoDisabled 1", "subscriber videoDisabled 2", "subscriber videoEnabled 2"])
        #expect(recorder.wait { _ in stream.hasVideo == false })
        // Each toggle told the router, in order (it stops and resumes forwarding).
        #expect(recorder.wait { _ in router.messages.filter { if case .subscriptionChanged = $0 { true } else { false } }.count == 4 })
        #expect(router.messages.filter { if case .subscriptionChanged = $0 { true } else { false } } == [
            .subscriptionChanged(SubscriptionChange(subscriberId: "sub-alice-cam", subscribeToAudio: false, subscribeToVideo: true)),
            .subscriptionChanged(SubscriptionChange(subscriberId: "sub-alice-cam", subscribeToAudio: true, subscribeToVideo: true)),
            .subscriptionChanged(SubscriptionChange(subscriberId: "sub-alice-cam", subscribeToAudio: true, subscribeToVideo: false)),
            .subscriptionChanged(SubscriptionChange(subscriberId: "sub-alice-cam", subscribeToAudio: true, subscribeToVideo: true)),
        ])

        // Unsubscribe stops rendering.
        try session.unsubscribe(subscriber)
        Thread.sleep(forTimeInterval: 0.3)
        let count = render.seen.count
        Thread.sleep(forTimeInterval: 0.3)
        #expect(render.seen.count == count)
        #expect(router.messages.contains(.unsubscribe(subscriberId: "sub-alice-cam")))
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
    }
}
