import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// Force mute is enforced by the router, not trusted to clients: a raw client (the wire
/// protocol and an OTMedia pipeline, no OTSession) publishes a test pattern and a 440 Hz
/// tone and keeps sending audio after a moderator mutes it; an OTKit subscriber stops
/// receiving audio (video keeps flowing) and the router counts the dropped packets.
@Suite(.serialized)
struct ForceMuteEnforcementTests {
    static let project = ProjectCredentials(apiKey: "4715", apiSecret: "0123456789abcdef0123456789abcdef01234567")
    private let kit = SessionTestKit(project: Self.project)

    @Test func rawClientIgnoringAForceMuteGetsNoAudioForwarded() throws {
        try AudioDeviceTestLock.run { try body() }
    }

    private func session(_ router: Router, _ sessionId: String, _ role: Role) throws -> (OTSession, DelegateRecorder) {
        let recorder = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, recorder)
        try kit.connect(session, recorder, token: try kit.token(sessionId, role))
        return (session, recorder)
    }

    private func body() throws {
        // S's subscriber plays into this device (its own capture is unused here).
        let device = ToneLoopDevice(frequency: 660)
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        let media = try MediaRouter()
        let router = try kit.startRouter(media: media)
        defer { router.stop() }
        let rest = RouterREST(router: router, project: Self.project)
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)

        let (moderator, m) = try session(router, sessionId, .moderator)
        let (subscriberSession, s) = try session(router, sessionId, .subscriber)
        let idM = try #require(moderator.connection?.connectionId)
        let idS = try #require(subscriberSession.connection?.connectionId)

        // The raw client: connect and publish on the wire, then run a pipeline from the leg.
        let raw = try RawSignalingClient(url: router.signalingURL(sessionId: sessionId))
        defer { raw.close() }
        let token = try kit.token(sessionId, .publisher)
        guard case .connected(let connected)? = raw.request(.connect(ConnectRequest(apiKey: Self.project.apiKey, token: token))) else {
            Issue.record("the raw client could not connect"); return
        }
        let idRaw = connected.connection.connectionId
        let publishRequest = PublishRequest(name: "raw", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                                            videoWidth: 160, videoHeight: 120, videoType: "custom")
        guard case .published(let published)? = raw.request(.publish(publishRequest)) else {
            Issue.record("the raw client could not publish"); return
        }
        let rawStream = published.stream.streamId
        #expect(!published.muted)
        let leg = try #require(published.media)
        let profile = try #require(SRTPProfile(rfcName: leg.profile))
        var pipelineConfiguration = PublisherConfiguration(
            destination: try #require(SocketAddress(ipv4: leg.host, port: UInt16(leg.port))),
            video: VP8EncoderSettings(width: 160, height: 120, frameRate: 30, bitrateKbps: 200),
            audio: OpusEncoderSettings(format: .mono20ms))
        pipelineConfiguration.videoStream = .vp8(ssrc: try #require(leg.videoSSRC))
        pipelineConfiguration.audioStream = .opus(ssrc: try #require(leg.audioSSRC))
        pipelineConfiguration.keys = SRTPLegKeys(send: try SRTPKeyMaterial(profile: profile, base64: leg.clientKey ?? ""),
                                                 receive: try SRTPKeyMaterial(profile: profile, base64: leg.routerKey ?? ""))
        pipelineConfiguration.localAddress = .ipv4Loopback()
        let pipeline = try PublisherPipeline(configuration: pipelineConfiguration,
                                             videoSource: try TestPatternSource(format: VideoFormat(width: 160, height: 120, frameRate: 30)),
                                             audioSource: try ToneSource(frequency: 440, amplitude: 0.5, format: .mono20ms))
        try pipeline.start()
        defer { pipeline.stop() }

        // S subscribes to the raw stream: video frames and the 440 Hz tone arrive.
        #expect(s.wait { $0.contains("streamCreated \(rawStream)") })
        let subscriberStream = try #require(subscriberSession.streams[rawStream])
        let subscriber = try #require(OTSubscriber(stream: subscriberStream, delegate: s))
        let render = FrameNumberRender()
        subscriber.videoRender = render
        try subscriberSession.subscribe(subscriber)
        #expect(s.wait { $0.contains("subscriber connected") })
        #expect(s.wait(20) { _ in render.seen.count >= 10 && (subscriber.counters?.audio.packets ?? 0) >= 100 })
        #expect(s.wait(10) { _ in device.renderedSamples.count >= 48_000 })
        let heard = Array(device.renderedSamples.suffix(24_000))
        #expect(abs((AudioAnalysis.dominantFrequency(samples: heard, sampleRate: 48_000) ?? 0) - 440) < 2, "the raw client's tone")

        // The moderator mutes the raw stream; the raw client is told and ignores it.
        try moderator.forceMuteStream(try #require(moderator.streams[rawStream]))
        #expect(m.wait { _ in raw.events.contains(.muteForced(streamId: rawStream, active: true)) }, "the raw client was told")
        #expect(raw.events.filter { if case .muteForced = $0 { true } else { false } } == [.muteForced(streamId: rawStream, active: true)])
        // Packets already on their way when the mute landed: let 10 more audio packets leave first.
        let sentAtMute = pipeline.audioCounters.snapshot().packets
        #expect(m.wait { _ in pipeline.audioCounters.snapshot().packets >= sentAtMute + 10 })
        let receivedAfterMute = try #require(subscriber.counters?.audio.packets)
        let framesAfterMute = render.seen.count
        let droppedAfterMute = media.counters(streamId: rawStream)?.mutedAudioDropped ?? 0
        let sentAfterMute = pipeline.audioCounters.snapshot().packets
        // The raw client keeps sending audio (50 packets, 1 s): none of it reaches S.
        #expect(m.wait { _ in pipeline.audioCounters.snapshot().packets >= sentAfterMute + 50 }, "the raw publisher keeps sending audio")
        #expect(s.wait { _ in render.seen.count >= framesAfterMute + 10 }, "video keeps flowing")
        #expect(subscriber.counters?.audio.packets == receivedAfterMute, "no audio packet forwarded after the mute")
        // The sender's count moves first; its last packets may still be on the way to the router.
        #expect(m.wait { _ in (media.counters(streamId: rawStream)?.mutedAudioDropped ?? 0) >= droppedAfterMute + 50 })
        let counters = try #require(media.counters(streamId: rawStream))
        #expect(counters.mutedAudioDropped >= droppedAfterMute + 50, "every audio packet sent is dropped and counted: \(counters)")
        #expect(droppedAfterMute > 0)
        let metrics = try rest.metrics()
        #expect((metrics["otkit_muted_audio_packets_dropped_total"] ?? 0) >= Double(counters.mutedAudioDropped))
        #expect(router.metrics.media.mutedAudioDropped >= counters.mutedAudioDropped)
        let numbers = render.seen
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "frame numbers increase")

        // Nothing about the mute reaches the other clients' delegates (it is the raw client's to announce).
        #expect(m.calls == ["didConnect", "connectionCreated \(idS)", "connectionCreated \(idRaw)", "streamCreated \(rawStream)"])
        #expect(s.calls == ["didConnect", "connectionCreated \(idM)", "connectionCreated \(idRaw)", "streamCreated \(rawStream)",
                            "subscriber connected"])

        // The raw client leaves: its stream and connection go.
        pipeline.stop()
        #expect(raw.request(.disconnect) == .ok)
        raw.close()
        #expect(s.wait(15) { $0.suffix(2) == ["streamDestroyed \(rawStream)", "connectionDestroyed \(idRaw)"] })
        subscriberSession.disconnect()
        moderator.disconnect()
        #expect(s.wait { $0.last == "didDisconnect" })
        #expect(m.wait { $0.last == "didDisconnect" })
    }
}
