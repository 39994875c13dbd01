import Foundation
import OTNet

/// A plain HTTP server on 127.0.0.1 (an ephemeral port) serving fixed pages to the
/// browser tests, as an app's own web server would: `GET /name` answers the page given
/// for `name`, anything else 404. 127.0.0.1 is a secure context for Chromium, so
/// getUserMedia and WebRTC work over plain HTTP. Cost: one OTNet `WebServer` thread.
public final class ChromiumPageServer: WebServerHandler, @unchecked Sendable {
    private let pages: [String: String]
    private let lock = NSLock()
    private var server: WebServer?

    /// Serves `pages` (path without the leading slash → HTML text) until ``stop()``.
    /// - Throws: when the port cannot be bound.
    public init(pages: [String: String]) throws {
        self.pages = pages
        let server = try WebServer(configuration: WebServerConfiguration(), handler: self)
        lock.withLock { self.server = server }
    }

    /// `http://127.0.0.1:<port>/<path>`.
    public func url(_ path: String) -> String {
        "http://127.0.0.1:\(lock.withLock { server?.port ?? 0 })/\(path)"
    }

    /// Closes the listening socket. Idempotent.
    public func stop() {
        let server = lock.withLock { () -> WebServer? in
            defer { self.server = nil }
            return self.server
        }
        server?.stop()
    }

    /// The page for the request's path, or 404.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let name = String(request.path.drop { $0 == "/" })
        guard request.method == "GET", let page = pages[name] else { return .text(404, "no such page\n") }
        return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", headers: ["Cache-Control": "no-store"],
                            body: Array(page.utf8))
    }

    /// No WebSockets here.
    public func shouldAcceptWebSocket(path: String, query: [(name: String, value: String)]) -> Bool { false }
    /// Never called (no WebSocket is accepted).
    public func webSocketOpened(_ peer: any WebSocketPeer, path: String, query: [(name: String, value: String)]) {}
    /// Never called.
    public func webSocketReceived(_ peer: any WebSocketPeer, text: String) {}
    /// Never called.
    public func webSocketClosed(_ peer: any WebSocketPeer) {}
}
