import Foundation
import Glibc

/// Janus's HTTP API as `otbench sfu` uses it: one blocking HTTP/1.1 request per call on a
/// fresh loopback TCP connection (`Connection: close`), JSON bodies through Foundation,
/// and the VideoRoom steps — create a session, attach the plugin, join as publisher with
/// an offer (the answer arrives as an event on the session's long poll), join as
/// subscriber (Janus's offer arrives as an event) and `start` with our answer. Errors from
/// Janus (`"janus": "error"`, a plugin `error` field) are thrown with its message.
/// Not on any measured path: each call costs a TCP connect and a few syscalls.
struct JanusAPI {
    /// The HTTP port on 127.0.0.1.
    let port: Int

    /// A JSON object.
    typealias Object = [String: Any]

    /// POSTs `body` to `path` and returns the JSON object Janus answered.
    func post(_ path: String, _ body: Object) throws -> Object {
        var body = body
        if body["transaction"] == nil { body["transaction"] = String(UInt64.random(in: 1...UInt64.max), radix: 36) }
        let data = try JSONSerialization.data(withJSONObject: body)
        return try exchange("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(data.count)\r\nConnection: close\r\n\r\n", body: data)
    }

    /// GETs `path` (a long poll returns after an event or Janus's 30 s timeout).
    func get(_ path: String) throws -> Object {
        try exchange("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", body: Data())
    }

    /// Creates a session; returns its id.
    func createSession() throws -> UInt64 {
        try id(of: try post("/janus", ["janus": "create"]))
    }

    /// Attaches the VideoRoom plugin in `session`; returns the handle id.
    func attachVideoRoom(session: UInt64) throws -> UInt64 {
        try id(of: try post("/janus/\(session)", ["janus": "attach", "plugin": "janus.plugin.videoroom"]))
    }

    /// Sends a plugin message (optionally with a JSEP) and waits for the handle's event
    /// that carries a JSEP; returns the event's plugin data and the JSEP SDP.
    func message(session: UInt64, handle: UInt64, body: Object, jsep: Object?) throws -> (data: Object, sdp: String?) {
        var request: Object = ["janus": "message", "body": body]
        if let jsep { request["jsep"] = jsep }
        let reply = try post("/janus/\(session)/\(handle)", request)
        try check(reply)
        if let data = (reply["plugindata"] as? Object)?["data"] as? Object {  // a synchronous answer
            try checkPlugin(data)
            return (data, nil)
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let event = try get("/janus/\(session)?maxev=1")
            guard (event["sender"] as? NSNumber)?.uint64Value == handle, event["janus"] as? String == "event" else {
                try check(event)
                continue
            }
            let data = ((event["plugindata"] as? Object)?["data"] as? Object) ?? [:]
            try checkPlugin(data)
            let sdp = (event["jsep"] as? Object)?["sdp"] as? String
            if jsep != nil || sdp != nil || data["started"] != nil { return (data, sdp) }
        }
        throw ScenarioError("Janus sent no event for handle \(handle) within 60 s")
    }

    private func id(of reply: Object) throws -> UInt64 {
        try check(reply)
        guard let number = (reply["data"] as? Object)?["id"] as? NSNumber else { throw ScenarioError("Janus answered without an id: \(reply)") }
        return number.uint64Value
    }

    private func check(_ reply: Object) throws {
        if reply["janus"] as? String == "error" {
            let error = reply["error"] as? Object
            throw ScenarioError("Janus error \(error?["code"] ?? "?"): \(error?["reason"] ?? "?")")
        }
    }

    private func checkPlugin(_ data: Object) throws {
        if let message = data["error"] { throw ScenarioError("VideoRoom error \(data["error_code"] ?? "?"): \(message)") }
    }

    /// One request on a new connection; the reply's JSON body.
    private func exchange(_ head: String, body: Data) throws -> Object {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ScenarioError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw ScenarioError("cannot connect to Janus on port \(port): \(String(cString: strerror(errno)))") }
        let request = Array(head.utf8) + [UInt8](body)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw ScenarioError("cannot send to Janus: \(String(cString: strerror(errno)))") }
            sent += count
        }
        var response = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            response += chunk[0..<count]
            guard response.count < 4 << 20 else { throw ScenarioError("Janus's answer exceeds 4 MiB") }
        }
        guard let split = findHeaderEnd(response) else { throw ScenarioError("Janus closed the connection without an HTTP answer") }
        let status = String(decoding: response[0..<min(split, 64)], as: UTF8.self)
        guard status.hasPrefix("HTTP/1.1 200") || status.hasPrefix("HTTP/1.0 200") else {
            throw ScenarioError("Janus answered \(status.prefix(while: { $0 != "\r" }))")
        }
        let head = String(decoding: response[0..<split], as: UTF8.self).lowercased()
        var body = Array(response[(split + 4)...])
        if head.contains("transfer-encoding: chunked") { body = try dechunk(body) }
        let json = try JSONSerialization.jsonObject(with: Data(body))
        guard let object = json as? Object else { throw ScenarioError("Janus's answer is not a JSON object") }
        return object
    }

    /// The body of a chunked HTTP/1.1 answer (RFC 9112 §7.1), sizes range-checked.
    private func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var body: [UInt8] = [], index = 0
        while index < bytes.count {
            guard let lineEnd = bytes[index...].firstIndex(of: 10) else { break }
            let line = String(decoding: bytes[index..<lineEnd], as: UTF8.self)
            let sizeText = line.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0, size <= bytes.count - lineEnd - 1 else {
                throw ScenarioError("Janus sent a malformed chunked answer")
            }
            if size == 0 { break }
            body += bytes[(lineEnd + 1)..<(lineEnd + 1 + size)]
            index = lineEnd + 1 + size + 2  // the chunk's CRLF
        }
        return body
    }

    private func findHeaderEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
