import Dispatch
import Glibc
import OTKit
import OTMedia
import OTRouter
import OTSignaling

/// `otkit demo`: the README's main job. Starts an embedded router on loopback, connects
/// a publishing session (the first camera, the test pattern where there is none, or
/// `--test-pattern`) and a subscribing session, and prints a live line of what the
/// subscriber receives (decoded fps, bitrate, loss), then a summary. Everything is real:
/// WebSocket signaling, VP8 and Opus, SRTP through the router's SFU.
enum DemoCommand {
    static let help = """
        usage: otkit demo [--seconds N] [--camera PATH | --test-pattern] [--show]
               otkit demo --browser [--seconds N] [--camera PATH | --test-pattern]

          --seconds N      how long to run (default 5; with --browser: until Ctrl-C)
          --browser        publish natively (camera or test pattern, and a 440 Hz tone) and
                           print the room page's URL (with a token) to open in a browser on
                           this machine; subscribes to every browser stream, prints each
                           browser that joins and what it decodes from it, and a summary
          --camera PATH    a V4L2 camera, e.g. /dev/video0 (default: the first camera found)
          --test-pattern   use the synthetic test pattern even if a camera exists
          --show           show the publisher's and the subscriber's video in windows (X11: needs DISPLAY)
        """

    static func run(_ words: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(words, valued: ["seconds", "camera"], flags: ["test-pattern", "help", "show", "browser"])
        if args.flags.contains("help") { print(help); return 0 }
        let seconds = try args.int("seconds", default: 5, range: 1...86_400)
        if args.flags.contains("test-pattern") && args.options["camera"] != nil {
            throw Arguments.UsageError(description: "--camera and --test-pattern exclude each other; give one")
        }
        if let path = args.options["camera"], access(path, F_OK) != 0 {
            throw Arguments.UsageError(description: "no camera at \(path) (see `otkit devices`)")
        }
        let show = args.flags.contains("show")
        if args.flags.contains("browser") {
            if show { throw Arguments.UsageError(description: "--show and --browser exclude each other (the browser shows the video)") }
            return try BrowserDemo.run(args)
        }
        if show, let problem = OTView.displayProblem() { throw DemoError("--show: \(problem)") }

        let demo = try DemoRouter()
        let (project, router, sessionId) = (demo.project, demo.router, demo.sessionId)
        defer { router.stop() }

        let observer = DemoObserver()
        let queue = DispatchQueue(label: "otkit.demo.api")  // delegates run here, not on main
        let settings = OTSessionSettings()
        settings.routerURL = router.baseURL
        guard let publishing = OTSession(apiKey: project.apiKey, sessionId: sessionId, delegate: observer, settings: settings),
              let subscribing = OTSession(apiKey: project.apiKey, sessionId: sessionId, delegate: observer, settings: settings)
        else { throw DemoError("cannot create the sessions") }
        publishing.apiQueue = queue
        subscribing.apiQueue = queue

        let (publisher, capture, sourceName) = makePublisher(args, delegate: observer)
        defer { capture?.close() }
        print("otkit demo: router \(router.baseURL), session \(sessionId)")
        print("publishing \(sourceName) for \(seconds) s")
        try publishing.connect(withToken: try OpenTokToken.generate(sessionID: sessionId, credentials: project, connectionData: "demo publisher"))
        try observer.wait("the publisher to connect") { publishing.connection != nil }
        try publishing.publish(publisher)
        if show { try publisher.view?.show(title: "otkit demo: publisher") }
        try observer.wait("the stream to start") { publisher.stream != nil }
        try subscribing.connect(withToken: try OpenTokToken.generate(sessionID: sessionId, credentials: project, role: .subscriber))
        try observer.wait("the subscriber to see the stream") { subscribing.streams.count == 1 }
        guard let stream = subscribing.streams.values.first else { throw DemoError("the stream vanished") }
        guard let subscriber = OTSubscriber(stream: stream, delegate: observer) else { throw DemoError("the stream's session is gone") }
        subscriber.videoRender = observer
        subscriber.networkStatsDelegate = observer
        try subscribing.subscribe(subscriber)
        if show { try subscriber.view?.show(title: "otkit demo: subscriber") }
        defer { subscriber.view?.hide(); publisher.view?.hide() }

        let live = LiveLine()
        let start = MonotonicClock.nanoseconds()
        var last = observer.snapshot()
        var lastTime = start
        while MonotonicClock.nanoseconds() - start < UInt64(seconds) * 1_000_000_000 {
            usleep(250_000)
            if let failure = observer.failure { throw DemoError(failure) }
            let now = MonotonicClock.nanoseconds()
            guard now - lastTime >= 1_000_000_000 else { continue }
            let current = observer.snapshot()
            let elapsed = Double(now - lastTime) / 1e9
            live.show("t=\(formatted(Double(now - start) / 1e9, 1))s  \(current.width)x\(current.height)  "
                + "\(formatted(Double(current.frames - last.frames) / elapsed, 1)) fps decoded  "
                + "\(Int(Double(current.videoBytes - last.videoBytes) * 8 / elapsed / 1000)) kbps  "
                + "lost \(current.videoLost) pkts  state \(subscribing.sessionConnectionStatus)")
            last = current
            lastTime = now
        }
        live.finish()
        let total = observer.snapshot()
        let elapsed = Double(MonotonicClock.nanoseconds() - start) / 1e9
        let sent = capture?.framesPushed.load(ordering: .relaxed) ?? 0
        let latencies = total.latenciesMicroseconds.sorted()
        func percentile(_ p: Int) -> String {
            latencies.isEmpty ? "n/a" : formatted(Double(latencies[min(latencies.count - 1, latencies.count * p / 100)]) / 1000, 1) + " ms"
        }
        let lossPercent = total.videoPackets + total.videoLost > 0
            ? Double(total.videoLost) * 100 / Double(total.videoPackets + total.videoLost) : 0
        print("summary: \(total.frames) frames decoded in \(formatted(elapsed, 1)) s "
            + "(\(formatted(Double(total.frames) / elapsed, 1)) fps), \(sent) frames sent, video \(total.videoPackets) packets received "
            + "(\(total.videoPacketsSent) sent at the publisher's last report), \(total.videoLost) lost (\(formatted(lossPercent, 2)) %), audio \(total.audioPackets) packets, "
            + "latency p50 \(percentile(50)) p99 \(percentile(99))"
            + (total.stamped > 0 ? ", test-pattern frame numbers read back \(total.stamped)/\(total.frames)" : ""))
        subscribing.disconnect()
        publishing.disconnect()
        return total.frames > 0 ? 0 : 1
    }

    /// A publisher of the chosen or first camera, or the test pattern (asked for, or when
    /// the machine has no camera or it cannot be opened), named `name` (default: the
    /// source's name). The capture remembers when each frame left, so with a
    /// ``DemoObserver`` test-pattern frames give end-to-end latency.
    static func makePublisher(_ args: Arguments, name: String? = nil,
                              delegate: any OTPublisherKitDelegate) -> (OTPublisherKit, SourceCapture?, String) {
        let requested = VideoFormat(width: 640, height: 480, frameRate: 30)
        let quiet: @Sendable (String, String) -> Void = { _, message in writeError("otkit demo: \(message)\n") }
        var capture: SourceCapture?
        if !args.flags.contains("test-pattern"), let path = args.options["camera"] ?? V4L2Camera.devices().first?.path {
            capture = try? SourceCapture(name: "camera \(path)", onEvent: quiet) { () throws(MediaError) in try V4L2Camera(path: path, requested: requested) }
        }
        if capture == nil {
            capture = try? SourceCapture(name: "the test pattern", onEvent: quiet) { () throws(MediaError) in try TestPatternSource(format: requested) }
        }
        let settings = OTPublisherKitSettings()
        settings.name = name ?? capture?.name ?? "demo"
        settings.videoCapture = capture
        let observer = delegate as? DemoObserver
        if let capture, let observer { observer.sentTime = { [capture] number in capture.sentTime(number) } }
        let publisher = OTPublisherKit(delegate: delegate, settings: settings)
        if let observer { publisher.networkStatsDelegate = observer }
        return (publisher, capture, capture?.name ?? "nothing")
    }
}

/// Why the demo stopped.
struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Fixed decimals without Foundation.
func formatted(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    guard decimals > 0 else { return "\(scaled)" }
    var fraction = String(abs(scaled) % Int(scale))
    while fraction.count < decimals { fraction = "0" + fraction }
    return "\(scaled < 0 && scaled / Int(scale) == 0 ? "-" : "")\(scaled / Int(scale)).\(fraction)"
}
