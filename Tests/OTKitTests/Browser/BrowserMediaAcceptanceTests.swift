import Foundation
import OTMedia
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Issue 16 acceptance (a) and (b): media between real headless Chromium on otkit.js and
/// OTKit's native client through the embedded router's one-port WebRTC edge. Each test
/// measures 10 s of steady media (after a warm-up) and compares what one side sent with
/// what the other decoded, by the sender's own counters. A machine without Chromium fails.
@Suite(.serialized) struct BrowserMediaAcceptanceTests {
    static let project = ProjectCredentials(apiKey: "4818", apiSecret: "0123456789abcdef0123456789abcdef01234818")
    let kit = SessionTestKit(project: Self.project)
    /// The measured window.
    static let window = 10.0

    /// A rig (fake camera at 30 fps, `device` as the audio device) with one joined tab.
    func withBrowser(_ device: ToneSourceDevice,
                     _ body: (Router, String, BrowserClient) throws -> Void) throws {
        try BrowserRig.run(kit, device: device, fps: 30) { rig in
            try body(rig.router, rig.sessionId, try rig.tab(data: "browser"))
        }
    }

    /// (a) The browser publishes its fake camera and microphone; an OTKit subscriber in this
    /// process decodes ≥ 90 % of the frames the browser sent (its outbound-rtp framesSent)
    /// over 10 s, and plays the fake microphone's beep: 20 ms bursts of a 400 Hz square
    /// wave every 500 ms, so loud 10 ms pieces are a minority and their pitch is 400 Hz.
    @Test func aBrowserPublishesAndANativeSubscriberDecodesItsFramesAndTheFakeMicrophone() throws {
        let device = ToneSourceDevice()
        try withBrowser(device) { router, sessionId, client in
            let published = try client.publish("{name: 'browser cam', resolution: '640x480', frameRate: 30, disableAudioProcessing: true}")
            let streamId = try #require(try? published.get(), "browser publish failed: \(published)")
            let recorder = DelegateRecorder()
            let native = try kit.joinSeeing(streamId, router, sessionId, recorder)
            defer { native.disconnect() }
            let stream = try #require(native.streams[streamId])
            #expect(stream.name == "browser cam" && stream.hasAudio && stream.hasVideo)
            let subscriber = try #require(OTSubscriber(stream: stream, delegate: recorder))
            let render = CountingRender()
            subscriber.videoRender = render
            try native.subscribe(subscriber)
            #expect(recorder.wait(30) { $0.contains("subscriber connected") })
            // Warm-up: ICE, DTLS, the first keyframe and Chrome's ramp to 640x480.
            let warm = recorder.wait(30) { _ in render.frames >= 30 }
            let outbound = warm ? [] : try client.mediaStats().report.filter { $0.type == "outbound-rtp" }
            #expect(warm, "no decoded frames; the browser's outbound-rtp: \(outbound)")

            let before = try client.mediaStats(), decodedBefore = render.frames
            Thread.sleep(forTimeInterval: Self.window)
            let after = try client.mediaStats(), decodedAfter = render.frames
            let video = try #require(after.first("outbound-rtp", "video"))
            let sent = (video.framesSent ?? 0) - (before.first("outbound-rtp", "video")?.framesSent ?? 0)
            let decoded = decodedAfter - decodedBefore
            #expect(sent >= Int(Self.window) * 10, "the browser sent \(sent) frames in \(Self.window) s: too few to judge")
            #expect(Double(decoded) >= 0.9 * Double(sent), "decoded \(decoded) of \(sent) frames the browser sent")
            #expect(after.codec(of: video) == "video/VP8")
            // The summary comes from another getStats call just after the report's.
            let summarized = after.summary.video.framesSent ?? -1
            #expect(summarized >= (video.framesSent ?? 0) && summarized <= (video.framesSent ?? 0) + 15,
                    "getStats' summary carries framesSent: \(summarized) against the report's \(video.framesSent ?? -1)")
            #expect(render.lastSize.width > 0)
            // The browser's media went to the router's one media port.
            #expect(after.remoteCandidate?.port == router.mediaPort, "\(String(describing: after.remoteCandidate))")

            // The fake microphone's beep, decoded from Opus by the native subscriber.
            let heard = device.lastRendered(48_000 * 2)
            let beep = BeepAnalysis(heard)
            print("acceptance (a): the native subscriber decoded \(decoded) of \(sent) frames the browser sent in \(Self.window) s"
                  + " (\(sent == 0 ? 0 : decoded * 100 / sent) %); fake microphone: \(beep)")
            #expect(beep.loudPieces >= 4, "beeps heard in 2 s: \(beep)")
            #expect(beep.loudFraction < 0.3, "a beep every 500 ms, not continuous sound: \(beep)")
            #expect(abs(beep.pitch - 400) < 25, "the fake microphone's 400 Hz beep: \(beep)")
        }
    }

    /// (b) OTKit publishes the test pattern and the 440 Hz tone (TestPatternSource through
    /// OTTestPatternCapture, and ToneSource: the sources `otkit publish --test-pattern --tone`
    /// sends) and the browser subscribes through otkit.js: its inbound-rtp framesDecoded
    /// grows by ≥ 90 % of the frames the publisher encoded and sent over 10 s (its own
    /// counter), and its audio has samples and the tone's level. 320x240 keeps the routed
    /// publisher to one encoding: at 640 pixels it sends two simulcast layers, its counter
    /// sums both and the browser receives one, so the counter would not say what was sent
    /// to the browser (and the publisher drops frames per layer as it adapts).
    @Test func aNativePublisherOfTheTestPatternAndToneIsDecodedByABrowser() throws {
        let device = ToneSourceDevice()
        try withBrowser(device) { router, sessionId, client in
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(router, sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(sessionId, .publisher, data: "native"))
            defer { native.disconnect() }
            let (publisher, streamId) = try kit.publishPattern(native, recorder, name: "pattern", width: 320, height: 240, fps: 30)
            #expect(publisher.pipeline?.configuration.simulcastLayers == 1, "one encoding: its frame counter is what was sent")
            try client.wait(30, what: "the native stream") { $0.contains { $0.type == "streamCreated" && $0.stream?.streamId == streamId } }
            let subscribed = try client.subscribe(streamId)
            _ = try #require(try? subscribed.get(), "browser subscribe failed: \(subscribed)")
            // Warm-up: the first keyframe decoded and the jitter buffer filled.
            let deadline = Date().addingTimeInterval(30)
            while try client.mediaStats(streamId).first("inbound-rtp", "video")?.framesDecoded ?? 0 < 30, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.1)
            }

            let capture = try #require(publisher.videoCapture as? OTTestPatternCapture)
            let before = try client.mediaStats(streamId)
            #expect((before.first("inbound-rtp", "video")?.framesDecoded ?? 0) >= 30, "warm-up: 30 frames decoded in 30 s")
            let capturedBefore = capture.framesPushed.load(ordering: .relaxed)
            let encodedBefore = try #require(publisher.counters).video.frames
            // The audio level is the recent peak: read once a second through the window.
            var levels: [Double] = []
            let end = Date().addingTimeInterval(Self.window)
            while Date() < end {
                Thread.sleep(forTimeInterval: min(1, max(0, end.timeIntervalSinceNow)))
                levels.append(try client.mediaStats(streamId).first("inbound-rtp", "audio")?.audioLevel ?? -1)
            }
            let after = try client.mediaStats(streamId), capturedAfter = capture.framesPushed.load(ordering: .relaxed)
            let encodedAfter = try #require(publisher.counters).video.frames
            let video = try #require(after.first("inbound-rtp", "video"))
            let decoded = (video.framesDecoded ?? 0) - (before.first("inbound-rtp", "video")?.framesDecoded ?? 0)
            let sent = Int(encodedAfter - encodedBefore)
            let captured = capturedAfter - capturedBefore
            let audio = try #require(after.first("inbound-rtp", "audio"))
            let samples = (audio.totalSamplesReceived ?? 0) - (before.first("inbound-rtp", "audio")?.totalSamplesReceived ?? 0)
            print("acceptance (b): the browser decoded \(decoded) of \(sent) frames the publisher sent in \(Self.window) s"
                  + " (\(sent == 0 ? 0 : decoded * 100 / sent) %; \(captured) captured); audio: \(samples) samples,"
                  + " levels \(levels.map { String(format: "%.3f", $0) }); video before: \(BrowserClient.receiveLine(before.first("inbound-rtp", "video")))"
                  + "; after: \(BrowserClient.receiveLine(video))")
            #expect(sent >= Int(Self.window) * 10, "the publisher sent \(sent) frames in \(Self.window) s: too few to judge")
            #expect(Double(decoded) >= 0.9 * Double(sent), "the browser decoded \(decoded) of \(sent) frames sent")
            #expect(after.codec(of: video) == "video/VP8")
            #expect(video.frameWidth == 320)
            let summarized = after.summary.video.framesDecoded ?? -1
            #expect(summarized >= (video.framesDecoded ?? 0) && summarized <= (video.framesDecoded ?? 0) + 15,
                    "getStats' summary carries framesDecoded: \(summarized) against the report's \(video.framesDecoded ?? -1)")
            #expect(after.remoteCandidate?.port == router.mediaPort, "\(String(describing: after.remoteCandidate))")

            #expect(samples > 48_000 * Int(Self.window) / 2, "audio samples received in \(Self.window) s: \(samples)")
            // audioLevel is the recent peak as a fraction of full scale: the tone's 0.3.
            #expect((0.2...0.45).contains(levels.max() ?? 0), "the tone's level (0.3 of full scale): \(levels)")
            #expect(after.codec(of: audio) == "audio/opus")
            #expect(device.framesCaptured.load(ordering: .relaxed) > 0, "the tone was captured")
        }
    }
}

/// Where the loud parts of some audio are: 10 ms pieces whose RMS is over a threshold,
/// how many there are against all, and the pitch around the loudest one.
struct BeepAnalysis: CustomStringConvertible {
    let loudPieces: Int
    let pieces: Int
    let pitch: Double
    let peakRMS: Double

    var loudFraction: Double { pieces == 0 ? 1 : Double(loudPieces) / Double(pieces) }

    init(_ samples: [Int16], threshold: Double = 300) {
        let size = 480
        let chunks = stride(from: 0, to: samples.count - size + 1, by: size).map { Array(samples[$0..<$0 + size]) }
        let levels = chunks.map { AudioAnalysis.rms($0) }
        pieces = levels.count
        loudPieces = levels.filter { $0 > threshold }.count
        peakRMS = levels.max() ?? 0
        guard let loudest = levels.indices.max(by: { levels[$0] < levels[$1] }) else { pitch = 0; return }
        // The loudest piece and its neighbours (a 20 ms beep straddles at most three).
        let from = max(0, loudest - 1) * size, to = min(samples.count, (loudest + 2) * size)
        pitch = AudioAnalysis.dominantFrequency(samples: Array(samples[from..<to]), sampleRate: 48_000) ?? 0
    }

    var description: String {
        "\(loudPieces) loud of \(pieces) pieces, peak RMS \(Int(peakRMS)), pitch \(String(format: "%.1f", pitch)) Hz"
    }
}
