import Foundation
import Glibc

/// An HTTP/1.1 and WebSocket server (optionally HTTPS/WSS) of OTNet's own: one epoll
/// service thread over non-blocking sockets, OpenSSL for TLS. Every request, upgrade and
/// message is handed to the `WebServerHandler` on that thread, one at a time.
///
/// HTTP (RFC 9112, strict): request heads up to 16 KiB and 100 fields (more: 431; a
/// request line over 8 KiB: 414), HTTP/1.0 and 1.1 (others: 505), `Content-Length` bodies
/// up to 1 MiB (bigger: read, discarded, 413; chunked: 411); ambiguous framing (both
/// Content-Length and Transfer-Encoding, a repeated, signed or non-numeric length, a coding
/// other than chunked) gets 400 and a close; keep-alive and pipelining (answered in
/// order); responses carry exactly the given Content-Type and a Content-Length.
/// WebSocket (RFC 6455): upgrades the handler accepts (no subprotocol, no extension);
/// every client frame must be masked, RSV bits, reserved opcodes and bad fragments or
/// control frames close with 1002, bad UTF-8 with 1007, messages over
/// `maximumMessageBytes` with 1009 (counted in `statistics`); pings are answered; per
/// connection send queue of at most 4096 messages / 16 MiB (more: close 1008).
/// Exposure: unauthenticated WebSockets under a deadline and a cap, connections that land
/// in the descriptor reserve closed on accept, a 50 ms pause of accepting after EMFILE
/// instead of a spin, deadlines for the TLS handshake and request heads (10 s), whole
/// requests (30 s), idle keep-alive (60 s) and close handshakes (3 s).
///
/// Cost: one thread, an epoll and an eventfd; per connection a few hundred bytes plus
/// buffered input (one request or frame) and queued output. Stop it with `stop()` (also
/// done on deinit); the server holds its handler until then, so a handler that owns its
/// server must call `stop()`.
public final class WebServer: Sendable {
    private let core: ServerCore
    private let thread: OSThread
    /// The port the server listens on (the kernel's choice when the configuration said 0).
    public let port: Int

    /// Starts listening; returns once the socket is bound and the service thread runs.
    /// Throws when the address cannot be bound or a TLS file cannot be read or used.
    /// Cost: one thread, the listening socket (TLS: an OpenSSL context with the certificate).
    public init(configuration: WebServerConfiguration, handler: any WebServerHandler) throws(WebError) {
        let tls = try Self.tlsContext(configuration)
        let (listener, port) = try ListeningSocket.open(host: configuration.host, port: configuration.port)
        let core: ServerCore
        do {
            core = try ServerCore(handler: handler, limits: ExposureLimits(configuration), listener: listener, tls: tls,
                                  maximumMessageBytes: max(125, configuration.maximumMessageBytes))
        } catch {
            close(listener)
            throw error
        }
        thread = try OSThread(name: "otnet-server") { core.run() }
        self.core = core
        self.port = port
    }

    deinit { stop() }

    /// What the server's limits have refused so far (framing, malformed requests, RFC 6455
    /// violations, unauthenticated WebSockets, descriptor reserve, accept failures). Any
    /// thread; a few atomic loads.
    public var statistics: WebServerStatistics { core.counters.snapshot }

    /// Closes every WebSocket (close code 1001; `webSocketClosed` is called for each, on
    /// the service thread), waits up to 2 s for the close handshakes, then closes every
    /// socket and joins the thread. Idempotent. Called from a handler callback it only
    /// asks (the thread cannot join itself).
    public func stop() {
        core.stopRequested.store(true, ordering: .releasing)
        core.waker.wake()
        if thread.isCurrent {
            thread.join()  // detaches: the thread finishes on its own
            return
        }
        if !core.waitFinished(seconds: 2) {
            core.exitRequested.store(true, ordering: .releasing)
            core.waker.wake()
        }
        thread.join()
    }

    private static func tlsContext(_ configuration: WebServerConfiguration) throws(WebError) -> TLSServerContext? {
        switch (configuration.tlsCertificatePath, configuration.tlsPrivateKeyPath) {
        case (nil, nil):
            return nil
        case let (certificate?, key?):
            for (what, path) in [("certificate", certificate), ("private key", key)] {
                guard let file = fopen(path, "r") else { throw .system("cannot read TLS \(what) \(path)", errno) }
                fclose(file)
            }
            return try TLSServerContext(certificate: certificate, key: key)
        default:
            throw WebError("TLS needs both tlsCertificatePath and tlsPrivateKeyPath")
        }
    }
}
