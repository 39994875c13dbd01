/// The HTTP side of the service thread: requests in order (pipelined ones one after the
/// other, each answered before the next is read), refusals with the connection closed,
/// and the hand-over to WebSocket on an accepted upgrade.
extension ServerCore {
    /// Answers every complete request buffered on `connection` while its output has room.
    func processHTTP(_ connection: ServerConnection) {
        while connection.isOpen && connection.phase == .http && !connection.closeAfterFlush {
            guard connection.pendingOutput < Self.outputHighWater, connection.fileBody == nil else {
                connection.readPaused = true
                break
            }
            guard let event = connection.http.next() else { break }
            connection.requestStarted = false
            switch event {
            case .failure(let status, let message, let kind):
                switch kind {
                case .framing: counters.framingRefused.add(1, ordering: .relaxed)
                case .malformed: counters.malformedRequests.add(1, ordering: .relaxed)
                case .bodyTooLarge: break
                }
                answer(connection, ResponseEncoding.error(status, message), method: "GET", close: true)
            case .request(let request):
                if request.isUpgrade {
                    upgrade(connection, request)
                } else {
                    handle(connection, request)
                }
            }
        }
        guard connection.isOpen && connection.phase == .http && !connection.closeAfterFlush else { return }
        // Deadlines: a request that has begun must finish; an idle connection is let go.
        if connection.http.isMidRequest {
            if !connection.requestStarted {
                connection.requestStarted = true
                connection.setDeadline(monotonicNanoseconds() + Self.requestNanoseconds)
            }
        } else {
            connection.setDeadline(monotonicNanoseconds() + Self.idleNanoseconds)
        }
    }

    private func handle(_ connection: ServerConnection, _ request: ParsedRequest) {
        let response = handler?.handle(HTTPRequest(
            method: request.method, path: request.path, query: request.query.map { ($0.name, $0.value) },
            headers: request.headers, body: request.body, remoteAddress: connection.remoteIP))
            ?? ResponseEncoding.error(503, "stopping")
        let close = !request.keepAlive || connection.inputEnded || stopHandled
        answer(connection, response, method: request.method, close: close,
               keepAliveHTTP10: request.version == "HTTP/1.0" && !close)
    }

    /// Queues `response`; with `close` the connection ends once it is written.
    /// A response with a `bodyFile` gets its head now and its body from `flush`, a chunk at a time.
    func answer(_ connection: ServerConnection, _ response: HTTPResponse, method: String, close: Bool,
                keepAliveHTTP10: Bool = false) {
        if let path = response.bodyFile {
            guard let file = FileBody(path: path) else {
                answer(connection, ResponseEncoding.error(404, "not found"), method: method, close: close, keepAliveHTTP10: keepAliveHTTP10)
                return
            }
            ResponseEncoding.append(response, method: method, close: close, keepAliveHTTP10: keepAliveHTTP10,
                                    contentLength: file.remaining, to: &connection.output)
            if method != "HEAD" && file.remaining > 0 { connection.fileBody = file }
        } else {
            ResponseEncoding.append(response, method: method, close: close, keepAliveHTTP10: keepAliveHTTP10, to: &connection.output)
        }
        if close { connection.closeAfterFlush = true }
    }

    private func upgrade(_ connection: ServerConnection, _ request: ParsedRequest) {
        let accept: String
        switch WebSocketHandshake.judge(method: request.method, version: request.version, headers: request.headers) {
        case .upgrade(let value):
            accept = value
        case .refuse(let status, let message, let headers):
            counters.malformedRequests.add(1, ordering: .relaxed)
            var response = ResponseEncoding.error(status, message)
            response.headers = headers
            answer(connection, response, method: "GET", close: true)
            return
        case .notUpgrade:
            answer(connection, ResponseEncoding.error(400, "bad upgrade"), method: "GET", close: true)
            return
        }
        let query = request.query.map { ($0.name, $0.value) }
        guard !stopRequested.load(ordering: .acquiring), handler?.shouldAcceptWebSocket(path: request.path, query: query) == true else {
            answer(connection, ResponseEncoding.error(404, "no WebSocket here"), method: "GET", close: true)
            return
        }
        if let cap = limits.maxUnauthenticated, unauthenticated.count >= cap {
            // Let the oldest go rather than refuse the newcomer: a client that connects
            // promptly always gets in, however many idle sockets an attacker keeps opening.
            guard let oldest = unauthenticated.oldest() else {
                answer(connection, ResponseEncoding.error(503, "too many unauthenticated WebSockets"), method: "GET", close: true)
                return
            }
            unauthenticated.remove(oldest)
            counters.unauthenticatedEvicted.add(1, ordering: .relaxed)
            if let evicted = oldest.connection { closeNow(evicted, code: 1008, reason: "too many unauthenticated connections") }
        }
        connection.output.append(contentsOf: Array(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n").utf8))
        connection.phase = .webSocket
        connection.frames = WebSocketFrameReader(maximumMessageBytes: maximumMessageBytes)
        let peer = ServerPeer(id: webSocketIDs.add(1, ordering: .relaxed).oldValue, remoteAddress: connection.remoteAddress,
                              path: request.path, wakeList: wakeList, connection: connection)
        connection.peer = peer
        openPeers[peer.id] = peer
        connection.setDeadline(nil)
        if limits.maxUnauthenticated != nil || limits.unauthenticatedDeadlineSeconds != nil {
            unauthenticated.add(peer)
            if let seconds = limits.unauthenticatedDeadlineSeconds {
                // Dropped then, whatever it sent meanwhile (pings included).
                connection.setDeadline(monotonicNanoseconds() + UInt64(seconds) * 1_000_000_000)
            }
        }
        handler?.webSocketOpened(peer, path: request.path, query: query)
        if stopHandled { peer.close(code: 1001, reason: "server stopping") }
        let early = connection.http.takeRemainder()
        if !early.isEmpty {
            connection.frames?.append(early)
            processFrames(connection)
        }
    }

    /// Sends a close frame if the socket takes it at once, then drops the connection.
    func closeNow(_ connection: ServerConnection, code: UInt16, reason: String) {
        if connection.phase == .webSocket && !connection.sentClose {
            WebSocketFrameWriter.appendClose(code: code, reason: reason, to: &connection.output)
            connection.sentClose = true
            flush(connection)
        }
        drop(connection)
    }
}
