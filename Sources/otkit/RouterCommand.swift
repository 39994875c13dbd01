import Foundation
import Glibc
import OTRouter

/// `otkit router`: runs the router until SIGINT/SIGTERM. API secrets come from the config
/// file or the environment only, never from flags (they would show in `ps`).
enum RouterCommand {
    static let help = """
        usage: otkit router [--config FILE] [--host H] [--port P] [--media-host IP] [--tls-cert F --tls-key F]

        Runs the OTKit router: the OpenTok-shaped REST API, WebSocket signaling and the SFU.
        Projects (API key + secret) come from the config file's "projects" or from the
        environment: OTKIT_API_KEY + OTKIT_API_SECRET, or OTKIT_PROJECTS="key:secret,key2:secret2".
        Flags override the file. Prints the base URL (the api_url for server SDKs) and the
        configured API keys; stops cleanly on SIGINT or SIGTERM. Raises its open-file soft
        limit to the hard limit. Listening on a non-loopback address without TLS prints a
        warning: tokens, resume secrets, REST credentials, signaling and media keys would
        cross the network in clear text.

          --config FILE     JSON: {"host","port","tls":{"certificate","privateKey"},"mediaHost",
                            "projects":[{"apiKey","apiSecret"}],"reconnectGraceSeconds",
                            "silenceTimeoutSeconds","maxConnectionsPerSession","logLevel",
                            "unauthenticatedTimeoutSeconds","maxUnauthenticatedSockets",
                            "maxProjectJWTLifetimeSeconds"}
          --host H          listening address (default 127.0.0.1)
          --port P          listening port (default 0: the kernel picks)
          --media-host IP   the IP clients send media to (default 127.0.0.1)
          --tls-cert F      PEM certificate (serve HTTPS/WSS); needs --tls-key
          --tls-key F       PEM private key
        """

    static func run(_ words: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(words, valued: ["config", "host", "port", "media-host", "tls-cert", "tls-key"], flags: ["help"])
        if args.flags.contains("help") {
            print(help)
            return 0
        }
        var configuration: RouterConfiguration
        do {
            configuration = try RouterConfiguration.load(file: args.options["config"])
        } catch {
            writeError("otkit router: \(error)\n")
            return 2
        }
        if let host = args.options["host"] { configuration.host = host }
        if args.options["port"] != nil { configuration.port = try args.int("port", default: 0, range: 0...65535) }
        if let media = args.options["media-host"] { configuration.mediaHost = media }
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
        say("API keys: \(configuration.projects.map(\.apiKey).joined(separator: ", "))\n")
        say("descriptor limit: \(descriptors.after)\(descriptors.after > descriptors.before ? " (raised from \(descriptors.before))" : "")\n")
        var received: Int32 = 0
        sigwait(&signals, &received)
        say("otkit router: \(received == SIGINT ? "SIGINT" : "SIGTERM"), stopping\n")
        router.stop()
        return 0
    }

    /// Writes to standard output unbuffered (a supervisor reading a pipe sees it at once).
    private static func say(_ text: String) { writeAll(STDOUT_FILENO, text) }
}
