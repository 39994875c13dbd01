import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// What the end-to-end tests repeat for one project: the embedded router, OTKit sessions
/// on it (delegate calls on the recorder's queue), tokens, "connect and wait for
/// didConnect" and "publish and wait for the stream". Each helper's `#expect`/`#require`
/// reports at the caller's line.
struct SessionTestKit {
    let project: ProjectCredentials

    /// A router for `project` in this process (logs errors only); the defaults are the
    /// router's own (30 s grace, 5 s silence). Cost: one WebServer thread plus the SFU.
    func startRouter(grace: Double = 30, silence: Double = 5, media: (any MediaForwarding)? = nil) throws -> Router {
        var configuration = RouterConfiguration()
        configuration.projects = [project]
        configuration.logLevel = .error
        configuration.reconnectGraceSeconds = grace
        configuration.silenceTimeoutSeconds = silence
        return try Router(configuration: configuration, media: media)
    }

    /// A session on `router` (or through `cut`'s relay and proxies) whose delegate calls
    /// land on `recorder`'s queue. Not connected yet.
    func makeSession(_ router: Router, _ sessionId: String, _ recorder: DelegateRecorder, via cut: CutPath? = nil,
                     heartbeatTimeout: Double = 3, sourceLocation: SourceLocation = #_sourceLocation) throws -> OTSession {
        let settings = OTSessionSettings()
        settings.routerURL = cut?.routerURL ?? router.baseURL
        settings.heartbeatTimeout = heartbeatTimeout
        if let media = cut?.proxies { settings.mediaAddressRewrite = { host, port in media.route(host, port) } }
        let session = try #require(OTSession(apiKey: project.apiKey, sessionId: sessionId, delegate: recorder, settings: settings),
                                   sourceLocation: sourceLocation)
        session.apiQueue = recorder.queue
        return session
    }

    /// A T1 token for `sessionId` signed with `project`'s secret.
    func token(_ sessionId: String, _ role: Role = .publisher, data: String? = nil) throws -> String {
        try OpenTokToken.generate(sessionID: sessionId, credentials: project, role: role, connectionData: data)
    }

    /// Connects `session` with `token` and expects didConnect within 10 s.
    func connect(_ session: OTSession, _ recorder: DelegateRecorder, token: String, _ comment: Comment? = nil,
                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        try session.connect(withToken: token)
        #expect(recorder.wait { $0.contains("didConnect") }, comment, sourceLocation: sourceLocation)
    }

    /// Another client joins `sessionId` as a subscriber-role session and expects its
    /// streamCreated for `streamId`: the set-up of every "A publishes, B watches" test.
    func joinSeeing(_ streamId: String, _ router: Router, _ sessionId: String, _ recorder: DelegateRecorder,
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> OTSession {
        let session = try makeSession(router, sessionId, recorder, sourceLocation: sourceLocation)
        try connect(session, recorder, token: try token(sessionId, .subscriber), sourceLocation: sourceLocation)
        #expect(recorder.wait { $0.contains("streamCreated \(streamId)") }, sourceLocation: sourceLocation)
        return session
    }

    /// Publishes the stamped test pattern (plus the default audio) and expects the
    /// publisher's streamCreated; returns the publisher and its stream id.
    /// `configure` may change the other settings (e.g. `publisherAudioFallbackEnabled`).
    func publishPattern(_ session: OTSession, _ recorder: DelegateRecorder, name: String? = nil,
                        width: Int, height: Int, fps: Int, configure: ((OTPublisherKitSettings) -> Void)? = nil,
                        sourceLocation: SourceLocation = #_sourceLocation) throws -> (publisher: OTPublisherKit, streamId: String) {
        let settings = OTPublisherKitSettings()
        if let name { settings.name = name }
        configure?(settings)
        settings.videoCapture = TestPatternCapturer(width: width, height: height, fps: fps)
        return try publish(session, recorder, settings, sourceLocation)
    }

    /// Publishes audio only (no video track) and expects the publisher's streamCreated.
    func publishAudioOnly(_ session: OTSession, _ recorder: DelegateRecorder,
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> (publisher: OTPublisherKit, streamId: String) {
        let settings = OTPublisherKitSettings()
        settings.videoTrack = false
        return try publish(session, recorder, settings, sourceLocation)
    }

    /// Subscribes to `stream` with a FrameNumberRender and expects "subscriber connected".
    func subscribeReadingFrameNumbers(_ session: OTSession, _ recorder: DelegateRecorder, _ stream: OTStream,
                                      sourceLocation: SourceLocation = #_sourceLocation) throws -> (subscriber: OTSubscriber, render: FrameNumberRender) {
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: recorder))
        let render = FrameNumberRender()
        subscriber.videoRender = render
        try session.subscribe(subscriber)
        #expect(recorder.wait { $0.contains("subscriber connected") }, sourceLocation: sourceLocation)
        return (subscriber, render)
    }

    private func publish(_ session: OTSession, _ recorder: DelegateRecorder, _ settings: OTPublisherKitSettings,
                         _ sourceLocation: SourceLocation) throws -> (publisher: OTPublisherKit, streamId: String) {
        let publisher = OTPublisherKit(delegate: recorder, settings: settings)
        try session.publish(publisher)
        #expect(recorder.wait { $0.contains { $0.hasPrefix("publisher streamCreated") } }, sourceLocation: sourceLocation)
        return (publisher, try #require(publisher.stream?.streamId, sourceLocation: sourceLocation))
    }
}

/// One client's network path that a test can cut: its signaling through a TCPRelay in
/// front of the router, its media through ImpairmentProxies (via mediaAddressRewrite);
/// both black-hole together.
struct CutPath {
    let relay: TCPRelay
    let proxies = MediaProxies()

    init(_ router: Router) throws {
        relay = try TCPRelay(target: "127.0.0.1:\(router.port)")
    }

    /// The URL a session takes as routerURL to go through the relay.
    var routerURL: String { "http://127.0.0.1:\(relay.port)" }

    /// Cuts (true) or restores (false) signaling and media at once.
    func setCut(_ on: Bool) {
        relay.setBlackhole(on)
        proxies.setBlackhole(on)
    }

    /// Stops the proxies and the relay.
    func stop() {
        proxies.stop()
        relay.stop()
    }
}

/// Impairment proxies in front of the router's media legs (via mediaAddressRewrite).
/// Impairments set per direction apply to every proxy of the session, now and later
/// (`.forward` = client → router, `.reverse` = router → client).
final class MediaProxies: @unchecked Sendable {
    private let lock = NSLock()
    private var proxies: [ImpairmentProxy] = []
    private var forward = ImpairmentSettings()
    private var reverse = ImpairmentSettings()
    private var seed: UInt64 = 1

    func route(_ host: String, _ port: Int) -> (String, Int) {
        guard let target = SocketAddress(ipv4: host, port: UInt16(port)) else { return (host, port) }
        let made = lock.withLock { () -> ImpairmentProxy? in
            seed &+= 1
            guard let proxy = try? ImpairmentProxy(target: target, forward: forward, reverse: reverse, seed: seed) else { return nil }
            proxies.append(proxy)
            return proxy
        }
        guard let proxy = made else { return (host, port) }
        return ("127.0.0.1", Int(proxy.listenAddress.port))
    }

    var count: Int { lock.withLock { proxies.count } }
    /// The proxies made so far (one per media leg the session opened).
    var all: [ImpairmentProxy] { lock.withLock { proxies } }

    /// Sets one direction's impairments on every proxy (the blackhole flag each has is
    /// kept) and on those made later.
    func setImpairment(_ settings: ImpairmentSettings, for direction: ImpairmentProxy.Direction) {
        let current = lock.withLock { () -> [ImpairmentProxy] in
            if direction == .forward { forward = settings } else { reverse = settings }
            return proxies
        }
        for proxy in current {
            var next = settings
            next.blackhole = proxy.settings(for: direction).blackhole
            proxy.setSettings(next, for: direction)
        }
    }

    /// One direction's counters summed over every proxy.
    func bytesReceived(_ direction: ImpairmentProxy.Direction) -> UInt64 {
        all.reduce(0) { $0 + $1.counters(for: direction).receivedBytes }
    }
    func setBlackhole(_ on: Bool) { for proxy in lock.withLock({ proxies }) { proxy.setBlackhole(on) } }
    func stop() { for proxy in lock.withLock({ proxies }) { proxy.stop() } }
}
