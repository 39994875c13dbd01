import CLibWebSockets
import Foundation

/// The lws protocol callback of every `WebSocketClient`: finds the client from the
/// context's user pointer (each client has its own context).
func webSocketClientCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else { return 0 }
    return Unmanaged<ClientCore>.fromOpaque(owner).takeUnretainedValue().callback(wsi, reason, input, length)
}

/// The service-thread side of a `WebSocketClient`: issues the connect, writes queued
/// messages one per writable callback, joins fragments, and reports open/text/close.
/// The outgoing queue and `closedByUser` are shared with other threads (under locks);
/// everything else belongs to the service thread.
final class ClientCore: @unchecked Sendable {
    /// Incoming messages above this close the connection with 1009.
    static let maximumMessageBytes = 16 << 20

    let url: String
    let target: WebURL
    let address: String
    let allowSelfSigned: Bool
    // Service thread only; dropped once the connection is over, so closures that capture
    // the client do not keep it alive.
    private var onOpen: (@Sendable () -> Void)?
    private var onText: (@Sendable (String) -> Void)?
    private var onClose: (@Sendable (String?) -> Void)?
    let strings = CStringStore()
    let protocols: UnsafeMutablePointer<lws_protocols>
    let outgoing = Locked(OutgoingQueue())
    let closedByUser = Locked(false)
    /// Set once, before the service thread starts.
    var loop: LWSServiceLoop?

    private var connectIssued = false
    private var established = false
    private var wsi: OpaquePointer?
    private var ended = false
    private var closeFrameSeen = false
    /// Why this side closed on its own (queue overflow, oversized message), if it did.
    private var localCloseFailure: String?
    private var reported = false
    private var incoming: [UInt8] = []
    private let scratch = ScratchBuffer(capacity: 16 << 10)

    init(url: String, target: WebURL, address: String, allowSelfSigned: Bool,
         onOpen: @escaping @Sendable () -> Void, onText: @escaping @Sendable (String) -> Void,
         onClose: @escaping @Sendable (String?) -> Void) {
        self.url = url
        self.target = target
        self.address = address
        self.allowSelfSigned = allowSelfSigned
        self.onOpen = onOpen
        self.onText = onText
        self.onClose = onClose
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = strings.keep("otnet-client")
        protocols[0].callback = webSocketClientCallback
        protocols[0].rx_buffer_size = 16 << 10
    }

    deinit {
        protocols.deinitialize(count: 2)
        protocols.deallocate()
    }

    /// The loop runs until the one connection has ended (or never started).
    func shouldStop() -> Bool { ended }

    /// After the context is gone: make sure onClose has been called once.
    func afterDestroy() {
        report(userClosed ? nil : "connection to \(url) ended")
        outgoing.withLock { $0.closed = true }
        onOpen = nil
        onText = nil
        onClose = nil
    }

    private var userClosed: Bool { closedByUser.withLock { $0 } }

    private func report(_ failure: String?) {
        guard !reported else { return }
        reported = true
        outgoing.withLock { $0.closed = true }
        onClose?(failure)
    }

    func callback(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            wokenUp()
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            self.wsi = wsi
            established = true
            onOpen?()
            if outgoing.withLock({ $0.hasWork }) { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_CLIENT_RECEIVE:
            return received(wsi, input, length)
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return writeOne(wsi)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            closeFrameSeen = true  // lws answers it; CLIENT_CLOSED follows
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let detail = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "unknown error"
            report(userClosed ? nil : "cannot connect to \(url): \(detail)")
            self.wsi = nil
            ended = true
        case LWS_CALLBACK_CLIENT_CLOSED, LWS_CALLBACK_CLOSED:
            report(userClosed ? nil : localCloseFailure ?? (closeFrameSeen ? nil : "connection to \(url) lost"))
            self.wsi = nil
            ended = true
        case LWS_CALLBACK_WSI_DESTROY:
            if self.wsi == wsi { self.wsi = nil }
            if connectIssued { ended = true }
        default:
            break
        }
        return 0
    }

    private func wokenUp() {
        // Clear the flag first, on every wake-up: a send that finds it set does not wake
        // the thread again, so leaving it set would strand later messages.
        let work = outgoing.withLock { queue in
            queue.scheduled = false
            return queue.hasWork
        }
        if !connectIssued {
            connectIssued = true
            if userClosed {
                ended = true
            } else {
                connect()
            }
            return
        }
        if established, let wsi {
            if work { lws_callback_on_writable(wsi) }
        } else if userClosed {
            ended = true  // closed before the handshake finished: abandon the attempt
        }
    }

    private func connect() {
        var info = lws_client_connect_info()
        info.context = loop?.context
        info.port = Int32(target.port)
        // lws copies these strings during the call.
        let address = strdup(self.address), path = strdup(target.target), host = strdup(target.hostHeader)
        let name = strdup("otnet-client")
        defer { free(address); free(path); free(host); free(name) }
        info.address = UnsafePointer(address)
        info.path = UnsafePointer(path)
        info.host = UnsafePointer(host)
        info.origin = UnsafePointer(host)
        info.local_protocol_name = UnsafePointer(name)
        if target.isSecure {
            var flags = LCCSCF_USE_SSL.rawValue
            if allowSelfSigned { flags |= LCCSCF_ALLOW_SELFSIGNED.rawValue | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue }
            info.ssl_connection = Int32(flags)
        }
        if lws_client_connect_via_info(&info) == nil {
            report(userClosed ? nil : "cannot connect to \(url)")
            ended = true
        }
    }

    private func received(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch IncomingFragments.add(wsi, input, length, to: &incoming, limit: Self.maximumMessageBytes) {
        case .tooLarge:
            localCloseFailure = "closed: a message from \(url) was larger than 16 MiB"
            scratch.setCloseFrame(wsi, code: 1009, reason: "message larger than 16 MiB")
            return -1
        case .incomplete:
            return 0
        case .complete(let text):
            if let text, !reported { onText?(text) }
            return 0
        }
    }

    private func writeOne(_ wsi: OpaquePointer) -> Int32 {
        outgoing.writeNext(to: wsi, scratch: scratch) { code in
            if code == 1008 && !userClosed { localCloseFailure = "closed: more than 4096 messages / 16 MiB waiting to be sent" }
        }
    }
}
