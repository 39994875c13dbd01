import CLibWebSockets
import Foundation
import Glibc
import Synchronization

/// Numbers the WebSocket connections of this process (server and client side).
let webSocketIDs = Atomic<UInt64>(1)

/// The lws protocol callback of every `WebServer`: finds the server from the context's
/// user pointer and hands the event to it.
func webServerCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let core = Unmanaged<ServerCore>.fromOpaque(owner).takeUnretainedValue()
    return core.callback(wsi, reason, user, input, length)
}

/// The service-thread side of a `WebServer`: turns lws callbacks into `HTTPRequest`s,
/// responses, and WebSocket peers, and calls the handler. Everything here runs on the
/// service thread except `schedule` (any thread) and the atomics.
final class ServerCore: @unchecked Sendable {
    /// Bodies above this are read and discarded, and answered with 413.
    static let maximumBodyBytes = 1 << 20
    /// WebSocket messages above this close the connection with 1009.
    static let maximumMessageBytes = 256 << 10
    /// Response bodies are written in pieces of at most this size, one per writable callback.
    static let responseChunkBytes = 64 << 10
    /// How long a closing WebSocket may take to get its close frame out before it is dropped.
    static let closeDeadlineSeconds: Int32 = 3

    /// Dropped after the context is destroyed, so a handler that owns the server does not
    /// keep both alive forever once the server has stopped.
    private var handler: (any WebServerHandler)?
    let strings = CStringStore()
    let protocols: UnsafeMutablePointer<lws_protocols>
    /// Set once, before the service thread starts.
    var wakeList: PeerWakeList?
    let stopRequested = Atomic<Bool>(false)
    private let scratch = ScratchBuffer()
    private var openPeers: [UInt64: ServerPeer] = [:]
    private var stopHandled = false
    /// The exposure limits (see `WebServerConfiguration`), and the soft descriptor limit
    /// read when the server started.
    let limits: ExposureLimits
    /// Service thread only: WebSockets open and not yet vouched for.
    private var unauthenticated = UnauthenticatedPeers()
    /// What the limits did, readable from any thread.
    let counters = WebServerCounters()

    init(handler: any WebServerHandler, limits: ExposureLimits) {
        self.handler = handler
        self.limits = limits
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = strings.keep("otnet")
        protocols[0].callback = webServerCallback
        protocols[0].per_session_data_size = 0  // state hangs off the wsi's opaque user data
        protocols[0].rx_buffer_size = 16 << 10
    }

    deinit {
        protocols.deinitialize(count: 2)
        protocols.deallocate()
    }

    /// The service loop ends once a stop was asked for and every WebSocket has closed.
    func shouldStop() -> Bool {
        stopRequested.load(ordering: .acquiring) && stopHandled && openPeers.isEmpty
    }

    /// After the context is gone: tell the handler about any peer lws did not report.
    func afterDestroy() {
        for peer in Array(openPeers.values) { reportClosed(peer) }
        _ = wakeList?.take()
        handler = nil
    }

    func callback(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            wokenUp()
            return 0
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            // A just-accepted socket; nonzero makes lws close it at once.
            return limits.admits(descriptor: Int32(truncatingIfNeeded: Int(bitPattern: input)), counters: counters) ? 0 : 1
        case LWS_CALLBACK_HTTP:
            return beginRequest(wsi, path: input.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) })
        case LWS_CALLBACK_HTTP_BODY:
            let connection = connection(wsi)
            if connection.awaitingBody, !connection.bodyTooLarge, let input {
                if connection.request.body.count + length > Self.maximumBodyBytes {
                    connection.bodyTooLarge = true
                    connection.request.body = []
                } else {
                    connection.request.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
                }
            }
            return 0
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            let connection = connection(wsi)
            guard connection.awaitingBody else { return 0 }
            connection.awaitingBody = false
            return respond(wsi, connection)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return writeResponse(wsi, connection(wsi))
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return filterUpgrade(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            opened(wsi)
            return 0
        case LWS_CALLBACK_RECEIVE:
            return received(wsi, input, length)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            return writeMessage(wsi)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            return 0  // lws answers the close frame itself
        case LWS_CALLBACK_CLOSED:
            if let peer = existingConnection(wsi)?.peer {
                reportClosed(peer)
                peer.wsi = nil
            }
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            // Sent to protocols[0] for every wsi; the last point where the wsi is valid.
            if let raw = lws_get_opaque_user_data(wsi) {
                lws_set_opaque_user_data(wsi, nil)
                let connection = Unmanaged<ServerConnection>.fromOpaque(raw).takeRetainedValue()
                if let peer = connection.peer {
                    reportClosed(peer)
                    peer.wsi = nil
                }
            }
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    // MARK: connections

    private func existingConnection(_ wsi: OpaquePointer) -> ServerConnection? {
        lws_get_opaque_user_data(wsi).map { Unmanaged<ServerConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    private func connection(_ wsi: OpaquePointer) -> ServerConnection {
        if let existing = existingConnection(wsi) { return existing }
        let connection = ServerConnection()
        lws_set_opaque_user_data(wsi, Unmanaged.passRetained(connection).toOpaque())
        return connection
    }

    // MARK: wake-ups from other threads

    private func wokenUp() {
        if stopRequested.load(ordering: .acquiring) && !stopHandled {
            stopHandled = true
            for peer in openPeers.values { peer.close(code: 1001, reason: "server stopping") }
        }
        let peers = wakeList?.take() ?? []
        for peer in peers {
            let closing = peer.outgoing.withLock { queue in
                queue.scheduled = false
                return queue.closeRequest != nil
            }
            guard let wsi = peer.wsi else { continue }
            if peer.countedUnauthenticated && peer.authenticated.load(ordering: .acquiring) {
                unauthenticated.remove(peer)
                if !peer.closeDeadlineArmed { lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0) }
            }
            lws_callback_on_writable(wsi)
            if closing && !peer.closeDeadlineArmed {
                // A peer that stopped reading never becomes writable again, so its close
                // frame would wait forever: lws drops the connection if it is still open then.
                peer.closeDeadlineArmed = true
                lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, Self.closeDeadlineSeconds)
            }
        }
    }

    // MARK: HTTP

    private func beginRequest(_ wsi: OpaquePointer, path: String?) -> Int32 {
        let connection = connection(wsi)
        connection.resetRequest()
        let headers = RequestHeaders.all(wsi)
        connection.request = HTTPRequest(
            method: RequestHeaders.methodAndURI(wsi)?.method ?? "GET",
            path: RequestHeaders.foldPath(path ?? "/"),
            query: RequestHeaders.query(wsi),
            headers: headers,
            remoteAddress: RequestHeaders.peerAddress(wsi, withPort: false))
        let length: Int
        switch RequestFraming.judge(contentLength: headers["content-length"], transferEncoding: headers["transfer-encoding"],
                                    maximumBody: Self.maximumBodyBytes) {
        case .none:
            return respond(wsi, connection)
        case .refuse(let status, let message):
            counters.framingRefused.add(1, ordering: .relaxed)
            return startResponse(wsi, connection, .json(status, #"{"code":\#(status),"message":"\#(message)"}"#), closeAfter: true)
        case .body(let count), .tooLarge(let count):
            length = count  // too large: read and discarded, then 413 and close
        }
        connection.expectedBodyLength = length
        connection.awaitingBody = true
        connection.bodyTooLarge = length > Self.maximumBodyBytes
        if !connection.bodyTooLarge { connection.request.body.reserveCapacity(length) }
        return 0  // the body arrives in HTTP_BODY callbacks
    }

    private func respond(_ wsi: OpaquePointer, _ connection: ServerConnection) -> Int32 {
        let response = connection.bodyTooLarge
            ? HTTPResponse.json(413, #"{"code":413,"message":"request body larger than 1 MiB"}"#)
            : (handler?.handle(connection.request) ?? .json(503, #"{"code":503,"message":"stopping"}"#))
        // A client that sent more than the limit is not trusted with the connection.
        return startResponse(wsi, connection, response, closeAfter: connection.bodyTooLarge)
    }

    /// Sends the status line and headers now; the body follows in HTTP_WRITEABLE.
    private func startResponse(_ wsi: OpaquePointer, _ connection: ServerConnection, _ response: HTTPResponse, closeAfter: Bool) -> Int32 {
        var size = 512 + (response.contentType?.utf8.count ?? 0)
        for (name, value) in response.headers { size += name.utf8.count + value.utf8.count + 8 }
        let start = scratch.payload(count: size)
        let end = start + size
        var cursor: UnsafeMutablePointer<UInt8>? = start
        guard lws_add_http_header_status(wsi, UInt32(response.status), &cursor, end) == 0 else { return -1 }
        if let contentType = response.contentType {
            guard addHeader(wsi, token: WSI_TOKEN_HTTP_CONTENT_TYPE, contentType, &cursor, end) else { return -1 }
        }
        for (name, value) in response.headers {
            let ok = (name.lowercased() + ":").withCString { raw in
                Self.withBytes(value) { bytes, count in
                    lws_add_http_header_by_name(wsi, UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), bytes, Int32(count), &cursor, end) == 0
                }
            }
            guard ok else { return -1 }
        }
        // RFC 9110 §8.6: no Content-Length on 204 and 304 (their bodies are empty anyway).
        if response.status != 204 && response.status != 304 {
            guard lws_add_http_header_content_length(wsi, UInt64(response.body.count), &cursor, end) == 0 else { return -1 }
        }
        if closeAfter {
            guard addHeader(wsi, token: WSI_TOKEN_CONNECTION, "close", &cursor, end) else { return -1 }
        }
        guard lws_finalize_write_http_header(wsi, start, &cursor, end) == 0 else { return -1 }
        connection.responding = true
        let bodiless = response.status == 204 || response.status == 304 || connection.request.method == "HEAD"
        connection.responseBody = bodiless ? [] : response.body
        connection.responseOffset = 0
        connection.closeAfterResponse = closeAfter
        lws_callback_on_writable(wsi)
        return 0
    }

    private func addHeader(_ wsi: OpaquePointer, token: lws_token_indexes, _ value: String,
                           _ cursor: inout UnsafeMutablePointer<UInt8>?, _ end: UnsafeMutablePointer<UInt8>) -> Bool {
        Self.withBytes(value) { bytes, count in
            lws_add_http_header_by_token(wsi, token, bytes, Int32(count), &cursor, end) == 0
        }
    }

    private static func withBytes<R>(_ text: String, _ body: (UnsafePointer<UInt8>?, Int) -> R) -> R {
        var text = text
        return text.withUTF8 { body($0.baseAddress, $0.count) }
    }

    /// Writes one piece of the response body; after the last, ends the transaction (the
    /// connection then waits for the next keep-alive request, or closes).
    private func writeResponse(_ wsi: OpaquePointer, _ connection: ServerConnection) -> Int32 {
        guard connection.responding else { return 0 }
        let total = connection.responseBody.count
        if connection.responseOffset < total {
            let count = min(Self.responseChunkBytes, total - connection.responseOffset)
            let target = scratch.payload(count: count)
            connection.responseBody.withUnsafeBufferPointer { body in
                target.update(from: body.baseAddress! + connection.responseOffset, count: count)
            }
            connection.responseOffset += count
            let last = connection.responseOffset == total
            guard lws_write(wsi, target, count, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) >= 0 else { return -1 }
            if !last {
                lws_callback_on_writable(wsi)
                return 0
            }
        }
        let close = connection.closeAfterResponse
        connection.resetRequest()
        if close { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    // MARK: WebSocket

    private func filterUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let connection = connection(wsi)
        let path = RequestHeaders.foldPath(RequestHeaders.copy(wsi, WSI_TOKEN_GET_URI) ?? "/")
        let query = RequestHeaders.query(wsi)
        guard !stopRequested.load(ordering: .acquiring), handler?.shouldAcceptWebSocket(path: path, query: query) == true else {
            return 1  // lws drops the connection without an HTTP status
        }
        // An upgrade has no body: one that announces one could slip those bytes in as frames.
        let length = RequestHeaders.copy(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH)?.trimmingCharacters(in: .whitespaces)
        if RequestHeaders.copy(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) != nil || (length != nil && length != "0") {
            counters.framingRefused.add(1, ordering: .relaxed)
            return 1
        }
        if let cap = limits.maxUnauthenticated, unauthenticated.count >= cap {
            // Let the oldest go rather than refuse the newcomer: a client that connects
            // promptly always gets in, however many idle sockets an attacker keeps opening.
            guard let oldest = unauthenticated.oldest(), let oldestWsi = oldest.wsi else { return 1 }
            unauthenticated.remove(oldest)
            counters.unauthenticatedEvicted.add(1, ordering: .relaxed)
            lws_set_timeout(oldestWsi, ExposureLimits.unauthenticatedTimeoutReason, LWS_TO_KILL_ASYNC)
        }
        connection.webSocketPath = path
        connection.webSocketQuery = query
        return 0
    }

    private func opened(_ wsi: OpaquePointer) {
        let connection = connection(wsi)
        let peer = ServerPeer(
            id: webSocketIDs.add(1, ordering: .relaxed).oldValue,
            remoteAddress: RequestHeaders.peerAddress(wsi, withPort: true),
            path: connection.webSocketPath, wakeList: wakeList!, wsi: wsi)
        connection.peer = peer
        openPeers[peer.id] = peer
        if limits.maxUnauthenticated != nil || limits.unauthenticatedDeadlineSeconds != nil {
            unauthenticated.add(peer)
            if let seconds = limits.unauthenticatedDeadlineSeconds {
                // lws drops the connection when this fires, whatever it received meanwhile.
                lws_set_timeout(wsi, ExposureLimits.unauthenticatedTimeoutReason, seconds)
            }
        }
        handler?.webSocketOpened(peer, path: connection.webSocketPath, query: connection.webSocketQuery)
        if stopHandled { peer.close(code: 1001, reason: "server stopping") }
    }

    private func received(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let connection = existingConnection(wsi), let peer = connection.peer else { return 0 }
        switch IncomingFragments.add(wsi, input, length, to: &connection.incoming, limit: Self.maximumMessageBytes) {
        case .tooLarge:
            scratch.setCloseFrame(wsi, code: 1009, reason: "message larger than 256 KiB")
            return -1
        case .incomplete:
            return 0
        case .complete(let text):
            if let text, !peer.closeReported { handler?.webSocketReceived(peer, text: text) }
            return 0
        }
    }

    /// Writes exactly one queued message (or the close frame once the queue is empty).
    private func writeMessage(_ wsi: OpaquePointer) -> Int32 {
        guard let peer = existingConnection(wsi)?.peer else { return 0 }
        return peer.outgoing.writeNext(to: wsi, scratch: scratch)
    }

    private func reportClosed(_ peer: ServerPeer) {
        guard !peer.closeReported else { return }
        peer.closeReported = true
        if unauthenticated.remove(peer) {
            // Still unauthenticated at close: the deadline (or the client) ended it.
            counters.unauthenticatedClosed.add(1, ordering: .relaxed)
        }
        peer.outgoing.withLock { $0.closed = true }
        openPeers[peer.id] = nil
        handler?.webSocketClosed(peer)
    }
}
