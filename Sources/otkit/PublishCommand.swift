import Dispatch
import Glibc
import OTKit
import OTMedia
import OTSignaling

/// `otkit publish`: a headless publisher meant to run for months (a webcam on a Pi, a
/// kiosk, a lab bench). It reconnects by itself for as long as it takes and never exits
/// on a network outage; SIGINT/SIGTERM unpublish, disconnect and exit 0. A camera that
/// goes away is reported and reopened every second while audio goes on; a machine
/// without a sound card publishes video and says so once.
enum PublishCommand {
    static let help = """
        usage: otkit publish --router URL (--session ID --token T | --api-key K --api-secret S [--session ID])
                             [--camera PATH | --test-pattern | --file CLIP.y4m]
                             [--mic DEVICE | --tone | --no-audio] [--resolution WxH] [--fps N]
                             [--name NAME] [--log-format json|text]

        Publishes one stream into a session until SIGINT or SIGTERM (then unpublishes,
        disconnects and exits 0). Reconnects forever, with backoff, through any outage.

          --router URL        the router (the URL `otkit router` prints)
          --session ID        the session; without it (and with --api-key/--api-secret) a
                              routed session is created and its id printed
          --token T           a token for the session (see `otkit token`)
          --api-key K         make tokens here instead (also OTKIT_API_KEY; the secret is
          --api-secret S      better given as OTKIT_API_SECRET, which `ps` does not show)
          --camera PATH       a V4L2 camera, e.g. /dev/video1 (default: the first camera)
          --test-pattern      moving bars with the frame number stamped in the picture
          --file CLIP.y4m     a Y4M clip (8-bit 4:2:0), looped at its own frame rate
          --mic DEVICE        ALSA capture device, e.g. hw:1,0 or default (the default)
          --tone              a 440 Hz tone instead of a microphone
          --no-audio          no audio track
          --resolution WxH    camera capture size (default 640x480; files keep theirs)
          --fps N             camera/test-pattern frame rate, 1-60 (default 30)
          --name NAME         the stream's name (default: the source)
          --no-video-fallback subscribers keep this stream's video when their link looks
                              too slow for it (OpenTok's subscriberAudioFallbackEnabled =
                              false); layers still adapt
          --log-format F      json: one JSON object per line; text: a live status line.
                              Default: text on a terminal, json otherwise (pipes, journald)

        exit codes: 0 stopped by SIGINT/SIGTERM, 1 runtime failure (refused token,
        unopenable device), 2 usage error
        """

    static let flagNames: Set<String> = ["test-pattern", "tone", "no-audio", "no-video-fallback", "help"]
    static let valuedNames: Set<String> = SessionOptions.valued.union(["camera", "file", "mic", "resolution", "fps", "name", "log-format"])

    static func run(_ words: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(words, valued: valuedNames, flags: flagNames)
        if args.flags.contains("help") { print(help); return 0 }
        StopSignal.install()  // before any thread starts, so every thread inherits the mask
        let reporter = try Reporter(format: args.options["log-format"])
        let (width, height) = try args.size("resolution", default: (640, 480))
        let fps = try args.int("fps", default: 30, range: 1...60)
        let video = try videoChoice(args)
        let audio = try audioChoice(args)
        let options = try SessionOptions(args)
        if options.createdSession { reporter.event("session_created", "created session \(options.sessionId)", [("sessionId", .text(options.sessionId))]) }

        let capture = try makeCapture(video, width: width, height: height, fps: fps, reporter: reporter)
        let device = try makeAudioDevice(audio, reporter: reporter)
        if let device { OTAudioDeviceManager.setAudioDevice(device) }
        let name = args.options["name"] ?? capture.name
        reporter.event("starting", "publishing \(capture.name) (\(capture.format.width)x\(capture.format.height)) "
            + "with \(device == nil ? "no audio" : audio.description) to \(options.routerURL)",
            [("video", .text(capture.name)), ("audio", .text(device == nil ? "none" : audio.description)),
             ("sessionId", .text(options.sessionId))])

        let observer = PublishObserver(reporter: reporter)
        let queue = DispatchQueue(label: "otkit.publish.api")
        let settings = OTSessionSettings()
        settings.routerURL = options.routerURL
        var failures = 0
        while StopSignal.received == nil {
            observer.reset()
            guard let session = OTSession(apiKey: options.apiKey, sessionId: options.sessionId, delegate: observer, settings: settings) else {
                throw CommandError("cannot create a session object for \(options.sessionId)")
            }
            session.apiQueue = queue
            let token = try options.token(role: .publisher, data: name)
            do { try session.connect(withToken: token) } catch { throw CommandError("cannot connect: \(error.message)") }
            waitUntil(15) { let s = observer.snapshot(); return s.connected || s.ended || StopSignal.received != nil }
            if let fatal = fatalError(observer.snapshot().lastError) {
                session.disconnect()
                throw CommandError(fatal)
            }
            if observer.snapshot().connected {
                let publisher = makePublisher(capture: capture, audio: device != nil, name: name,
                                              videoFallback: !args.flags.contains("no-video-fallback"), observer: observer)
                do { try session.publish(publisher) } catch { reporter.event("publisher_error", "cannot publish: \(error.message)") }
                let outcome = monitor(session: session, publisher: publisher, capture: capture, device: device, observer: observer)
                if outcome == .stopped {
                    shutDown(session: session, publisher: publisher, capture: capture, observer: observer, reporter: reporter)
                    capture.close()
                    device?.shutdown()
                    return 0
                }
                failures = 0
            } else {
                session.disconnect()
            }
            guard StopSignal.received == nil else { break }
            failures += 1
            observer.countReconnect()
            let backoff = min(30.0, Double(1 << min(failures - 1, 5)))
            reporter.event("retrying", "no connection to the router; attempt \(failures) again in \(Int(backoff)) s",
                           [("attempt", .int(failures)), ("backoffSeconds", .int(Int(backoff)))])
            _ = StopSignal.sleep(backoff)
        }
        reporter.event("stopping", "\(StopSignal.name): stopping")
        capture.close()
        device?.shutdown()
        return 0
    }

    enum Outcome { case stopped, ended }

    /// Shows the status every second until a stop signal or the session ends for good.
    private static func monitor(session: OTSession, publisher: OTPublisherKit, capture: SourceCapture,
                                device: CommandAudioDevice?, observer: PublishObserver) -> Outcome {
        var lastTime = MonotonicTime.now()
        var lastFrames = capture.framesPushed.load(ordering: .relaxed)
        var last = observer.snapshot()
        while true {
            if StopSignal.sleep(1) { return .stopped }
            let now = MonotonicTime.now(), s = observer.snapshot()
            if s.ended { return .ended }
            let frames = capture.framesPushed.load(ordering: .relaxed)
            let elapsed = max(0.001, now - lastTime)
            let fps = Double(frames - lastFrames) / elapsed
            let kbps = Double(s.videoBytes - last.videoBytes) * 8 / elapsed / 1000
            let sentDelta = s.videoPackets - last.videoPackets, lostDelta = s.videoLost - last.videoLost
            let loss = sentDelta + lostDelta > 0 ? Double(max(0, lostDelta)) * 100 / Double(sentDelta + max(0, lostDelta)) : 0
            let level = device.map { Double($0.captureLevel.load(ordering: .relaxed)) / 1000 } ?? 0
            let camera = capture.available.load(ordering: .acquiring) ? "ok" : "lost"
            let state = s.reconnecting ? "reconnecting" : (s.streamId != nil ? "publishing" : "connected")
            publisher.getRtcStatsReport()  // the answer (RTT) shows in the next line
            let rtt = s.roundTripSeconds.map { "rtt \(Int($0 * 1000)) ms" } ?? "rtt n/a"
            observer.reporter.status(
                "\(state)  \(capture.format.width)x\(capture.format.height)  \(formatted(fps, 1)) fps  \(Int(kbps)) kbps  "
                    + "loss \(formatted(loss, 1)) %  \(rtt)  audio \(formatted(level, 2))  video \(camera)  reconnects \(s.reconnects)",
                [("state", .text(state)), ("width", .int(capture.format.width)), ("height", .int(capture.format.height)),
                 ("fps", .number(fps)), ("kbps", .number(kbps)), ("lossPercent", .number(loss)),
                 ("framesSent", .int(frames)), ("videoPackets", .int(Int(s.videoPackets))), ("audioPackets", .int(Int(s.audioPackets))),
                 ("audioLevel", .number(level)), ("rttMilliseconds", .number((s.roundTripSeconds ?? 0) * 1000)), ("camera", .text(camera)), ("reconnects", .int(s.reconnects)),
                 ("streamId", .text(s.streamId ?? ""))])
            lastTime = now
            lastFrames = frames
            last = s
        }
    }

    /// Unpublish and disconnect, waiting (briefly) until the router has answered, so it
    /// destroys the stream now rather than after its silence timeout.
    private static func shutDown(session: OTSession, publisher: OTPublisherKit, capture: SourceCapture, observer: PublishObserver, reporter: Reporter) {
        reporter.finish()
        reporter.event("stopping", "\(StopSignal.name): unpublishing and disconnecting")
        if observer.snapshot().streamId != nil, (try? session.unpublish(publisher)) != nil {
            waitUntil(3) { observer.snapshot().streamDestroyed }
        }
        session.disconnect()
        waitUntil(3) { observer.snapshot().ended }
        reporter.event("stopped", "stopped", [("framesSent", .int(capture.framesPushed.load(ordering: .relaxed))),
                                              ("cameraLosses", .int(capture.losses.load(ordering: .relaxed)))])
    }

    /// Polls `done` every 50 ms for up to `seconds` (a stop signal does not cut it short).
    private static func waitUntil(_ seconds: Double, _ done: () -> Bool) {
        let end = MonotonicTime.now() + seconds
        while !done() && MonotonicTime.now() < end { usleep(50_000) }
    }

    /// A message when `error` means retrying cannot help (refused token, bad session).
    private static func fatalError(_ error: OTError?) -> String? {
        guard let error, error.domain == .session else { return nil }
        switch OTSessionErrorCode(rawValue: error.code) {
        case .authorizationFailure: return "the router refused the token (\(error.code)): \(error.message)"
        case .invalidSession: return "the router does not know this session (\(error.code)): \(error.message)"
        default: return nil
        }
    }

    private static func makePublisher(capture: SourceCapture, audio: Bool, name: String, videoFallback: Bool,
                                      observer: PublishObserver) -> OTPublisherKit {
        let settings = OTPublisherKitSettings()
        settings.name = name
        if !videoFallback { settings.subscriberAudioFallbackEnabled = false }
        settings.videoCapture = capture
        settings.audioTrack = audio
        let publisher = OTPublisherKit(delegate: observer, settings: settings)
        publisher.networkStatsDelegate = observer
        publisher.rtcStatsReportDelegate = observer
        publisher.audioLevelDelegate = observer
        return publisher
    }

    // MARK: - Sources

    enum VideoChoice { case camera(String?), pattern, file(String) }

    static func videoChoice(_ args: Arguments) throws -> VideoChoice {
        let given = [args.options["camera"] != nil, args.flags.contains("test-pattern"), args.options["file"] != nil].filter { $0 }.count
        guard given <= 1 else { throw Arguments.UsageError(description: "give one video source: --camera PATH, --test-pattern or --file CLIP.y4m") }
        if args.flags.contains("test-pattern") { return .pattern }
        if let file = args.options["file"] {
            guard access(file, R_OK) == 0 else {
                throw Arguments.UsageError(description: "cannot read --file \(file): \(String(cString: strerror(errno))) (give a readable .y4m clip)")
            }
            return .file(file)
        }
        if let camera = args.options["camera"] {
            guard access(camera, F_OK) == 0 else {
                let known = V4L2Camera.devices().map(\.path)
                throw Arguments.UsageError(description: "no camera at \(camera) (cameras here: \(known.isEmpty ? "none" : known.joined(separator: ", ")); see `otkit devices`)")
            }
            return .camera(camera)
        }
        return .camera(nil)
    }

    static func makeCapture(_ choice: VideoChoice, width: Int, height: Int, fps: Int, reporter: Reporter) throws -> SourceCapture {
        let onEvent: @Sendable (String, String) -> Void = { name, message in reporter.event(name, message) }
        let requested = VideoFormat(width: width, height: height, frameRate: fps)
        do {
            switch choice {
            case .pattern:
                return try SourceCapture(name: "test pattern", onEvent: onEvent) { () throws(MediaError) in try TestPatternSource(format: requested) }
            case .file(let path):
                return try SourceCapture(name: "file \(path)", onEvent: onEvent) { () throws(MediaError) in
                    try Y4MFileSource(path: path, paced: true, loops: true)
                }
            case .camera(let given):
                guard let path = given ?? V4L2Camera.devices().first?.path else {
                    throw CommandError("no camera found (no V4L2 capture device); use --test-pattern or --file CLIP.y4m")
                }
                return try SourceCapture(name: "camera \(path)", onEvent: onEvent) { () throws(MediaError) in
                    try V4L2Camera(path: path, requested: requested)
                }
            }
        } catch let error as MediaError {
            throw CommandError(error.message)
        }
    }

    enum AudioChoice: CustomStringConvertible {
        case none, tone, microphone(String, explicit: Bool)
        var description: String {
            switch self {
            case .none: return "no audio"
            case .tone: return "a 440 Hz tone"
            case .microphone(let name, _): return "microphone \(name)"
            }
        }
    }

    static func audioChoice(_ args: Arguments) throws -> AudioChoice {
        let given = [args.options["mic"] != nil, args.flags.contains("tone"), args.flags.contains("no-audio")].filter { $0 }.count
        guard given <= 1 else { throw Arguments.UsageError(description: "give one audio source: --mic DEVICE, --tone or --no-audio") }
        if args.flags.contains("no-audio") { return .none }
        if args.flags.contains("tone") { return .tone }
        if let mic = args.options["mic"] { return .microphone(mic, explicit: mic != "default") }
        return .microphone("default", explicit: false)
    }

    /// The audio device for `choice`; nil for no audio. A named microphone that cannot be
    /// opened is an error; the default one missing (no sound card) is said once.
    static func makeAudioDevice(_ choice: AudioChoice, reporter: Reporter) throws -> CommandAudioDevice? {
        let onFailure: @Sendable (String) -> Void = { message in reporter.event("audio_error", message) }
        switch choice {
        case .none:
            return nil
        case .tone:
            do { return CommandAudioDevice(source: try ToneSource(frequency: 440, amplitude: 0.3), sinks: [], onCaptureFailure: onFailure) } catch {
                throw CommandError(error.message)
            }
        case .microphone(let name, let explicit):
            do {
                let probe = try ALSAMicrophone(device: name)
                try probe.start()
                probe.stop()
                return CommandAudioDevice(source: try ALSAMicrophone(device: name), sinks: [], onCaptureFailure: onFailure)
            } catch {
                if explicit { throw CommandError("cannot open microphone \(name): \(error.message) (see `otkit devices` for capture devices)") }
                reporter.event("no_sound_card", "no sound card (\(error.message)): publishing video only",
                               [("reason", .text(error.message))])
                return nil
            }
        }
    }
}
