import Foundation
import OTSignaling

/// Everything a router needs to run: where it listens, where media goes, which projects
/// it serves, and its timing limits. A plain value; build one in code or with
/// ``load(file:environment:)`` (a JSON file and/or environment variables — secrets are
/// never taken from command-line flags).
public struct RouterConfiguration: Sendable {
    /// The address the HTTP/WebSocket server binds to (an IP literal).
    public var host: String = "127.0.0.1"
    /// The HTTP/WebSocket port; 0 lets the kernel pick one (read it from `Router.port`).
    public var port: Int = 0
    /// PEM certificate for HTTPS/WSS; nil serves plain HTTP/WS.
    public var tlsCertificatePath: String?
    /// PEM private key matching ``tlsCertificatePath``.
    public var tlsPrivateKeyPath: String?
    /// The IP clients send media to; the media sockets bind to it.
    public var mediaHost: String = "127.0.0.1"
    /// The one UDP port of the media edge (on `mediaHost`): ICE, DTLS and SRTP of every
    /// leg whose client sent its `transport`. 0 lets the kernel pick (embedded and test
    /// routers); `otkit router` uses ``defaultMediaPort``.
    public var mediaPort: Int = 0
    /// The address announced in edge legs when the router is behind NAT (an IP literal);
    /// nil announces `mediaHost`.
    public var publicIP: String?
    /// Worker threads sharing the media port (`SO_REUSEPORT`), at least 1.
    public var mediaWorkers: Int = 2
    /// The media port `otkit router` listens on unless told otherwise: 7882/udp.
    public static let defaultMediaPort = 7882
    /// The projects (API key + secret) this router serves.
    public var projects: [ProjectCredentials] = []
    /// How long a connection whose socket dropped is kept for the client to resume, seconds.
    public var reconnectGraceSeconds: Double = 30
    /// A socket that sends nothing (not even a ping) for this long counts as dropped, seconds.
    public var silenceTimeoutSeconds: Double = 5
    /// Most connections one session admits; the next gets error 1027.
    public var maxConnectionsPerSession: Int = 3000
    /// Limits that keep one client from taking the router for itself (see `RouterLimits`).
    public var limits = RouterLimits()
    /// The least severe log level written to standard error.
    public var logLevel: LogLevel = .info
    /// Dev tokens: `POST /room/{sessionId}/token` mints a publisher token for anyone who
    /// asks, so the room page (`/room/{sessionId}`) works without a token in its URL.
    /// nil (the default): on only when ``host`` is loopback; true/false: as set (the
    /// `"devTokens"` config key, `otkit router --dev-tokens`). See ``devTokensEnabled``.
    public var devTokens: Bool?
    /// Where individual archives are written (`<dir>/<archiveId>/…` and `<archiveId>.zip`);
    /// nil: `$TMPDIR/otkit-archives` (or `/tmp/otkit-archives`). The `"archiveDirectory"`
    /// config key, `otkit router --archive-dir`. Created when the first archive starts.
    public var archiveDirectory: String?
    /// How long an archive's signed download `url` stays valid, in seconds (OpenTok's S3
    /// links last 10 minutes).
    public var archiveURLLifetimeSeconds: Int = 600

    /// ``archiveDirectory`` or the default under the system's temporary directory. Cost: an environment read.
    public var effectiveArchiveDirectory: String {
        if let archiveDirectory { return archiveDirectory }
        let temporary = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return temporary + "/otkit-archives"
    }

    /// Whether the router mints dev tokens: ``devTokens`` when set, else whether ``host``
    /// is a loopback address (only this machine can reach it). Cost: one `inet_pton`.
    public var devTokensEnabled: Bool { devTokens ?? LoopbackAddress.contains(host) }

    // Exposure limits: what a client may hold before it authenticates.
    /// A signaling WebSocket that has not sent a valid `connect` is closed this many
    /// seconds after it opened, whatever it sends (pings included). Whole seconds, ≥ 1.
    public var unauthenticatedTimeoutSeconds: Int = 10
    /// Most signaling WebSockets open without a valid `connect` at once; past it a new one
    /// closes the oldest. Never more than half the descriptors the server may use.
    public var maxUnauthenticatedSockets: Int = 1000
    /// Longest project JWT (`exp - iat`) the REST API accepts, seconds (OpenTok's SDKs sign
    /// 3-minute JWTs; the Python SDK's `jwt_livetime` can ask for more).
    public var maxProjectJWTLifetimeSeconds: Int64 = ProjectJWT.defaultMaximumLifetime

    /// Several routers sharing sessions through Redis (`otkit router --redis … --node-id …`);
    /// nil (the default): the router runs alone.
    public var cluster: ClusterConfiguration?
    /// The secret routers of one cluster share for their internal calls (the media
    /// cascade's `POST /cluster/v1/cascade`, header `X-OTKit-Cluster-Secret`); nil: those
    /// calls are refused (403). Give every node the same long random string.
    public var clusterSecret: String?

    /// The defaults above, with no project.
    public init() {}

    /// The credentials of `apiKey`, nil if this router does not serve it. Cost: a linear scan.
    public func project(_ apiKey: String) -> ProjectCredentials? { projects.first { $0.apiKey == apiKey } }

    /// Reads a configuration from a JSON file and/or the environment.
    ///
    /// The file (optional) is one object:
    /// `{"host","port","tls":{"certificate","privateKey"},"mediaHost","devTokens","projects":[{"apiKey","apiSecret"}],
    /// "reconnectGraceSeconds","silenceTimeoutSeconds","maxConnectionsPerSession","logLevel",
    /// "unauthenticatedTimeoutSeconds","maxUnauthenticatedSockets","maxProjectJWTLifetimeSeconds","limits":{…},
    /// "redis","nodeId","clusterSecret","clusterHeartbeatMilliseconds","clusterNodeTTLMilliseconds","clusterClaimTTLMilliseconds"}`, every key
    /// optional (`limits`: the fields of ``RouterLimits``; `redis` + `nodeId`: ``cluster``, see docs/scale.md). Projects are added from the environment: `OTKIT_API_KEY` + `OTKIT_API_SECRET`,
    /// and/or `OTKIT_PROJECTS="key:secret,key2:secret2"`. At least one project is required;
    /// a secret must be non-empty and must not end in `.` + letters/digits/underscore (the
    /// OpenTok Python SDK reads such a secret as a private-key file name and talks to Vonage
    /// instead); API keys must be unique and contain no `~`, `/` or spaces.
    /// - Throws: ``RouterConfigurationError`` naming the file and field at fault.
    /// Cost: one file read and a JSON parse.
    /// `base` holds the defaults the file and environment are applied on (`otkit router`
    /// passes its own media port).
    public static func load(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                            base: RouterConfiguration = RouterConfiguration())
        throws(RouterConfigurationError) -> RouterConfiguration
    {
        var configuration = base
        if let file {
            try ConfigurationFile.apply(path: file, to: &configuration)
        }
        let environmentProjects = try Self.environmentProjects(environment)
        configuration.projects += environmentProjects
        try configuration.validate(source: file ?? "environment")
        return configuration
    }

    /// Projects named by `OTKIT_API_KEY`/`OTKIT_API_SECRET` and `OTKIT_PROJECTS`.
    static func environmentProjects(_ environment: [String: String]) throws(RouterConfigurationError) -> [ProjectCredentials] {
        var projects: [ProjectCredentials] = []
        let key = environment["OTKIT_API_KEY"], secret = environment["OTKIT_API_SECRET"]
        switch (key, secret) {
        case (nil, nil): break
        case (let key?, let secret?): projects.append(ProjectCredentials(apiKey: key, apiSecret: secret))
        case (nil, _): throw RouterConfigurationError(source: "environment", field: "OTKIT_API_KEY",
                                                      problem: "OTKIT_API_SECRET is set but OTKIT_API_KEY is not")
        case (_, nil): throw RouterConfigurationError(source: "environment", field: "OTKIT_API_SECRET",
                                                      problem: "OTKIT_API_KEY is set but OTKIT_API_SECRET is not")
        }
        if let list = environment["OTKIT_PROJECTS"] {
            for entry in list.split(separator: ",", omittingEmptySubsequences: true) {
                guard let colon = entry.firstIndex(of: ":") else {
                    throw RouterConfigurationError(source: "environment", field: "OTKIT_PROJECTS",
                                                   problem: "each entry is key:secret, separated by commas")
                }
                projects.append(ProjectCredentials(apiKey: String(entry[..<colon]).trimmingCharacters(in: .whitespaces),
                                                   apiSecret: String(entry[entry.index(after: colon)...])))
            }
        }
        return projects
    }

    /// Checks every field; `source` names where the values came from, for the message.
    func validate(source: String) throws(RouterConfigurationError) {
        func fail(_ field: String, _ problem: String) -> RouterConfigurationError {
            RouterConfigurationError(source: source, field: field, problem: problem)
        }
        guard !projects.isEmpty else {
            throw fail("projects", "no project configured: give \"projects\" in the file or OTKIT_API_KEY + OTKIT_API_SECRET (or OTKIT_PROJECTS=key:secret) in the environment")
        }
        var seen = Set<String>()
        for (index, project) in projects.enumerated() {
            let field = "projects[\(index)]"
            guard !project.apiKey.isEmpty else { throw fail(field + ".apiKey", "the API key is empty") }
            guard !project.apiKey.contains(where: { "~/ ?#%".contains($0) }) else {
                throw fail(field + ".apiKey", "the API key \"\(project.apiKey)\" contains one of ~ / space ? # %")
            }
            guard seen.insert(project.apiKey).inserted else { throw fail(field + ".apiKey", "the API key \(project.apiKey) is configured twice") }
            guard !project.apiSecret.isEmpty else { throw fail(field + ".apiSecret", "the API secret of \(project.apiKey) is empty") }
            if Self.looksLikeKeyFile(project.apiSecret) {
                throw fail(field + ".apiSecret", "the API secret of \(project.apiKey) ends in '.' + letters/digits, which the OpenTok server SDKs read as a Vonage private-key file name; choose another secret")
            }
        }
        guard (0...65535).contains(port) else { throw fail("port", "\(port) is not a port number (0...65535)") }
        guard (tlsCertificatePath == nil) == (tlsPrivateKeyPath == nil) else {
            throw fail("tls", "give both the certificate and the private key, or neither")
        }
        guard reconnectGraceSeconds >= 0 else { throw fail("reconnectGraceSeconds", "must not be negative") }
        guard silenceTimeoutSeconds > 0 else { throw fail("silenceTimeoutSeconds", "must be positive") }
        guard maxConnectionsPerSession > 0 else { throw fail("maxConnectionsPerSession", "must be positive") }
        guard (1...3600).contains(unauthenticatedTimeoutSeconds) else { throw fail("unauthenticatedTimeoutSeconds", "must be 1...3600") }
        guard maxUnauthenticatedSockets > 0 else { throw fail("maxUnauthenticatedSockets", "must be positive") }
        guard (1...86_400).contains(maxProjectJWTLifetimeSeconds) else { throw fail("maxProjectJWTLifetimeSeconds", "must be 1...86400") }
        if let problem = limits.problem() { throw fail("limits.\(problem.field)", problem.text) }
        if let problem = cluster?.problem() { throw fail(problem.field, problem.text) }
    }

    /// Whether the Python SDK would take `secret` for a file name: `.` then one or more
    /// of `[A-Za-z0-9_]` at the end.
    static func looksLikeKeyFile(_ secret: String) -> Bool {
        guard let dot = secret.lastIndex(of: ".") else { return false }
        let tail = secret[secret.index(after: dot)...]
        return !tail.isEmpty && tail.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }
}

/// Why a configuration was refused: where (`source`: a file path or "environment"),
/// which field, and what is wrong.
public struct RouterConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file path, or "environment".
    public var source: String
    /// The field, e.g. `projects[0].apiSecret`.
    public var field: String
    /// What is wrong, in a sentence.
    public var problem: String

    /// An error with every field given.
    public init(source: String, field: String, problem: String) {
        self.source = source
        self.field = field
        self.problem = problem
    }

    /// `"<source>: <field>: <problem>"`.
    public var description: String { "\(source): \(field): \(problem)" }
}
