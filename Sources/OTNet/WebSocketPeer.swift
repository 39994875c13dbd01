/// One open WebSocket connection as the application sees it, on either end. `send` and
/// `close` may be called from any thread: messages are queued and written by the
/// connection's service thread in order, one per writable callback.
public protocol WebSocketPeer: AnyObject, Sendable {
    /// A number unique among this process's connections (for maps and logs).
    var id: UInt64 { get }
    /// The peer's address as text (`127.0.0.1:53422`), for logs.
    var remoteAddress: String { get }
    /// Queues one text message. Returns false when the connection is closed or its queue
    /// is over the slow-consumer limit (then the connection is closed). Cost: one copy of
    /// the text into the queue and a wake-up of the service thread.
    @discardableResult func send(_ text: String) -> Bool
    /// Closes the connection with a WebSocket close code and reason (after the messages
    /// already queued). Idempotent.
    func close(code: UInt16, reason: String)
    /// The application vouches for this peer (it sent a valid connect): the server's
    /// unauthenticated deadline and cap no longer apply to it. Any thread; idempotent.
    /// Cost: one atomic and, the first time, a wake-up of the service thread.
    func markAuthenticated()
}

extension WebSocketPeer {
    /// Nothing to lift on peers that have no unauthenticated limits (clients, test doubles).
    public func markAuthenticated() {}
}

extension WebServerHandler {
    /// Drops binary messages: OpenTok signaling is text only. Costs nothing.
    public func webSocketReceived(_ peer: any WebSocketPeer, binary: [UInt8]) {}
}

/// What a `WebServer` calls, on its service thread, one call at a time. Implementations
/// must return quickly (every connection on the server waits meanwhile) and reach the
/// connection only through `WebSocketPeer`.
public protocol WebServerHandler: AnyObject, Sendable {
    /// Answers a plain HTTP request.
    func handle(_ request: HTTPRequest) -> HTTPResponse
    /// Whether to accept a WebSocket upgrade on `path` (query string removed). Refused
    /// upgrades are answered with 404 or dropped.
    func shouldAcceptWebSocket(path: String, query: [(name: String, value: String)]) -> Bool
    /// A WebSocket on `path` has opened.
    func webSocketOpened(_ peer: any WebSocketPeer, path: String, query: [(name: String, value: String)])
    /// A whole text message arrived (fragments already joined).
    func webSocketReceived(_ peer: any WebSocketPeer, text: String)
    /// A whole binary message arrived (fragments already joined). The default drops it.
    func webSocketReceived(_ peer: any WebSocketPeer, binary: [UInt8])
    /// The connection closed (either side, or the network). Called exactly once per
    /// opened peer; `send` on it returns false from now on.
    func webSocketClosed(_ peer: any WebSocketPeer)
}
