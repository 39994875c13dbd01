import Foundation
import OTMedia
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Issue 17, acceptance (browser): otkit.js in headless Chromium and a native OTKit client
/// in one e2ee session (`POST /session/create` with `e2ee=true`) with the same secret see
/// and hear each other both ways — SFrame sealed in the browser's encoded transform and
/// opened by native SFrame, and the other way round (≥ 90 % of video frames decoded over
/// 10 s, counted from what the sender sent; audio verified or heard) — and a browser with
/// another secret reports `encryptionSecretMismatch` once and decodes nothing. That the
/// router sees no plaintext is `E2EEForwardedPayloadTests`. A machine without Chromium fails.
@Suite(.serialized) struct BrowserE2EETests {
    static let project = ProjectCredentials(apiKey: "4917", apiSecret: "0123456789abcdef0123456789abcdef01234917")
    static let secret = "correct horse battery staple"
    let kit = SessionTestKit(project: Self.project)

    /// Waits up to `seconds` for `condition`; false when it never held.
    func eventually(_ seconds: Double = 30, _ condition: () throws -> Bool) rethrows -> Bool {
        try BrowserRig.eventually(seconds, condition)
    }

    /// A native client of the rig's session with `secret` set (its key derived).
    func native(_ rig: BrowserRig, _ recorder: DelegateRecorder, secret: String = Self.secret) throws -> OTSession {
        let session = try kit.makeSession(rig.router, rig.sessionId, recorder)
        try kit.connect(session, recorder, token: try kit.token(rig.sessionId, .publisher, data: "native"))
        try session.setEncryptionSecret(secret)
        #expect(eventually { session.encryptionKeys.hasKey }, "the native key is derived")
        return session
    }

    /// The browser publishes (sealed in its encoded transform), a native client subscribes:
    /// over 10 s it renders ≥ 90 % of the video frames the browser sent and verifies ≥ 90 %
    /// of its audio packets, and reports no error.
    @Test func aBrowserPublishesANativeClientDecodes() throws {
        try BrowserRig.run(kit, fps: 30, e2ee: true) { rig in
            let client = try rig.tab(data: "browser")
            #expect(try client.setEncryptionSecret(Self.secret) == nil)
            let streamId = try #require(try? client.publish("{resolution: '320x240', frameRate: 30}").get(), "the browser publishes")
            let recorder = DelegateRecorder()
            let session = try native(rig, recorder)
            defer { session.disconnect() }
            #expect(recorder.wait(20) { $0.contains("streamCreated \(streamId)") })
            let stream = try #require(session.streams[streamId])
            let subscriber = try #require(OTSubscriber(stream: stream, delegate: recorder))
            let render = CountingRender()
            subscriber.videoRender = render
            try session.subscribe(subscriber)
            #expect(eventually { render.frames >= 30 }, "the native client decodes the browser's video: \(render.frames) frames")
            let pipeline = try #require(subscriber.lock.withLock { subscriber.pipeline })

            func sent() throws -> (video: Int, audio: Int) {
                let stats = try client.mediaStats()
                return (stats.first("outbound-rtp", "video")?.framesSent ?? 0, stats.first("outbound-rtp", "audio")?.packetsSent ?? 0)
            }
            let before = (sent: try sent(), frames: render.frames, audio: pipeline.decryption.framesDecrypted(.audio))
            Thread.sleep(forTimeInterval: 10)
            let after = (sent: try sent(), frames: render.frames, audio: pipeline.decryption.framesDecrypted(.audio))
            let video = (sent: after.sent.video - before.sent.video, decoded: after.frames - before.frames)
            let audio = (sent: after.sent.audio - before.sent.audio, verified: Int(after.audio - before.audio))
            let report = "browser→native: \(video.decoded) of \(video.sent) video frames decoded, \(audio.verified) of \(audio.sent) audio packets verified; " +
                "\(pipeline.decryption.framesFailed) frames failed"
            print("BrowserE2EE:", report)
            #expect(video.sent >= 100 && Double(video.decoded) >= 0.9 * Double(video.sent), "video ≥ 90 %: \(report)")
            #expect(audio.sent >= 200 && Double(audio.verified) >= 0.9 * Double(audio.sent), "audio ≥ 90 %: \(report)")
            #expect(!recorder.calls.contains { $0.hasPrefix("subscriber didFail") }, "no error: \(recorder.calls)")
        }
    }

    /// A native client publishes its test pattern and tone (sealed by OTMedia's SFrame), the
    /// browser subscribes: over 10 s its getStats counts ≥ 90 % of the frames native encoded
    /// as decoded, and the tone is heard (audio level, samples received).
    @Test func aNativeClientPublishesABrowserDecodes() throws {
        try BrowserRig.run(kit, e2ee: true) { rig in
            let client = try rig.tab(data: "browser")
            #expect(try client.setEncryptionSecret(Self.secret) == nil)
            let recorder = DelegateRecorder()
            let session = try native(rig, recorder)
            defer { session.disconnect() }
            let (publisher, streamId) = try kit.publishPattern(session, recorder, name: "native", width: 320, height: 240, fps: 30)
            try client.wait(20, what: "the native stream") { $0.contains { $0.type == "streamCreated" && $0.stream?.streamId == streamId } }
            _ = try #require(try? client.subscribe(streamId).get(), "the browser subscribes")
            var last = "none"
            #expect(try eventually {
                let video = try client.mediaStats(streamId).first("inbound-rtp", "video")
                last = BrowserClient.receiveLine(video)
                return (video?.framesDecoded ?? 0) >= 30
            }, "the browser decodes native video: \(last)")
            let pipeline = try #require(publisher.lock.withLock { publisher.pipeline })

            func received() throws -> (decoded: Int, samples: Int, concealed: Int) {
                let stats = try client.mediaStats(streamId)
                let audio = stats.first("inbound-rtp", "audio")
                return (stats.first("inbound-rtp", "video")?.framesDecoded ?? 0, audio?.totalSamplesReceived ?? 0, audio?.concealedSamples ?? 0)
            }
            let before = (received: try received(), encoded: pipeline.videoCounters.snapshot().frames, video: try client.opened("video"), audio: try client.opened("audio"))
            Thread.sleep(forTimeInterval: 10)
            let after = (received: try received(), encoded: pipeline.videoCounters.snapshot().frames, video: try client.opened("video"), audio: try client.opened("audio"))
            let opened = (video: after.video.frames - before.video.frames, audio: after.audio.frames - before.audio.frames,
                          failed: after.video.failed + after.audio.failed)
            let stats = try client.mediaStats(streamId)
            let level = stats.first("inbound-rtp", "audio")?.audioLevel ?? 0
            let encoded = Int(after.encoded - before.encoded), decoded = after.received.decoded - before.received.decoded
            let samples = after.received.samples - before.received.samples, concealed = after.received.concealed - before.received.concealed
            let report = "native→browser: \(decoded) of \(encoded) video frames decoded, \(opened.video) opened; audio \(opened.audio) frames opened, \(samples) samples, " +
                "\(concealed) concealed, level \(String(format: "%.2f", level)); \(BrowserClient.receiveLine(stats.first("inbound-rtp", "video")))"
            print("BrowserE2EE:", report)
            #expect(encoded >= 100 && Double(decoded) >= 0.9 * Double(encoded), "video ≥ 90 %: \(report)")
            // What the decoder got is what the cryptor opened (it drops the rest): every
            // decoded frame authenticated under the shared key.
            #expect(Double(opened.video) >= 0.9 * Double(encoded) && opened.audio >= 400 && opened.failed == 0, "opened in the browser: \(report)")
            // 10 s at 48 kHz is 480,000 samples; the tone is 0.3 of full scale, silence or
            // undecryptable audio is 0.
            #expect(samples >= 240_000 && level > 0.05, "the native tone is heard: \(report)")
            let events = try client.events()
            #expect(!events.contains { $0.type == "subscriber:encryptionSecretMismatch" }, "no mismatch with the same secret")
        }
    }

    /// A browser with another secret: its subscriber reports `encryptionSecretMismatch` once
    /// (not per frame) while media keeps arriving, and decodes no frame. On the way, the
    /// page's errors as OpenTok.js names them: a too-short secret is refused (6004) and
    /// publishing in the e2ee session before any secret is refused (6000).
    @Test func aBrowserWithAnotherSecretReportsTheMismatchAndDecodesNothing() throws {
        try BrowserRig.run(kit, e2ee: true) { rig in
            let client = try rig.tab(data: "browser")
            let short = try client.setEncryptionSecret("seven c")
            #expect(short?.code == 6004 && short?.name == "OT_INVALID_ENCRYPTION_SECRET", "a 7-character secret: \(String(describing: short))")
            let missing = try client.publish("{resolution: '320x240'}")
            #expect((try? missing.get()) == nil && (missing.failureCode == 6000), "publish without a secret: \(missing)")
            #expect(try client.setEncryptionSecret("another secret entirely") == nil)

            let recorder = DelegateRecorder()
            let session = try native(rig, recorder)
            defer { session.disconnect() }
            let (_, streamId) = try kit.publishPattern(session, recorder, name: "native", width: 320, height: 240, fps: 30)
            try client.wait(20, what: "the native stream") { $0.contains { $0.type == "streamCreated" && $0.stream?.streamId == streamId } }
            _ = try #require(try? client.subscribe(streamId).get(), "the browser subscribes")
            try client.wait(30, what: "the subscriber's encryptionSecretMismatch") { $0.contains { $0.type == "subscriber:encryptionSecretMismatch" } }
            var last = "none"
            // Media keeps arriving (300 video packets: 10 s of 320x240 at 30 fps is more) and none of it decodes.
            #expect(try eventually {
                let video = try client.mediaStats(streamId).first("inbound-rtp", "video")
                last = BrowserClient.receiveLine(video)
                return (video?.packetsReceived ?? 0) >= 300
            }, "video arrives: \(last)")
            let stats = try client.mediaStats(streamId)
            let video = stats.first("inbound-rtp", "video"), audio = stats.first("inbound-rtp", "audio")
            let mismatches = try client.events().filter { $0.type == "subscriber:encryptionSecretMismatch" }.count
            print("BrowserE2EE: another secret: \(mismatches) mismatch event(s); \(BrowserClient.receiveLine(video)); audio level \(audio?.audioLevel ?? -1)")
            let opened = try client.opened("video")
            #expect(mismatches == 1, "one mismatch event, not one per frame")
            #expect(opened.frames == 0 && opened.failed >= 30, "the cryptor dropped every frame: \(opened)")
            #expect((video?.framesDecoded ?? -1) == 0, "no frame decoded: \(BrowserClient.receiveLine(video))")
            #expect((audio?.audioLevel ?? 1) < 0.01, "nothing heard: level \(audio?.audioLevel ?? -1)")
        }
    }
    /// A native client and the browser (already publishing `browserStream`) in both
    /// directions: native publishes its pattern and subscribes to the browser, the browser
    /// subscribes to native, and both decode 30 frames.
    struct Meeting {
        let session: OTSession
        let recorder: DelegateRecorder
        /// What native renders of the browser's stream.
        let render: CountingRender
        /// Native's publisher pipeline (frames encoded).
        let encoder: PublisherPipeline
        let nativeStream: String
    }

    func meet(_ rig: BrowserRig, _ client: BrowserClient, _ browserStream: String,
              sourceLocation: SourceLocation = #_sourceLocation) throws -> Meeting {
        let recorder = DelegateRecorder()
        let session = try native(rig, recorder)
        let (publisher, nativeStream) = try kit.publishPattern(session, recorder, name: "native", width: 320, height: 240, fps: 30)
        #expect(recorder.wait(20) { $0.contains("streamCreated \(browserStream)") }, sourceLocation: sourceLocation)
        let stream = try #require(session.streams[browserStream], sourceLocation: sourceLocation)
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: recorder), sourceLocation: sourceLocation)
        let render = CountingRender()
        subscriber.videoRender = render
        try session.subscribe(subscriber)
        try client.wait(20, what: "the native stream") { $0.contains { $0.type == "streamCreated" && $0.stream?.streamId == nativeStream } }
        _ = try #require(try? client.subscribe(nativeStream).get(), "the browser subscribes", sourceLocation: sourceLocation)
        let bothDecode = try eventually {
            let decoded = try client.mediaStats(nativeStream).first("inbound-rtp", "video")?.framesDecoded ?? 0
            return render.frames >= 30 && decoded >= 30
        }
        #expect(bothDecode, "both decode: native \(render.frames) frames", sourceLocation: sourceLocation)
        let encoder = try #require(publisher.lock.withLock { publisher.pipeline }, sourceLocation: sourceLocation)
        return Meeting(session: session, recorder: recorder, render: render, encoder: encoder, nativeStream: nativeStream)
    }

    /// Both change to a new common secret mid-session (the browser first, then native):
    /// both decode each other again. Native, once its new key is in (it then forgets every
    /// old KID), renders 30 more of the browser's frames, so the browser seals under the new
    /// key; the browser's cryptor opens 30 more of native's. A mismatch the browser reports
    /// while native still seals under the old key is followed by its match.
    @Test func aNewCommonSecretMidSessionAndBothDecodeAgain() throws {
        try BrowserRig.run(kit, fps: 30, e2ee: true) { rig in
            let client = try rig.tab(data: "browser")
            #expect(try client.setEncryptionSecret(Self.secret) == nil)
            let browserStream = try #require(try? client.publish("{resolution: '320x240', frameRate: 30}").get(), "the browser publishes")
            let meeting = try meet(rig, client, browserStream)
            defer { meeting.session.disconnect() }

            let newSecret = "a brand new shared secret"
            #expect(try client.setEncryptionSecret(newSecret) == nil)
            try meeting.session.setEncryptionSecret(newSecret)
            #expect(eventually { meeting.session.encryptionKeys.generation == 2 }, "native's new key is in")
            let switched = Date()
            let rendered = meeting.render.frames, opened = try client.opened("video").frames
            let recovered = try eventually {
                let browserOpened = try client.opened("video").frames
                return meeting.render.frames >= rendered + 30 && browserOpened >= opened + 30
            }
            let events = try client.events()
            let mismatches = events.filter { $0.type == "subscriber:encryptionSecretMismatch" }.count
            let matches = events.filter { $0.type == "subscriber:encryptionSecretMatch" }.count
            let report = "native rendered \(meeting.render.frames - rendered), the browser opened \((try client.opened("video").frames) - opened) " +
                "frames since native's new key (\(String(format: "%.2f", Date().timeIntervalSince(switched))) s); browser mismatch/match events " +
                "\(mismatches)/\(matches); native: \(meeting.recorder.calls.filter { $0.hasPrefix("subscriber didFail") })"
            print("BrowserE2EE: new secret:", report)
            #expect(recovered, "both decode under the new secret: \(report)")
            #expect(mismatches == matches, "every mismatch episode ended: \(report)")
        }
    }

    /// The fallback for browsers without `RTCRtpScriptTransform`: the page hides it before
    /// loading otkit.js, which then uses Chrome's insertable streams (`createEncodedStreams`,
    /// `encodedInsertableStreams: true`). Both ways in one 10 s window: native decodes ≥ 90 %
    /// of the browser's video frames and the browser's cryptor opens ≥ 90 % of native's.
    @Test func insertableStreamsFallbackInteroperatesBothWays() throws {
        try BrowserRig.run(kit, fps: 30, e2ee: true) { rig in
            let client = try BrowserClient(rig.browser, rig.server)
            #expect(try client.page.evaluate("delete window.RTCRtpScriptTransform, typeof RTCRtpScriptTransform", as: String.self) == "undefined")
            let joined = try client.join(rig.router.baseURL, apiKey: kit.project.apiKey, sessionId: rig.sessionId,
                                         token: try kit.token(rig.sessionId, .publisher, data: "browser"))
            _ = try #require(try? joined.get(), "browser connect: \(joined)")
            #expect(try client.setEncryptionSecret(Self.secret) == nil)
            let browserStream = try #require(try? client.publish("{resolution: '320x240', frameRate: 30}").get(), "the browser publishes")
            #expect(try client.page.evaluate("window.publisher._pc.getConfiguration().encodedInsertableStreams === true", as: Bool.self),
                    "the publisher's connection asked for insertable streams")
            let meeting = try meet(rig, client, browserStream)
            defer { meeting.session.disconnect() }
            let (render, encoder, recorder) = (meeting.render, meeting.encoder, meeting.recorder)

            func counts() throws -> (sent: Int, rendered: Int, encoded: Int, decoded: Int) {
                (try client.mediaStats().first("outbound-rtp", "video")?.framesSent ?? 0, render.frames,
                 Int(encoder.videoCounters.snapshot().frames), try client.opened("video").frames)
            }
            let before = try counts()
            Thread.sleep(forTimeInterval: 10)
            let after = try counts()
            let toNative = (sent: after.sent - before.sent, decoded: after.rendered - before.rendered)
            let toBrowser = (sent: after.encoded - before.encoded, decoded: after.decoded - before.decoded)
            let report = "insertable streams: browser→native \(toNative.decoded) of \(toNative.sent), native→browser \(toBrowser.decoded) of \(toBrowser.sent) video frames decoded (native) and opened (browser)"
            print("BrowserE2EE:", report)
            #expect(toNative.sent >= 100 && Double(toNative.decoded) >= 0.9 * Double(toNative.sent), "\(report)")
            #expect(toBrowser.sent >= 100 && Double(toBrowser.decoded) >= 0.9 * Double(toBrowser.sent), "\(report)")
            #expect(!recorder.calls.contains { $0.hasPrefix("subscriber didFail") }, "no error: \(recorder.calls)")
        }
    }
}

extension BrowserClient {
    /// `session.setEncryptionSecret(secret)`: nil once the key is in use, else the error.
    func setEncryptionSecret(_ secret: String) throws -> Failure? {
        try page.evaluate("setSecret(\(js(secret)))", as: Failure?.self, timeout: 60)
    }

    /// One transform of the page's frame cryptor (otkit.js `session._cryptoCounts()`).
    struct CryptoCount: Decodable {
        var side: String
        var kind: String
        /// Frames sealed (send) or opened (receive), so authenticated.
        var frames: Int
        /// Frames that did not open (dropped).
        var failed: Int
    }

    /// The receive-side counters of `kind`, summed over the page's subscribers.
    func opened(_ kind: String) throws -> (frames: Int, failed: Int) {
        let counts = try page.evaluate("session._cryptoCounts()", as: [CryptoCount].self).filter { $0.side == "receive" && $0.kind == kind }
        return (counts.reduce(0) { $0 + $1.frames }, counts.reduce(0) { $0 + $1.failed })
    }
}

extension Result where Failure == BrowserFailure {
    /// The OpenTok error code of a failure (nil on success).
    var failureCode: Int? {
        if case .failure(let error) = self { return error.failure.code }
        return nil
    }
}
