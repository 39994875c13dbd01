import Foundation
import OTMedia
import Testing

extension MediaPathTests {
    /// Proves the GStreamer interop tooling (Support/GStreamer) on its own: GStreamer sends
    /// OTKit's test pattern and a 440 Hz tone to GStreamer on 127.0.0.1 under each SRTP
    /// profile, and the readers find ≥ 95 % of the frame numbers, PSNR-Y ≥ 30 dB and the
    /// tone. If this fails, an OTKit↔GStreamer failure is the tooling's, not OTKit's.
    @Suite(.enabled(if: GStreamerAvailability.shouldRun, "GStreamer (gst-launch-1.0 and plugins) is not installed"),
           .serialized)
    struct GStreamerLoopbackTests {
        static let frames: UInt32 = 150
        static let format = VideoFormat(width: 640, height: 480, frameRate: 30)

        @Test("GStreamer sends pattern + tone to GStreamer over SRTP", arguments: [SRTPProfile.aeadAES128GCM, .aesCM128HMACSHA1_80])
        func srtpLoopback(profile: SRTPProfile) throws {
            try #require(GStreamerAvailability.isAvailable, "\(GStreamerAvailability.reason ?? "")")
            let directory = FileManager.default.temporaryDirectory.path + "/otkit-gst-\(getpid())-\(profile.rfcName)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }

            let y4m = "\(directory)/pattern.y4m", i420 = "\(directory)/received.i420", wav = "\(directory)/received.wav"
            try TestPatternY4M.write(path: y4m, format: Self.format, numbers: 0..<Self.frames)
            let ports = InteropPorts.take(2)
            try #require(ports.count == 2)
            let key = SRTPTestPackets.keys(profile)
            let (videoSSRC, audioSSRC): (UInt32, UInt32) = (0x1122_3344, 0x5566_7788)

            let receiver = GStreamerPeer(name: "receiver", pipeline: GStreamerPipelines.receiver(
                video: .init(port: ports[0], ssrc: videoSSRC, outputPath: i420, frameLimit: Int(Self.frames)),
                audio: .init(port: ports[1], ssrc: audioSSRC, outputPath: wav),
                srtp: key), directory: directory)
            try receiver.start()
            let listening = receiver.waitForListeningPorts()
            if !listening { Issue.record("receiver did not bind \(ports): \(receiver.stop())") }
            try #require(listening)

            let sender = GStreamerPeer(name: "sender", pipeline: GStreamerPipelines.sender(
                video: .init(port: ports[0], ssrc: videoSSRC, y4mPath: y4m),
                audio: .init(port: ports[1], ssrc: audioSSRC, input: .tone(frequency: 440, seconds: Double(Self.frames) / 30)),
                srtp: key), directory: directory)
            try sender.start()
            // 5 s of media; generous deadline for a loaded machine.
            let sent = sender.wait(timeoutSeconds: 30)
            #expect(sent.ending == .exited, "sender: \(sent)")
            usleep(500_000)  // let the receiver's 200 ms jitter buffer drain
            let received = receiver.stop()
            #expect(received.ending != .killed, "receiver: \(received)")

            let video = try DecodedVideoSummary(i420Path: i420, width: Self.format.width, height: Self.format.height,
                                                sentNumbers: 0..<Self.frames)
            #expect(video.fractionPresent >= 0.95, "video: \(video)\nreceiver: \(received)")
            #expect(video.meanPSNRY >= 30, "video: \(video)")
            let audio = try DecodedAudioSummary(wavPath: wav)
            #expect(audio.seconds >= 3, "audio: \(audio)")
            let frequency = try #require(audio.dominantFrequency, "audio: \(audio)")
            #expect(abs(frequency - 440) <= 5, "audio: \(audio)")
            print("GStreamerLoopbackTests \(profile): video \(video); audio \(audio)")
        }

        @Test("Plain RTP, video only: the receiver ends by itself after its frame limit")
        func plainVideoOnly() throws {
            try #require(GStreamerAvailability.isAvailable, "\(GStreamerAvailability.reason ?? "")")
            let frames: UInt32 = 60, limit: UInt32 = 40
            let directory = FileManager.default.temporaryDirectory.path + "/otkit-gst-\(getpid())-plain"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let y4m = "\(directory)/pattern.y4m", i420 = "\(directory)/received.i420"
            try TestPatternY4M.write(path: y4m, format: Self.format, numbers: 1000..<(1000 + frames))
            let port = try #require(InteropPorts.take(1).first)

            let receiver = GStreamerPeer(name: "receiver", pipeline: GStreamerPipelines.receiver(
                video: .init(port: port, ssrc: 42, outputPath: i420, frameLimit: Int(limit)), audio: nil, srtp: nil),
                directory: directory)
            try receiver.start()
            try #require(receiver.waitForListeningPorts(), "receiver: \(receiver.stop())")
            let sender = GStreamerPeer(name: "sender", pipeline: GStreamerPipelines.sender(
                video: .init(port: port, ssrc: 42, y4mPath: y4m), audio: nil, srtp: nil), directory: directory)
            try sender.start()
            let sent = sender.wait(timeoutSeconds: 20)
            #expect(sent.succeeded, "sender: \(sent)")
            let received = receiver.wait(timeoutSeconds: 10)
            #expect(received.ending == .exited && received.reachedEndOfStream, "receiver: \(received)")

            let video = try DecodedVideoSummary(i420Path: i420, width: Self.format.width, height: Self.format.height,
                                                sentNumbers: 1000..<(1000 + frames))
            #expect(video.framesDecoded == Int(limit), "video: \(video)")
            #expect(video.distinctNumbers >= Int(limit) - 2, "video: \(video)")
            #expect(video.framesOutOfOrder == 0, "video: \(video)")
        }

        @Test("With rtpbin sending RTCP on port + 1 (no rtcp-mux), the receiver still decodes")
        func senderReportsWithoutMux() throws {
            try #require(GStreamerAvailability.isAvailable, "\(GStreamerAvailability.reason ?? "")")
            let frames: UInt32 = 60, limit: UInt32 = 40
            let directory = FileManager.default.temporaryDirectory.path + "/otkit-gst-\(getpid())-sr"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let y4m = "\(directory)/pattern.y4m", i420 = "\(directory)/received.i420"
            try TestPatternY4M.write(path: y4m, format: Self.format, numbers: 0..<frames)
            // Two adjacent ports: RTP and RTCP.
            let ports = try #require(InteropPorts.takeAdjacentPair(), "no two adjacent free ports")
            let key = SRTPTestPackets.keys(.aeadAES128GCM)

            let receiver = GStreamerPeer(name: "receiver", pipeline: GStreamerPipelines.receiver(
                video: .init(port: ports[0], ssrc: 9, outputPath: i420, frameLimit: Int(limit)), audio: nil, srtp: key, rtcpMux: false),
                directory: directory)
            #expect(receiver.pipeline.listeningPorts == ports)
            try receiver.start()
            try #require(receiver.waitForListeningPorts(), "receiver: \(receiver.stop())")
            let sender = GStreamerPeer(name: "sender", pipeline: GStreamerPipelines.sender(
                video: .init(port: ports[0], ssrc: 9, y4mPath: y4m), audio: nil, srtp: key, senderReports: true, rtcpMux: false),
                directory: directory)
            try sender.start()
            let received = receiver.wait(timeoutSeconds: 20)
            #expect(received.reachedEndOfStream, "receiver: \(received)")
            if !received.succeeded { print("GStreamer receiver crashed in its teardown after EOS: \(received)") }
            // rtpbin senders often hang after EOS (interop.md): any ending but a launch failure is fine.
            let sent = sender.wait(timeoutSeconds: 3)
            #expect(sent.standardError.isEmpty, "sender: \(sent)")
            let video = try DecodedVideoSummary(i420Path: i420, width: Self.format.width, height: Self.format.height,
                                                sentNumbers: 0..<frames)
            #expect(video.framesDecoded == Int(limit), "video: \(video)")
            #expect(video.distinctNumbers >= Int(limit) - 2, "video: \(video)")
        }

        @Test("A wrong SRTP key decodes nothing")
        func wrongKey() throws {
            try #require(GStreamerAvailability.isAvailable, "\(GStreamerAvailability.reason ?? "")")
            let frames: UInt32 = 30
            let directory = FileManager.default.temporaryDirectory.path + "/otkit-gst-\(getpid())-wrongkey"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let y4m = "\(directory)/pattern.y4m", i420 = "\(directory)/received.i420"
            try TestPatternY4M.write(path: y4m, format: Self.format, numbers: 0..<frames)
            let port = try #require(InteropPorts.take(1).first)

            let receiver = GStreamerPeer(name: "receiver", pipeline: GStreamerPipelines.receiver(
                video: .init(port: port, ssrc: 7, outputPath: i420), audio: nil, srtp: .random(profile: .aeadAES128GCM)),
                directory: directory)
            try receiver.start()
            try #require(receiver.waitForListeningPorts(), "receiver: \(receiver.stop())")
            let sender = GStreamerPeer(name: "sender", pipeline: GStreamerPipelines.sender(
                video: .init(port: port, ssrc: 7, y4mPath: y4m), audio: nil, srtp: .random(profile: .aeadAES128GCM)),
                directory: directory)
            try sender.start()
            let sent = sender.wait(timeoutSeconds: 20)
            #expect(sent.succeeded, "sender: \(sent)")
            // No packet authenticates, so rtpbin never opens its output: SIGINT cannot reach the
            // sink and the receiver is killed (interop.md), which is why `stop` escalates.
            _ = receiver.stop()
            #expect(!receiver.isRunning)
            let video = try DecodedVideoSummary(i420Path: i420, width: Self.format.width, height: Self.format.height,
                                                sentNumbers: 0..<frames)
            #expect(video.framesDecoded == 0, "video: \(video)")
        }
    }
}
