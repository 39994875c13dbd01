import Foundation
import Glibc
import OTRouter

/// `otkit router`: runs the router until SIGINT/SIGTERM. API secrets come from the config
/// file or the environment only, never from flags (they would show in `ps`).
enum RouterCommand {
    static let help = """
        usage: otkit router [--config FILE] [--host H] [--port P] [--media-host IP] [--media-port N] [--public-ip ADDR]
                            [--tls-cert F --tls-key F] [--dev-tokens]
                            [--archive-dir DIR] [--redis redis://HOST:PORT[/DB] --node-id ID]

        Runs the OTKit router: the OpenTok-shaped REST API, WebSocket signaling and the SFU.
        Projects (API key + secret) come from the config file's "projects" or from the
        environment: OTKIT_API_KEY + OTKIT_API_SECRET, or OTKIT_PROJECTS="key:secret,key2:secret2".
        Flags override the file. Prints the base URL (the api_url for server SDKs) and the
        configured API keys; stops cleanly on SIGINT or SIGTERM. Raises its open-file soft
        limit to the hard limit. Listening on a non-loopback address without TLS prints a
        warning: tokens, resume secrets, REST credentials, signaling and media keys would
        cross the network in clear text.

          --config FILE     JSON: {"host","port","tls":{"certificate","privateKey"},"mediaHost","mediaPort",
                            "publicIP","mediaWorkers","devTokens","archiveDirectory",
                            "projects":[{"apiKey","apiSecret"}],"reconnectGraceSeconds",
                            "silenceTimeoutSeconds","maxConnectionsPerSession","logLevel",
                            "unauthenticatedTimeoutSeconds","maxUnauthenticatedSockets",
                            "maxProjectJWTLifetimeSeconds","redis","nodeId",
                            "clusterHeartbeatMilliseconds","clusterNodeTTLMilliseconds",
                            "clusterClaimTTLMilliseconds","clusterSecret","clusterDrainSeconds"}
          --host H          listening address (default 127.0.0.1)
          --port P          listening port (default 0: the kernel picks)
          --media-host IP   the IP clients send media to (default 127.0.0.1)
          --media-port N    the one UDP port of the media edge: ICE, DTLS and SRTP of
                            every client that sends its transport (default 7882; 0: the
                            kernel picks). Open it (UDP) in the firewall.
          --public-ip ADDR  the address announced to clients for the media port when the
                            router is behind NAT (default: the media host)
          --tls-cert F      PEM certificate (serve HTTPS/WSS); needs --tls-key
          --tls-key F       PEM private key
          --dev-tokens      mint a token for anyone who opens the room page /room/{sessionId}
                            without one (POST /room/{sessionId}/token). On by default only when
                            listening on loopback; off loopback the page also needs TLS
                            (browsers refuse the camera on insecure origins).
          --archive-dir DIR where individual archives (WebM files, ZIP) are written
                            (default: $TMPDIR/otkit-archives, else /tmp/otkit-archives)
          --redis URL       join the routers sharing this Redis (redis://HOST:PORT[/DB]):
                            register this node (addresses, load) under a TTL heartbeat,
                            prune lapsed nodes, claim the sessions it sees first. Without
                            it the router runs alone. See docs/scale.md.
          --node-id ID      this node's id in the cluster, unique (1-64 of A-Z a-z 0-9 . _ -);
                            needed with --redis. Nodes sign what they forward to each other
                            with the cluster secret: config "clusterSecret" or the environment's
                            OTKIT_CLUSTER_SECRET, else one derived from the projects' secrets.
                            SIGTERM on a clustered router drains it first (clusterDrainSeconds, 30).
          --cluster-secret S the secret for router-to-router media cascade calls
                            (POST /cluster/v1/cascade); without it they are refused
        """

    static func run(_ words: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(words, valued: ["config", "host", "port", "media-host", "media-port", "public-ip", "tls-cert", "tls-key", "archive-dir",
                                                   "redis", "node-id", "cluster-secret"],
                                 flags: ["help", "dev-tokens"])
        if args.flags.contains("help") {
            print(help)
            return 0
        }
        var configuration: RouterConfiguration
        do {
            var base = RouterConfiguration()
            base.mediaPort = RouterConfiguration.defaultMediaPort  // the CLI's default; the file or a flag may change it
            configuration = try RouterConfiguration.load(file: args.options["config"], base: base)
        } catch {
            writeError("otkit router: \(error)\n")
            return 2
        }
        if let host = args.options["host"] { configuration.host = host }
        if args.options["port"] != nil { configuration.port = try args.int("port", default: 0, range: 0...65535) }
        if let media = args.options["media-host"] { configuration.mediaHost = media }
        if args.options["media-port"] != nil {
            configuration.mediaPort = try args.int("media-port", default: RouterConfiguration.defaultMediaPort, range: 0...65535)
        }
        if let address = args.options["public-ip"] { configuration.publicIP = address }
        if let secret = args.options["cluster-secret"] { configuration.clusterSecret = secret }
        if args.flags.contains("dev-tokens") { configuration.devTokens = true }
        if let directory = args.options["archive-dir"] { configuration.archiveDirectory = directory }
        if let url = args.options["redis"] {
            do {
                let endpoint = try RedisEndpoint(url: url)
                if configuration.cluster != nil {
                    configuration.cluster?.redis = endpoint
                } else {
                    configuration.cluster = ClusterConfiguration(redis: endpoint, nodeId: "")
                }
            } catch {
                throw Arguments.UsageError(description: "--redis: \(error.description)")
            }
        }
        if let id = args.options["node-id"] {
            guard configuration.cluster != nil else { throw Arguments.UsageError(description: "--node-id needs --redis") }
            configuration.cluster?.nodeId = id
        }
        if let secret = ProcessInfo.processInfo.environment["OTKIT_CLUSTER_SECRET"], !secret.isEmpty, configuration.cluster != nil {
            configuration.cluster?.secret = secret  // from the environment, never a flag (it would show in ps)
        }
        if let cluster = configuration.cluster {
            guard !cluster.nodeId.isEmpty else { throw Arguments.UsageError(description: "--redis needs --node-id ID (unique per router)") }
            if let problem = cluster.problem() { throw Arguments.UsageError(description: "\(problem.field): \(problem.text)") }
        }
        switch (args.options["tls-cert"], args.options["tls-key"]) {
        case (nil, nil): break
        case (let cert?, let key?):
            configuration.tlsCertificatePath = cert
            configuration.tlsPrivateKeyPath = key
        default: throw Arguments.UsageError(description: "--tls-cert and --tls-key go together")
        }

        // Block the signals so they are delivered to sigwait below, not to a random thread.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        if let warning = RouterExposure.plaintextWarning(host: configuration.host, tls: configuration.tlsCertificatePath != nil) {
            writeError(warning)
        }
        // Before the server starts: its descriptor reserve is read from the limit then.
        let descriptors = RouterExposure.raiseDescriptorLimit()
        let router = try Router(configuration: configuration)
        say("otkit router listening at \(router.baseURL)\n")
        say("signaling: \(router.signalingURL(sessionId: "{sessionId}"))\n")
        say("media host: \(configuration.mediaHost)\n")
        say("media port: \(router.mediaPort.map { "\($0)/udp" } ?? "none")\(configuration.publicIP.map { " (announced as \($0))" } ?? "")\n")
        say("API keys: \(configuration.projects.map(\.apiKey).joined(separator: ", "))\n")
        say("room page: \(router.baseURL)/room/{sessionId}?token=... (dev tokens "
            + (configuration.devTokensEnabled ? "ON: anyone reaching the port can open it without a token" : "off") + ")\n")
        if let cluster = router.cluster {
            say("cluster: node \(cluster.nodeId) registered in \(cluster.configuration.redis)\n")
        }
        say("descriptor limit: \(descriptors.after)\(descriptors.after > descriptors.before ? " (raised from \(descriptors.before))" : "")\n")
        var received: Int32 = 0
        sigwait(&signals, &received)
        if received == SIGTERM, let cluster = configuration.cluster {
            // A clustered router drains: no new clients, its proxied clients move to other nodes.
            say("otkit router: SIGTERM, draining (up to \(Int(cluster.drainTimeoutSeconds)) s)\n")
            let emptied = router.drain(timeoutSeconds: cluster.drainTimeoutSeconds)
            say("otkit router: \(emptied ? "drained" : "drain timed out"), stopping\n")
        }
        say("otkit router: \(received == SIGINT ? "SIGINT" : "SIGTERM"), stopping\n")
        router.stop()
        return 0
    }

    /// Writes to standard output unbuffered (a supervisor reading a pipe sees it at once).
    private static func say(_ text: String) { writeAll(STDOUT_FILENO, text) }
}
