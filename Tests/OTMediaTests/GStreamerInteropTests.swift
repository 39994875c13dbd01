import Foundation
import Synchronization
import Testing
@testable import OTMedia

extension MediaPathTests {
    /// OTKit's pipelines against GStreamer on 127.0.0.1, both directions, both SRTP
    /// profiles: what OTKit sends, software it did not write decodes; what that software
    /// sends, OTKit decodes.
    @Suite(.enabled(if: GStreamerAvailability.shouldRun, "GStreamer (gst-launch-1.0 and plugins) is not installed"),
           .serialized)
    struct GStreamerInteropTests {
        static let frames: UInt32 = 150
        static let format = VideoFormat(width: 640, height: 480, frameRate: 30)
        static let (videoSSRC, audioSSRC): (UInt32, UInt32) = (0x1122_3344, 0x5566_7788)

        private func scratchDirectory(_ name: String) throws -> String {
            let directory = FileManager.default.temporaryDirectory.path + "/otkit-interop-\(getpid())-\(name)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return directory
        }

        @Test("OTKit publisher → GStreamer receiver", arguments: [SRTPProfile.aeadAES128GCM, .aesCM128HMACSHA1_80])
        func otkitToGStreamer(profile: SRTPProfile) throws {
            try #require(GStreamerAvailability.isAvailable, "\(GStreamerAvailability.reason ?? "")")
            let directory = try scratchDirectory("pub-\(profile.rfcName)")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let i420 = "\(directory)/received.i420", wav = "\(directory)/received.wav"
            let ports = InteropPorts.take(2)
            try #require(ports.count == 2)
            let keys = SRTPLegKeys.random(profile: profile)

            let receiver = GStreamerPeer(name: "receiver", pipeline: GStreamerPipelines.receiver(
                video: .init(port: ports[0], ssrc: Self.videoSSRC, outputPath: i420),
                audio: .init(port: ports[1], ssrc: Self.audioSSRC, outputPath: wav),
                srtp: keys.send), directory: directory)
            try receiver.start()
            try #require(receiver.waitForListeningPorts(), "receiver did not bind \(ports)")

            var video = VP8EncoderSettings(width: Self.format.width, height: Self.format.height, frameRate: 30, bitrateKbps: 800)
            video.maxKeyframeInterval = 60
            var configuration = PublisherConfiguration(destination: .ipv4Loopback(port: ports[0]), video: video,
                                                       audio: OpusEncoderSettings(format: .mono20ms))
            configuration.audioDestination = .ipv4Loopback(port: ports[1])
            configuration.videoStream = RTPStreamParameters(ssrc: Self.videoSSRC, payloadType: 96, clockRate: 90_000)
            configuration.audioStream = RTPStreamParameters(ssrc: Self.audioSSRC, payloadType: 111, clockRate: 48_000)
            configuration.keys = keys
            configuration.localAddress = .ipv4Loopback()
            let publisher = try PublisherPipeline(
                configuration: configuration,
                videoSource: try TestPatternSource(format: Self.format),
                audioSource: try ToneSource(frequency: 440, amplitude: 0.5, format: .mono20ms))
            let sent = Atomic<Int>(0)
            publisher.onFrameCaptured { _, _ in sent.add(1, ordering: .relaxed) }
            try publisher.start()
            let deadline = Date().addingTimeInterval(30)
            while sent.load(ordering: .relaxed) < Int(Self.frames) && Date() < deadline { usleep(20_000) }
            publisher.stop()
            usleep(500_000)  // the receiver's 200 ms jitter buffer drains
            let received = receiver.stop()

            let summary = try DecodedVideoSummary(i420Path: i420, width: Self.format.width, height: Self.format.height,
                                                  sentNumbers: 0..<Self.frames)
            #expect(summary.fractionPresent >= 0.95, "GStreamer decoded: \(summary)\nreceiver: \(received)")
            #expect(summary.meanPSNRY >= 30, "\(summary)")
            let audio = try DecodedAudioSummary(wavPath: wav)
            let frequency = try #require(audio.dominantFrequency, "audio: \(audio)")
            #expect(abs(frequency - 440) <= 5, "GStreamer decoded the tone at \(frequency) Hz: \(audio)")
            #expect(publisher.errorsSeen.isEmpty, "\(publisher.errorsSeen)")
        }

        @Test("GStreamer sender → OTKit subscriber", arguments: [SRTPProfile.aeadAES128GCM, .aesCM128HMACSHA1_80])
        func gstreamerToOTKit(profile: SRTPProfile) throws {
            try #require(GStreamerAvailability.isAvailable, "\(GStreamerAvailability.reason ?? "")")
            let directory = try scratchDirectory("sub-\(profile.rfcName)")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let y4m = "\(directory)/pattern.y4m"
            try TestPatternY4M.write(path: y4m, format: Self.format, numbers: 0..<Self.frames)
            let keys = SRTPLegKeys.random(profile: profile)

            let decoded = DecodedMedia(width: Self.format.width, height: Self.format.height)
            var configuration = SubscriberConfiguration()
            configuration.keys = keys.reversed
            configuration.localAddress = .ipv4Loopback()
            configuration.audioFormat = .stereo20ms
            let subscriber = try SubscriberPipeline(configuration: configuration,
                                                    onVideoFrame: { frame, info in decoded.video(frame, info) },
                                                    onAudioFrame: { frame in decoded.audio(frame) })
            try subscriber.start()
            defer { subscriber.stop() }
            let port = subscriber.localAddress.port

            let sender = GStreamerPeer(name: "sender", pipeline: GStreamerPipelines.sender(
                video: .init(port: port, ssrc: Self.videoSSRC, y4mPath: y4m, bitrate: 1_000_000),
                audio: .init(port: port, ssrc: Self.audioSSRC, input: .tone(frequency: 440, seconds: Double(Self.frames) / 30)),
                srtp: keys.send), directory: directory)
            try sender.start()
            let outcome = sender.wait(timeoutSeconds: 30)
            #expect(outcome.ending == .exited, "sender: \(outcome)")
            usleep(500_000)
            subscriber.stop()

            let (numbers, samples, psnrs) = decoded.snapshot { ($0.frameNumbers, $0.audioSamples, $0.psnrs) }
            let present = Set(numbers).intersection(0..<Self.frames).count
            #expect(Double(present) >= 0.95 * Double(Self.frames), "OTKit decoded \(present) of \(Self.frames) frames")
            let meanPSNR = psnrs.reduce(0, +) / Double(max(psnrs.count, 1))
            #expect(psnrs.count >= 20 && meanPSNR >= 30, "OTKit's decode of GStreamer's VP8: mean Y-PSNR \(meanPSNR) over \(psnrs.count) frames")
            let frequency = AudioAnalysis.dominantFrequency(samples: Array(samples.suffix(96_000)), sampleRate: 48_000,
                                                            channels: 2, channel: 0)
            #expect(frequency.map { abs($0 - 440) <= 5 } == true, "OTKit decoded the tone at \(String(describing: frequency)) Hz")
            #expect(subscriber.videoCounters.snapshot().badPackets == 0)
        }
    }
}
