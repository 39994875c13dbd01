import Foundation
import OTNet

/// A WebServerHandler for tests: HTTP requests come back as JSON describing them
/// (method, path, query pairs, headers, body text); `/missing` answers 404; `/empty`
/// answers 204; `/file?path=P` answers the file P, streamed. WebSockets are accepted on paths starting with `/ws` and echo every text
/// message (or run `onMessage` instead when set); it records opens, messages and closes.
final class EchoHandler: WebServerHandler, @unchecked Sendable {
    struct Record {
        var opened: [UInt64] = []
        var openedPaths: [String] = []
        var received: [String] = []
        var closed: [UInt64] = []
        var peers: [any WebSocketPeer] = []
    }

    private let lock = NSLock()
    private var record = Record()
    var echo = true

    func snapshot() -> Record {
        lock.lock()
        defer { lock.unlock() }
        return record
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        switch request.path {
        case "/missing": return .json(404, #"{"code":404}"#)
        case "/empty": return .noContent
        case "/big": return HTTPResponse(status: 200, contentType: "application/octet-stream", body: (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        case "/file":  // the file named by `?path=`, streamed (`HTTPResponse.bodyFile`)
            let path = request.query.first { $0.name == "path" }?.value ?? ""
            return .file(200, path: path, contentType: "application/octet-stream", headers: ["X-Streamed": "yes"])
        case "/plain": return HTTPResponse(status: 201, contentType: "text/plain; version=0.0.4", headers: ["X-Extra": "yes"], body: Array("ok".utf8))
        default: break
        }
        let object: [String: Any] = [
            "method": request.method,
            "path": request.path,
            "query": request.query.map { [$0.name, $0.value] },
            "headers": request.headers,
            "body": String(decoding: request.body, as: UTF8.self),
            "bodyCount": request.body.count,
            "remote": request.remoteAddress,
        ]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes, .sortedKeys])
        return HTTPResponse(status: 200, contentType: "application/json", body: Array(data))
    }

    func shouldAcceptWebSocket(path: String, query: [(name: String, value: String)]) -> Bool {
        path.hasPrefix("/ws")
    }

    func webSocketOpened(_ peer: any WebSocketPeer, path: String, query: [(name: String, value: String)]) {
        lock.lock()
        record.opened.append(peer.id)
        record.openedPaths.append(path)
        record.peers.append(peer)
        lock.unlock()
    }

    func webSocketReceived(_ peer: any WebSocketPeer, text: String) {
        lock.lock()
        record.received.append(text)
        let echo = self.echo
        lock.unlock()
        if echo { peer.send(text) }
    }

    func webSocketClosed(_ peer: any WebSocketPeer) {
        lock.lock()
        record.closed.append(peer.id)
        lock.unlock()
    }
}

/// Polls `condition` every 5 ms until it holds or `seconds` pass; returns its last value.
func eventually(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

/// Decodes a JSON object body.
func jsonObject(_ body: [UInt8]) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
}
