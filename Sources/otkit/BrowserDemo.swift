import Foundation
import Glibc
import OTKit
import OTMedia
import OTRouter
import OTSignaling

/// `otkit demo --browser`: an embedded router on loopback, a native client that publishes
/// the test pattern + tone (or the camera, as `otkit demo`), and the room page's URL with
/// a token to open in a browser. Every browser stream is subscribed to natively; each
/// join, leave and chat line is printed, a live line shows what the native side decodes,
/// and a summary at exit (SIGINT, SIGTERM or `--seconds N`).
enum BrowserDemo {
    static func run(_ args: Arguments) throws -> Int32 {
        let seconds: Int? = args.options["seconds"] != nil ? try args.int("seconds", default: 0, range: 1...86_400) : nil
        StopSignal.install()  // before any thread starts, so every thread inherits the mask

        let demo = try DemoRouter()
        let (project, router, sessionId) = (demo.project, demo.router, demo.sessionId)
        defer { router.stop() }

        let observer = BrowserDemoObserver(say: { writeAll(STDOUT_FILENO, $0) })
        let queue = DispatchQueue(label: "otkit.demo.api")  // delegates run here, not on main
        let settings = OTSessionSettings()
        settings.routerURL = router.baseURL
        guard let session = OTSession(apiKey: project.apiKey, sessionId: sessionId, delegate: observer, settings: settings) else {
            throw DemoError("cannot create the session")
        }
        session.apiQueue = queue
        // The tone as the microphone (the machine may have no sound card), as `otkit publish --tone`.
        let tone: CommandAudioDevice
        do { tone = CommandAudioDevice(source: try ToneSource(frequency: 440, amplitude: 0.3), sinks: []) } catch {
            throw DemoError("cannot make the tone: \(error.message)")
        }
        OTAudioDeviceManager.setAudioDevice(tone)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }

        let (publisher, capture, sourceName) = DemoCommand.makePublisher(args, name: "otkit demo", delegate: observer)
        defer { capture?.close() }
        try session.connect(withToken: try OpenTokToken.generate(sessionID: sessionId, credentials: project, connectionData: "otkit demo"))
        try observer.wait("the native client to connect") { session.connection != nil }
        observer.ownConnection.withLock { $0 = session.connection?.connectionId }
        try session.publish(publisher)
        try observer.wait("the native stream to start") { publisher.stream != nil }

        let token = try OpenTokToken.generate(sessionID: sessionId, credentials: project, connectionData: "browser")
        let url = "\(router.baseURL)/room/\(sessionId)?token=\(percentEncoded(token))"
        say("otkit demo --browser: router \(router.baseURL), session \(sessionId)\n")
        say("publishing \(sourceName) and a 440 Hz tone\(seconds.map { " for \($0) s" } ?? " until Ctrl-C")\n")
        say("open in a browser: \(url)\n")
        say("(dev tokens are on, on loopback: \(router.baseURL)/room/\(sessionId) works without the token too;"
            + " another machine needs `otkit router --tls-cert/--tls-key`, see docs/webrtc.md)\n")

        var subscribers: [OTSubscriber] = []
        let live = LiveLine()
        let start = MonotonicClock.nanoseconds()
        var lastTime = start
        var lastFrames = 0
        while StopSignal.received == nil {
            let now = MonotonicClock.nanoseconds()
            if let seconds, now - start >= UInt64(seconds) * 1_000_000_000 { break }
            if let failure = observer.snapshot().failure { throw DemoError(failure) }
            for stream in observer.takePending() {
                guard let subscriber = OTSubscriber(stream: stream, delegate: observer) else { continue }
                subscriber.videoRender = observer.render(for: stream.streamId)
                subscriber.networkStatsDelegate = observer
                do { try session.subscribe(subscriber); subscribers.append(subscriber) } catch {
                    say("cannot subscribe to \(stream.streamId): \(error)\n")
                }
            }
            usleep(100_000)
            guard now - lastTime >= 1_000_000_000 else { continue }
            let state = observer.snapshot()
            let frames = state.streams.values.reduce(0) { $0 + $1.frames }
            let elapsed = Double(now - lastTime) / 1e9
            live.show("t=\(formatted(Double(now - start) / 1e9, 1))s  browsers \(state.present.count)  "
                + "\(state.streams.count) browser streams  \(formatted(Double(frames - lastFrames) / elapsed, 1)) fps decoded from browsers  "
                + "native stream \(session.sessionConnectionStatus)")
            lastFrames = frames
            lastTime = now
        }
        live.finish()
        if StopSignal.received != nil { say("otkit demo: \(StopSignal.name), stopping\n") }
        let state = observer.snapshot()
        let elapsed = Double(MonotonicClock.nanoseconds() - start) / 1e9
        for (id, received) in state.streams.sorted(by: { $0.key < $1.key }) {
            say("browser stream \(id) \"\(received.name)\" from \(received.connection): \(received.frames) frames decoded "
                + "(\(received.width)x\(received.height)), video \(received.videoPackets) packets, audio \(received.audioPackets) packets"
                + (received.failure.map { ", failed: \($0)" } ?? "") + "\n")
        }
        let frames = state.streams.values.reduce(0) { $0 + $1.frames }
        let audio = state.streams.values.reduce(UInt64(0)) { $0 + $1.audioPackets }
        let sent = capture?.framesPushed.load(ordering: .relaxed) ?? 0
        say("summary: \(state.joined) browsers joined, \(state.streams.count) browser streams, \(frames) frames decoded from browsers "
            + "in \(formatted(elapsed, 1)) s (\(formatted(Double(frames) / elapsed, 1)) fps), audio \(audio) packets from browsers, "
            + "\(state.chat) chat lines, \(sent) frames sent\n")
        for subscriber in subscribers { try? session.unsubscribe(subscriber) }
        session.disconnect()
        return 0
    }

    /// `text` with everything but RFC 3986's unreserved characters percent-encoded (a
    /// T1 token holds `+`, `/` and `=`).
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if c.isASCII && (c.isLetter || c.isNumber || "-._~".contains(c)) { out.append(c) } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }

    private static func say(_ text: String) { writeAll(STDOUT_FILENO, text) }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
