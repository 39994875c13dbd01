import CLibWebSockets
import Foundation

/// A WebSocket client (ws:// or wss://) with its own libwebsockets context and service
/// thread. It connects asynchronously and reports through three callbacks, all on its
/// service thread: `onOpen` once connected, `onText` for each whole text message
/// (fragments joined), and `onClose` exactly once — nil when either side closed cleanly
/// (a close frame, or `close()`), a readable reason when it could not connect or the
/// connection broke. `send` may be called from any thread, also before the connection
/// opens (messages wait in the queue).
///
/// Cost: one thread and one lws context per client (a TLS context too for wss://);
/// `close()` (or deinit) joins the thread, after which no callback runs.
public final class WebSocketClient: WebSocketPeer {
    /// A number unique among this process's WebSocket connections.
    public let id: UInt64
    /// The server's address as connected to (`127.0.0.1:4000`).
    public let remoteAddress: String
    private let core: ClientCore
    private let loop: LWSServiceLoop

    /// Starts connecting to `url` (`ws://host:port/path?query` or `wss://...`). A host
    /// name is resolved here, with blocking `getaddrinfo` (lws on this system has no
    /// asynchronous DNS). `allowSelfSignedCertificates` accepts any server certificate
    /// and skips the host name check (for tests and private deployments).
    /// Throws for a malformed URL, an unresolvable host or when lws cannot start.
    public init(
        url: String, allowSelfSignedCertificates: Bool = false,
        onOpen: @escaping @Sendable () -> Void,
        onText: @escaping @Sendable (String) -> Void,
        onClose: @escaping @Sendable (_ failure: String?) -> Void
    ) throws(WebError) {
        guard let target = WebURL(url, schemes: ["ws", "wss"]) else { throw WebError("unsupported WebSocket URL \(url)") }
        let resolved = try SocketAddressText.resolve(target.host, port: target.port)[0]
        let address = SocketAddressText.format(resolved, withPort: false)
        LWSLogging.install()
        let core = ClientCore(url: url, target: target, address: address, allowSelfSigned: allowSelfSignedCertificates,
                              onOpen: onOpen, onText: onText, onClose: onClose)
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(core.protocols)
        info.user = Unmanaged.passUnretained(core).toOpaque()
        info.options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        if target.isSecure { info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) }
        info.connect_timeout_secs = 10
        info.timeout_secs = 10
        guard let context = lws_create_context(&info) else { throw WebError("cannot create a WebSocket client context for \(url)") }
        let loop = LWSServiceLoop(context: context)
        core.loop = loop
        do {
            try loop.start(name: "otnet-ws-client", shouldStop: { core.shouldStop() }, afterDestroy: { core.afterDestroy() })
        } catch {
            lws_context_destroy(context)
            throw error
        }
        id = webSocketIDs.add(1, ordering: .relaxed).oldValue
        remoteAddress = SocketAddressText.format(resolved, withPort: true)
        self.core = core
        self.loop = loop
        loop.wake()  // the first wake-up issues the connect, on the service thread
    }

    deinit { close() }

    /// Queues one text message (sent once the connection is open, in order). Returns false
    /// once the client is closing or closed, or when the queue passed 4096 messages /
    /// 16 MiB (the connection is then closed with 1008). Cost: one copy of the text and a
    /// wake-up of the service thread.
    @discardableResult public func send(_ text: String) -> Bool {
        let (result, wake) = core.outgoing.withLock { queue in
            let result = queue.append(text)
            let wake = result != .refused && !queue.scheduled
            if wake { queue.scheduled = true }
            return (result, wake)
        }
        if wake { loop.wake() }
        return result == .queued
    }

    /// Messages queued and not yet written (a relay's backpressure signal). Cost: the lock.
    public var queuedMessages: Int { core.outgoing.withLock { $0.count } }

    /// Sends a close frame with `code` and `reason` after the queued messages, waits up to
    /// 1 s for the close handshake, then tears the connection down and joins the service
    /// thread. `onClose(nil)` has run when this returns (unless it had already run).
    /// Idempotent. Called from one of this client's own callbacks it only asks.
    public func close(code: UInt16, reason: String) {
        core.closedByUser.withLock { $0 = true }
        core.outgoing.withLock { queue in
            if queue.closeRequest == nil && !queue.closed { queue.closeRequest = (code, reason) }
        }
        loop.wake()
        if loop.isServiceThread {
            loop.join()  // detaches: the thread finishes on its own
            return
        }
        if !loop.waitFinished(seconds: 1) { loop.requestExit() }
        loop.join()
    }

    /// `close(code: 1000, reason: "")`.
    public func close() { close(code: 1000, reason: "") }
}
