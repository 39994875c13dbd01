import Dispatch
import Glibc
import OTKit
import OTMedia
import OTRouter
import OTSignaling
import Synchronization

/// `otbench router`, the information row "connect to first decoded frame": how long a
/// native OTKit subscriber takes from `OTSession.connect` to the first video frame it
/// decodes, through a real embedded router (WebSocket signaling, the one-port edge: ICE +
/// DTLS per leg) from a publisher already sending OTKit's test pattern (640x480, 30 fps).
///
/// Per run: a fresh subscribing session connects, subscribes as soon as it sees the stream
/// (its `streamCreated`), and the clock stops in its renderer's first `renderVideoFrame`.
/// The publisher's keyframe comes on the router's request for the new leg, so the figure
/// includes signaling, both handshakes, a keyframe round trip and one decode. Wall-clock,
/// no goal (the machine is shared). A browser's figure needs headless Chromium, which
/// otbench does not drive (its driver lives in the test support target).
extension RouterScenario {
    static func measureFirstFrame(runs: Int, log: ProgressLog) throws -> [BenchResult] {
        let project = ProjectCredentials.random()
        var configuration = RouterConfiguration()
        configuration.projects = [project]
        configuration.logLevel = .error  // a subscriber's disconnect is logged as a warning
        // The router's own media router, built as `Router` builds it, so the run can check
        // that the legs were edge legs (no leg socket opened).
        let media = try MediaRouter(host: configuration.mediaHost, log: RouterLog(level: configuration.logLevel),
                                    edge: MediaEdgeConfiguration(workerCount: configuration.mediaWorkers))
        let router = try Router(configuration: configuration, media: media)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: project.apiKey)
        let settings = OTSessionSettings()
        settings.routerURL = router.baseURL
        let queue = DispatchQueue(label: "otbench.first-frame")

        let publishing = FirstFrameWatcher()
        guard let publisherSession = OTSession(apiKey: project.apiKey, sessionId: sessionId, delegate: publishing, settings: settings) else {
            throw ScenarioError("cannot create the publishing session")
        }
        publisherSession.apiQueue = queue
        let publisherSettings = OTPublisherKitSettings()
        publisherSettings.name = "otbench"
        publisherSettings.videoCapture = OTTestPatternCapture(width: 640, height: 480, fps: 30)
        let publisher = OTPublisherKit(delegate: publishing, settings: publisherSettings)
        try publisherSession.connect(withToken: try OpenTokToken.generate(sessionID: sessionId, credentials: project,
                                                                           connectionData: "otbench publisher"))
        defer { publisherSession.disconnect() }
        try publishing.wait("the publisher to connect") { publisherSession.connection != nil }
        try publisherSession.publish(publisher)
        try publishing.wait("the stream to start") { publisher.stream != nil }

        var milliseconds: [Double] = []
        for run in 0..<runs {
            let watcher = FirstFrameWatcher()
            guard let session = OTSession(apiKey: project.apiKey, sessionId: sessionId, delegate: watcher, settings: settings) else {
                throw ScenarioError("cannot create the subscribing session")
            }
            session.apiQueue = queue
            watcher.session = session
            let start = MonotonicClock.nanoseconds()
            try session.connect(withToken: try OpenTokToken.generate(sessionID: sessionId, credentials: project, role: .subscriber))
            try watcher.wait("the first decoded frame") { watcher.firstFrameAt != nil }
            guard media.openSockets == 0, (media.edge?.legCount ?? 0) >= 2 else {
                throw ScenarioError("the legs were not edge legs (\(media.openSockets) leg sockets open)")
            }
            let elapsed = Double((watcher.firstFrameAt ?? start) - start) / 1e6
            milliseconds.append(elapsed)
            log("  first frame run \(run + 1)/\(runs): connect to first decoded frame \(TableReport.format(elapsed)) ms")
            session.disconnect()
        }
        return [.info("router edge native subscriber connect to first decoded frame (median)", value: median(milliseconds), unit: "ms")]
    }
}

/// A session, publisher and subscriber delegate that subscribes to the first stream it
/// sees and notes when its first video frame is rendered; failures are kept for `wait`.
private final class FirstFrameWatcher: OTSessionDelegate, OTPublisherKitDelegate, OTSubscriberKitDelegate, OTVideoRender,
    @unchecked Sendable {
    /// The subscribing session (nil: publisher side, subscribes to nothing).
    var session: OTSession?
    private var subscriber: OTSubscriberKit?
    private let first = Mutex<UInt64?>(nil)
    private let failure = Mutex<String?>(nil)

    var firstFrameAt: UInt64? { first.withLock { $0 } }

    /// Polls `done` every 5 ms for up to 20 s; throws on a reported failure or the timeout.
    func wait(_ what: String, _ done: () -> Bool) throws {
        for _ in 0..<4000 {
            if done() { return }
            if let failure = failure.withLock({ $0 }) { throw ScenarioError(failure) }
            usleep(5_000)
        }
        throw ScenarioError("timed out waiting for \(what)")
    }

    private func fail(_ text: String) { failure.withLock { if $0 == nil { $0 = text } } }

    func sessionDidConnect(_ session: OTSession) {}
    func sessionDidDisconnect(_ session: OTSession) {}
    func session(_ session: OTSession, didFailWithError error: OTError) { fail("session: \(error)") }
    func session(_ session: OTSession, streamCreated stream: OTStream) {
        guard let own = self.session, own === session, subscriber == nil else { return }
        guard let subscriber = OTSubscriberKit(stream: stream, delegate: self) else { return fail("cannot subscribe") }
        subscriber.videoRender = self
        self.subscriber = subscriber
        do { try session.subscribe(subscriber) } catch { fail("subscribe: \(error)") }
    }
    func session(_ session: OTSession, streamDestroyed stream: OTStream) {}
    func publisher(_ publisher: OTPublisherKit, didFailWithError error: OTError) { fail("publisher: \(error)") }
    func subscriber(_ subscriber: OTSubscriberKit, didFailWithError error: OTError) { fail("subscriber: \(error)") }
    func subscriberDidConnect(toStream subscriber: OTSubscriberKit) {}

    func renderVideoFrame(_ frame: OTVideoFrame) {
        let now = MonotonicClock.nanoseconds()
        first.withLock { if $0 == nil { $0 = now } }
    }
}
