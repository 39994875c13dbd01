import OTMedia
import OTNet
import OTSignaling

/// The OTKit router: the REST API and WebSocket signaling (``RouterService``) served by an
/// OTNet `WebServer` (HTTP or HTTPS), with a media plane: the real SFU
/// (`MediaRouter` on `configuration.mediaHost`) unless another `MediaForwarding` is given.
/// Listening when `init` returns; `stop()` closes every socket.
public final class Router: Sendable {
    /// The signaling/REST service it serves.
    public let service: RouterService
    private let server: WebServer
    private let scheme: String
    private let advertisedHost: String

    /// Starts a router. `media` nil opens the real `MediaRouter` bound to
    /// `configuration.mediaHost`. Cost: one listening socket and its service thread, the
    /// SFU's sockets as streams are published.
    /// - Throws: ``RouterError`` when the port cannot be bound, the TLS files cannot be
    ///   loaded or the media router cannot start.
    public init(configuration: RouterConfiguration, media: (any MediaForwarding)? = nil) throws {
        let forwarding: any MediaForwarding
        if let media {
            forwarding = media
        } else {
            let edge = MediaEdgeConfiguration(address: .ipv4Loopback(port: UInt16(clamping: max(0, configuration.mediaPort))),
                                              workerCount: configuration.mediaWorkers)
            do {
                forwarding = try MediaRouter(host: configuration.mediaHost, log: RouterLog(level: configuration.logLevel), edge: edge,
                                             publicIP: configuration.publicIP)
            } catch {
                throw RouterError("cannot start the media router on \(configuration.mediaHost): \(error)")
            }
        }
        let service = RouterService(configuration: configuration, media: forwarding)
        var web = WebServerConfiguration()
        web.host = configuration.host
        web.port = configuration.port
        web.tlsCertificatePath = configuration.tlsCertificatePath
        web.tlsPrivateKeyPath = configuration.tlsPrivateKeyPath
        web.unauthenticatedDeadlineSeconds = configuration.unauthenticatedTimeoutSeconds
        web.maxUnauthenticatedWebSockets = configuration.maxUnauthenticatedSockets
        do {
            server = try WebServer(configuration: web, handler: service)
        } catch {
            service.stop()
            throw RouterError("cannot listen on \(configuration.host):\(configuration.port): \(error.message)")
        }
        self.service = service
        scheme = configuration.tlsCertificatePath == nil ? "http" : "https"
        advertisedHost = configuration.host == "0.0.0.0" ? "127.0.0.1" : configuration.host
        // Weak: the service must not keep its own web server alive.
        service.hub.counters.attachWebStatistics { [weak server] in server?.statistics ?? WebServerStatistics() }
        mediaPort = (forwarding as? MediaRouter)?.mediaPort
        do {
            try service.startCluster(url: "\(scheme)://\(advertisedHost):\(server.port)", mediaPort: mediaPort)
        } catch {
            server.stop()
            service.stop()
            throw error
        }
        service.hub.log.log(.info, "router.started", ["url": "\(scheme)://\(advertisedHost):\(server.port)",
                                                      "mediaHost": configuration.mediaHost,
                                                      "mediaPort": mediaPort.map(String.init) ?? "none"])
        if configuration.devTokensEnabled {
            // Anyone who reaches the port can join any session: say so.
            service.hub.log.log(.info, "router.devTokens", ["state": "on",
                                                                "why": configuration.devTokens == true ? "devTokens set" : "listening on loopback",
                                                                "endpoint": "POST /room/{sessionId}/token mints a publisher token for anyone"])
        }
    }

    /// The media edge's UDP port (every edge leg's ICE, DTLS and SRTP), nil when the media
    /// plane given has no edge.
    public let mediaPort: Int?

    /// The bound HTTP/WebSocket port.
    public var port: Int { server.port }

    /// `http://127.0.0.1:<port>` (https with TLS): what server SDKs take as `api_url`.
    /// A router listening on 0.0.0.0 advertises 127.0.0.1.
    public var baseURL: String { "\(scheme)://\(advertisedHost):\(port)" }

    /// The WebSocket URL of `sessionId`'s signaling: `ws://host:port/v1/session/{id}/ws`.
    public func signalingURL(sessionId: String) -> String {
        "\(scheme == "https" ? "wss" : "ws")://\(advertisedHost):\(port)/v1/session/\(sessionId)/ws"
    }

    /// Mints a session, as `POST /session/create` does (routed unless `relayed`).
    /// - Throws: ``RouterError`` for an API key the router does not serve.
    public func createSession(apiKey: String, relayed: Bool = false) throws -> String {
        try service.createSession(apiKey: apiKey, relayed: relayed)
    }

    /// What `/metrics` prints now.
    public var metrics: RouterMetrics { service.metrics }

    /// This router's place in a cluster of routers (Redis), nil when it runs alone.
    public var cluster: ClusterNode? { service.cluster }

    /// Drains the router (see ``RouterService/drain(timeoutSeconds:)``): no new clients or
    /// sessions, proxied clients told to move; returns once empty (true) or at the timeout.
    @discardableResult public func drain(timeoutSeconds: Double) -> Bool { service.drain(timeoutSeconds: timeoutSeconds) }

    /// Closes every socket and stops the timers. Idempotent.
    public func stop() {
        server.stop()
        service.stop()
    }
}
