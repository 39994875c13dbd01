import Dispatch
import Glibc
import OTKit
import OTMedia

/// `otkit subscribe`: subscribes to one stream or every stream of a session, records
/// each (`--out DIR`: a `<stream>.y4m` + `<stream>.wav` pair per stream) and/or plays
/// the mix of their audio to an ALSA device, and prints per-stream status. Reconnects through
/// outages like `publish`; SIGINT/SIGTERM (or `--seconds`) close the files and exit 0.
enum SubscribeCommand {
    static let help = """
        usage: otkit subscribe --router URL --session ID (--token T | --api-key K --api-secret S)
                               [--stream ID] [--out DIR] [--play DEVICE] [--show] [--seconds N] [--log-format json|text]

        Subscribes to the streams of a session and reports each one's frame rate, bitrate
        and loss. Stops on SIGINT/SIGTERM or after --seconds, closing the files.

          --stream ID       only this stream (default: every stream, as they come)
          --out DIR         write DIR/<stream>.y4m (decoded I420 video; a new <stream>.N.y4m
                            when the size changes) and DIR/<stream>.wav (that stream's
                            audio, 48 kHz mono 16-bit PCM) for each stream
          --play DEVICE     play the streams' audio, mixed, to an ALSA device (e.g. default, hw:0,0)
          --show            show each stream's video in a window of its own (X11: needs DISPLAY)
          --seconds N       stop after N seconds (default: run until SIGINT/SIGTERM)
          --log-format F    json or text (default: text on a terminal, json otherwise)
          (--router, --session, --token, --api-key, --api-secret as for `otkit publish`)

        exit codes: 0 stopped, 1 runtime failure (refused token, unwritable DIR), 2 usage error
        """

    static func run(_ words: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(words, valued: SessionOptions.valued.union(["stream", "out", "play", "seconds", "log-format"]), flags: ["help", "show"])
        if args.flags.contains("help") { print(help); return 0 }
        StopSignal.install()
        let reporter = try Reporter(format: args.options["log-format"])
        let seconds = try args.options["seconds"].map { _ in try args.int("seconds", default: 0, range: 1...10_000_000) }
        guard args.options["session"] != nil else {
            throw Arguments.UsageError(description: "--session ID is required: the session whose streams to subscribe to")
        }
        if let out = args.options["out"] {
            var info = stat()
            guard stat(out, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, access(out, W_OK) == 0 else {
                throw Arguments.UsageError(description: "--out \(out) is not a writable directory (create it first)")
            }
        }
        let options = try SessionOptions(args)
        let show = args.flags.contains("show")
        // Refused before connecting: without a display no window could ever open.
        if show, let problem = OTView.displayProblem() { throw CommandError("--show: \(problem)") }

        // Each stream's audio is recorded by its StreamRecorder; the device plays the mix.
        var sinks: [any AudioSink] = []
        if let play = args.options["play"] {
            do { sinks.append(try ALSASpeaker(device: play)) } catch {
                throw CommandError("cannot open playback device \(play): \(error.message) (see `otkit devices`)")
            }
        }
        let device = CommandAudioDevice(source: nil, sinks: sinks) { message in reporter.event("audio_error", message) }
        OTAudioDeviceManager.setAudioDevice(device)

        let observer = SubscribeObserver(reporter: reporter, only: args.options["stream"], directory: args.options["out"], show: show)
        let queue = DispatchQueue(label: "otkit.subscribe.api")
        let settings = OTSessionSettings()
        settings.routerURL = options.routerURL
        let deadline = seconds.map { MonotonicTime.now() + Double($0) }
        func timeIsUp() -> Bool { deadline.map { MonotonicTime.now() >= $0 } ?? false }
        var failures = 0
        var session: OTSession?
        loop: while StopSignal.received == nil && !timeIsUp() {
            observer.reset()
            guard let current = OTSession(apiKey: options.apiKey, sessionId: options.sessionId, delegate: observer, settings: settings) else {
                throw CommandError("cannot create a session object for \(options.sessionId)")
            }
            session = current
            current.apiQueue = queue
            do { try current.connect(withToken: try options.token(role: .subscriber, data: "otkit subscribe")) } catch let error as OTError {
                throw CommandError("cannot connect: \(error.message)")
            }
            let connectBy = MonotonicTime.now() + 15
            while MonotonicTime.now() < connectBy && StopSignal.received == nil && !observer.isConnected && !observer.hasEnded { usleep(50_000) }
            if let error = observer.lastError, error.domain == .session,
               error.code == OTSessionErrorCode.authorizationFailure.rawValue || error.code == OTSessionErrorCode.invalidSession.rawValue {
                current.disconnect()
                throw CommandError("the router refused (\(error.code)): \(error.message)")
            }
            if observer.isConnected {
                failures = 0
                while !observer.hasEnded {
                    if StopSignal.sleep(1) || timeIsUp() { break loop }
                    observer.report()
                }
            } else {
                current.disconnect()
            }
            guard StopSignal.received == nil && !timeIsUp() else { break }
            failures += 1
            let backoff = min(30.0, Double(1 << min(failures - 1, 5)))
            reporter.event("retrying", "no connection to the router; attempt \(failures) again in \(Int(backoff)) s",
                           [("attempt", .int(failures)), ("backoffSeconds", .int(Int(backoff)))])
            _ = StopSignal.sleep(backoff)
        }
        reporter.finish()
        reporter.event("stopping", StopSignal.received == nil ? "time is up: stopping" : "\(StopSignal.name): stopping")
        if let session {
            session.disconnect()
            let end = MonotonicTime.now() + 3
            while !observer.hasEnded && MonotonicTime.now() < end { usleep(50_000) }
        }
        device.shutdown()
        observer.finish()
        return 0
    }
}
