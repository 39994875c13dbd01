import CLibWebSockets
import Foundation
import Glibc

/// An HTTP/1.1 and WebSocket server (optionally HTTPS/WSS) on libwebsockets, with one
/// context and one service thread. Every request, upgrade and message is handed to the
/// `WebServerHandler` on that thread, one at a time.
///
/// HTTP: `Content-Length` request bodies up to 1 MiB (bigger: 413; chunked: 411);
/// responses carry exactly the given Content-Type and a Content-Length; keep-alive.
/// Framing it cannot read safely (both Content-Length and Transfer-Encoding, a repeated,
/// signed or non-numeric length, a coding other than chunked) gets 400 and a close.
/// WebSocket: upgrades the handler accepts; text messages up to 256 KiB (bigger: close
/// 1009); per-connection send queue of at most 4096 messages / 16 MiB (more: close 1008).
/// Exposure: unauthenticated WebSockets under a deadline and a cap, connections that land
/// in the descriptor reserve closed on accept, a pause after a failed accept (EMFILE)
/// instead of a spin (see `WebServerConfiguration`).
///
/// Cost: one thread and one lws context; per connection a few hundred bytes plus queued
/// messages. Stop it with `stop()` (also done on deinit); the server holds its handler
/// until then, so a handler that owns its server must call `stop()`.
public final class WebServer: Sendable {
    private let core: ServerCore
    private let loop: LWSServiceLoop
    /// The port the server listens on (the kernel's choice when the configuration said 0).
    public let port: Int

    /// Starts listening; returns once the socket is bound and the service thread runs.
    /// Throws when the address cannot be bound or a TLS file cannot be read or used.
    /// Cost: one thread, one lws context (TLS: OpenSSL context with the certificate).
    public init(configuration: WebServerConfiguration, handler: any WebServerHandler) throws(WebError) {
        LWSLogging.install()
        let tls = try Self.checkTLSFiles(configuration)
        let core = ServerCore(handler: handler, limits: ExposureLimits(configuration))
        var info = lws_context_creation_info()
        info.port = Int32(configuration.port)
        let host = configuration.host
        if host.contains(":") {
            info.iface = core.strings.keep(host.trimmingCharacters(in: ["[", "]"]))
        } else {
            // An IPv4 listener: keep lws off dual-stack sockets so peers read 127.0.0.1,
            // not ::ffff:127.0.0.1.
            info.options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6)
            if !(host.isEmpty || host == "0.0.0.0") { info.iface = core.strings.keep(host) }
        }
        info.protocols = UnsafePointer(core.protocols)
        info.vhost_name = core.strings.keep("default")
        info.alpn = core.strings.keep("http/1.1")
        info.user = Unmanaged.passUnretained(core).toOpaque()
        info.options |= UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        info.max_http_header_data = 8192
        if let tls {
            info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
            info.ssl_cert_filepath = core.strings.keep(tls.certificate)
            info.ssl_private_key_filepath = core.strings.keep(tls.key)
        }
        guard let context = lws_create_context(&info) else {
            throw WebError("cannot start the web server on \(host):\(configuration.port)"
                + (tls != nil ? " (address in use, or the TLS certificate/key is invalid)" : " (address in use?)"))
        }
        let loop = LWSServiceLoop(context: context, backsOffAcceptFailures: true)
        core.wakeList = PeerWakeList(loop: loop)
        port = Int(lws_get_vhost_listen_port(lws_get_vhost_by_name(context, "default")))
        do {
            try loop.start(name: "otnet-server", shouldStop: { core.shouldStop() }, afterDestroy: { core.afterDestroy() })
        } catch {
            lws_context_destroy(context)
            throw error
        }
        self.core = core
        self.loop = loop
    }

    deinit { stop() }

    /// What the server's limits have refused so far (framing, unauthenticated WebSockets,
    /// descriptor reserve, accept failures). Any thread; a few atomic loads.
    public var statistics: WebServerStatistics { core.counters.snapshot }

    /// Closes every WebSocket (close code 1001; `webSocketClosed` is called for each, on
    /// the service thread), waits up to 2 s for the close handshakes, then destroys the
    /// context and joins the thread. Idempotent. Called from a handler callback it only
    /// asks (the thread cannot join itself).
    public func stop() {
        core.stopRequested.store(true, ordering: .releasing)
        loop.wake()
        if loop.isServiceThread {
            loop.join()  // detaches: the thread finishes on its own
            return
        }
        if !loop.waitFinished(seconds: 2) { loop.requestExit() }
        loop.join()
    }

    private static func checkTLSFiles(_ configuration: WebServerConfiguration) throws(WebError) -> (certificate: String, key: String)? {
        switch (configuration.tlsCertificatePath, configuration.tlsPrivateKeyPath) {
        case (nil, nil):
            return nil
        case let (certificate?, key?):
            for (what, path) in [("certificate", certificate), ("private key", key)] {
                guard let file = fopen(path, "r") else { throw .system("cannot read TLS \(what) \(path)", errno) }
                fclose(file)
            }
            return (certificate, key)
        default:
            throw WebError("TLS needs both tlsCertificatePath and tlsPrivateKeyPath")
        }
    }
}
