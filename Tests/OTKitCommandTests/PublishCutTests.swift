import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import Testing

/// `otkit publish` survives a 30 s network cut and resumes without a restart. The
/// publisher process reaches the router only through impairment: its signaling through a
/// `TCPRelay`, its media through an `ImpairmentProxy` per leg (the router, in this
/// process, advertises the proxy instead of its own leg socket). Both are black-holed
/// for 30 s; afterwards media must flow into the router again from the same process,
/// which never exited. Then SIGTERM → exit 0.
@Suite(.serialized)
struct PublishCutTests {
    static let project = ProjectCredentials(apiKey: "6608", apiSecret: "6608aa11bb22cc33dd44ee55ff6677889900aabb")

    @Test func thirtySecondCutThenMediaFlowsAgainFromTheSameProcess() throws {
        let dir = try temporaryDirectory("cut")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let media = try ProxiedMedia()
        defer { media.stop() }
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        let router = try Router(configuration: configuration, media: media)
        defer { router.stop() }
        let relay = try TCPRelay(target: "127.0.0.1:\(router.port)")
        defer { relay.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let token = try OpenTokToken.generate(sessionID: sessionId, credentials: Self.project)

        let publisher = try BackgroundProcess(["publish", "--router", "http://127.0.0.1:\(relay.port)", "--session", sessionId,
                                               "--token", token, "--test-pattern", "--tone", "--resolution", "160x120", "--fps", "15"],
                                              directory: dir)
        #expect(poll(20) { media.packetsIn() > 100 }, "media flows before the cut: \(publisher.stdout) \(publisher.stderr)")

        relay.setBlackhole(true)
        media.setBlackhole(true)
        Thread.sleep(forTimeInterval: 1)  // what was in flight lands
        let atCut = media.packetsIn()
        Thread.sleep(forTimeInterval: 29)
        let duringCut = media.packetsIn()
        #expect(duringCut - atCut < 20, "the cut really cut the media: \(duringCut - atCut) packets arrived")
        relay.setBlackhole(false)
        media.setBlackhole(false)

        #expect(publisher.isRunning, "the publisher is still running after the cut: \(publisher.stderr)")
        #expect(poll(90) { media.packetsIn() > duringCut + 200 }, "media flows again: \(publisher.stdout.suffix(3000))")
        #expect(publisher.isRunning)
        #expect(publisher.stdout.contains("\"event\":\"reconnecting\"") || publisher.stdout.contains("\"event\":\"retrying\""),
                "the publisher reported the outage")
        publisher.terminate()
        #expect(publisher.waitForExit(15) == 0, "\(publisher.stderr)")
    }
}

/// The real SFU with every publisher leg advertised through an `ImpairmentProxy`, so a
/// test can black-hole a client's media in both directions. Counts what arrives.
final class ProxiedMedia: MediaForwarding, @unchecked Sendable {
    private let inner: MediaRouter
    private let lock = NSLock()
    private var proxies: [ImpairmentProxy] = []
    private var streams: [String] = []

    init() throws { inner = try MediaRouter(host: "127.0.0.1") }

    func addPublisher(streamId: String, audio: Bool, video: Bool) throws(MediaError) -> WireMediaLeg {
        try proxied(try inner.addPublisher(streamId: streamId, audio: audio, video: video), streamId: streamId)
    }

    /// `otkit publish` asks for an edge leg: the proxy stands in front of the edge's port
    /// for this leg only (the edge selects the proxy's address by its ICE checks).
    func addPublisher(streamId: String, audio: Bool, video: Bool, simulcastLayers: Int,
                      transport: WireTransport?) throws(MediaError) -> WireMediaLeg {
        try proxied(try inner.addPublisher(streamId: streamId, audio: audio, video: video, simulcastLayers: simulcastLayers,
                                           transport: transport), streamId: streamId)
    }

    func addSubscriber(subscriberId: String, streamId: String, audio: Bool, video: Bool,
                       transport: WireTransport?) throws(MediaError) -> WireMediaLeg {
        try inner.addSubscriber(subscriberId: subscriberId, streamId: streamId, audio: audio, video: video, transport: transport)
    }

    private func proxied(_ routerLeg: WireMediaLeg, streamId: String) throws(MediaError) -> WireMediaLeg {
        var leg = routerLeg
        guard let target = SocketAddress(ipv4: leg.host, port: UInt16(leg.port)),
              let proxy = try? ImpairmentProxy(target: target) else { throw MediaError(.systemError, "no proxy") }
        lock.withLock { proxies.append(proxy); streams.append(streamId) }
        leg.host = "127.0.0.1"
        leg.port = Int(proxy.listenAddress.port)
        return leg
    }

    func removePublisher(streamId: String) { inner.removePublisher(streamId: streamId) }
    func addSubscriber(subscriberId: String, streamId: String, audio: Bool, video: Bool) throws(MediaError) -> WireMediaLeg {
        try inner.addSubscriber(subscriberId: subscriberId, streamId: streamId, audio: audio, video: video)
    }
    func removeSubscriber(subscriberId: String) { inner.removeSubscriber(subscriberId: subscriberId) }
    func setForwarding(subscriberId: String, audio: Bool, video: Bool) { inner.setForwarding(subscriberId: subscriberId, audio: audio, video: video) }
    func setAudioMuted(streamId: String, _ muted: Bool) { inner.setAudioMuted(streamId: streamId, muted) }
    var totals: ForwardingCounters { inner.totals }
    func counters(streamId: String) -> ForwardingCounters? { inner.counters(streamId: streamId) }

    /// Authenticated packets the router has received from publishers so far (all legs).
    func packetsIn() -> UInt64 { inner.totals.packetsIn }

    func setBlackhole(_ on: Bool) { for proxy in lock.withLock({ proxies }) { proxy.setBlackhole(on) } }
    func stop() { for proxy in lock.withLock({ proxies }) { proxy.stop() } }
}
