@preconcurrency import Dispatch
import Foundation
import OTNet
import OTSignaling

/// The router without its listening socket: the REST API and the signaling plane as a
/// `WebServerHandler`, over one session registry and a media plane. ``Router`` runs it
/// on a `WebServer`; tests drive it directly with requests and fake WebSocket peers.
/// A timer (a few ticks a second) drops silent sockets and ends reconnection graces.
public final class RouterService: WebServerHandler, Sendable {
    /// The configuration it runs with.
    public let configuration: RouterConfiguration
    let hub: SessionHub
    /// This router's place in a cluster (``RouterConfiguration/cluster``), nil when it runs
    /// alone. Joins Redis at ``startCluster(url:mediaPort:)``.
    public let cluster: ClusterNode?
    private let rest: RESTAPI
    private nonisolated(unsafe) let timer: DispatchSourceTimer  // thread-safe per Dispatch's documentation
    private let timerQueue = DispatchQueue(label: "otkit.router.timer")

    /// A service for `configuration` forwarding media with `media` (the SFU, or a test
    /// double). `log` defaults to standard error at `configuration.logLevel`.
    /// Cost: allocations and one timer; nothing is listening yet.
    public init(configuration: RouterConfiguration, media: any MediaForwarding, log: RouterLog? = nil) {
        self.configuration = configuration
        let log = log ?? RouterLog(level: configuration.logLevel)
        cluster = configuration.cluster.map { ClusterNode(configuration: $0, log: log) }
        hub = SessionHub(configuration: configuration, media: media, log: log, counters: MetricsCounters(), cluster: cluster)
        rest = RESTAPI(hub: hub)
        let shortest = min(configuration.silenceTimeoutSeconds,
                           configuration.reconnectGraceSeconds > 0 ? configuration.reconnectGraceSeconds : configuration.silenceTimeoutSeconds)
        let interval = max(0.02, min(0.5, shortest / 5))
        timer = DispatchSource.makeTimerSource(queue: timerQueue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(10))
        timer.setEventHandler { [hub] in hub.tick() }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// Stops the timer, ends the composers of running composed archives (their files stay
    /// playable) and leaves the cluster (registration removed, claims released);
    /// connections are left as they are (the web server closes the sockets).
    public func stop() {
        timer.cancel()
        hub.forwarding?.stop()
        hub.stopComposers()
        cluster?.stop(deregister: true)
    }

    /// Joins the cluster when configured (``Router`` calls it once listening): registers
    /// this node as reachable at `url` with media on `mediaPort`, its load read from the
    /// sessions on every heartbeat. Does nothing without a cluster. Cost: a few Redis round trips.
    /// - Throws: ``RouterError`` when Redis cannot be reached or the node id is taken.
    public func startCluster(url: String, mediaPort: Int?) throws {
        guard let cluster else { return }
        let publicIP = configuration.publicIP ?? configuration.mediaHost
        cluster.holdArchives(hub.perform { Array(hub.archives.keys) })  // records adopted from disk
        do {
            try cluster.start(url: url, publicIP: publicIP, mediaPort: mediaPort) { [weak hub] in
                guard let metrics = hub?.metrics() else { return ClusterLoad(sessions: 0, connections: 0, streams: 0) }
                return ClusterLoad(sessions: metrics.sessions, connections: metrics.connections, streams: metrics.streams)
            }
        } catch {
            throw RouterError("cannot join the cluster at \(cluster.configuration.redis): \(error.description)")
        }
    }

    /// Drains this router (SIGTERM on a clustered router): it takes no new clients (1023;
    /// resumes 1022, so they try another router) and no new sessions (503), tells every
    /// client it proxies to move to another router (`move`), and waits until no socket is
    /// proxied and no connection is left here, or `timeoutSeconds`. Connections of sessions
    /// this node owns stay until they leave (their sessions do not migrate). Returns
    /// whether it emptied in time. Cost: polls the metrics every 100 ms.
    @discardableResult public func drain(timeoutSeconds: Double) -> Bool {
        hub.perform { hub.draining = true }
        let own = cluster?.advertisedURL
        let others = (cluster?.nodeURLs ?? []).filter { $0 != own }
        let told = hub.forwarding?.moveAll(nodes: others) ?? 0
        hub.log.log(.info, "router.draining", ["moved": String(told), "timeoutSeconds": String(timeoutSeconds)])
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, timeoutSeconds) * 1000))
        while ContinuousClock.now < deadline {
            if (hub.forwarding?.statistics.activeProxies ?? 0) == 0, hub.metrics().connections == 0 { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }

    /// Mints a session, as `POST /session/create` does. `apiKey` must be configured.
    /// - Throws: ``RouterError`` for an unknown API key.
    public func createSession(apiKey: String, relayed: Bool = false) throws -> String {
        guard configuration.project(apiKey) != nil else { throw RouterError("API key \(apiKey) is not configured") }
        do { return try hub.createSession(apiKey: apiKey, relayed: relayed) } catch { throw RouterError("\(error)") }
    }

    /// What `/metrics` prints now. Cost: a pass over the sessions under the lock.
    public var metrics: RouterMetrics { hub.metrics() }

    // MARK: WebServerHandler

    /// Answers a REST, `/metrics`, `/healthz` or `/otkit.js` request and counts it by status.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let response = rest.handle(request)
        hub.counters.restRequest(status: response.status)
        if response.status >= 400 {
            hub.log.log(.info, "rest.refused", ["method": request.method, "path": request.path, "status": String(response.status)])
        } else {
            hub.log.log(.debug, "rest.ok", ["method": request.method, "path": request.path, "status": String(response.status)])
        }
        return response
    }

    /// Accepts WebSocket upgrades on `/v1/session/{sessionId}/ws` only.
    public func shouldAcceptWebSocket(path: String, query: [(name: String, value: String)]) -> Bool {
        SignalingPath.sessionId(in: path) != nil
    }

    /// A signaling socket opened; it must send `connect` first. One carrying a cluster mark
    /// (another node proxying a client) is served as that client, or closed if the mark
    /// does not verify.
    public func webSocketOpened(_ peer: any WebSocketPeer, path: String, query: [(name: String, value: String)]) {
        hub.opened(peer, path: path, query: query)
    }

    /// One signaling message from a client (to the session's owner if the socket is proxied).
    public func webSocketReceived(_ peer: any WebSocketPeer, text: String) {
        if hub.forwarding?.received(peer, text: text) == true { return }
        hub.received(peer, text: text)
    }

    /// The socket closed: its connection (if any) waits out the reconnection grace (at the
    /// owner, for a proxied socket).
    public func webSocketClosed(_ peer: any WebSocketPeer) {
        if hub.forwarding?.closed(peer) == true { return }
        hub.closed(peer)
    }

    /// What this node's proxying and REST forwarding to other nodes did; nil when it runs alone.
    public var forwardingStatistics: ClusterForwardingStatistics? { hub.forwarding?.statistics }
}

/// A router failure with a sentence a person can act on.
public struct RouterError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
