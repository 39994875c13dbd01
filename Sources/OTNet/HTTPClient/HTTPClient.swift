/// A blocking HTTP/1.1 client over a plain TCP socket, one request per connection
/// (`Connection: close`): for tests and tools that call the router's REST API. Reads
/// bodies by Content-Length, chunked encoding, or to the end of the stream.
public enum HTTPClient {
    /// Sends one request and waits for the whole response, all within `timeoutSeconds`.
    /// `url` is `http://host:port/path?query` (host may be a name: resolved with blocking
    /// `getaddrinfo`). Returns the status, headers with lower-case names, and the body.
    /// Throws on bad URLs, connection failures and timeouts. Cost: one TCP connection, the
    /// response buffered in memory.
    public static func request(
        _ method: String, _ url: String, headers: [String: String] = [:], body: [UInt8] = [],
        timeoutSeconds: Double = 10
    ) throws(WebError) -> (status: Int, headers: [String: String], body: [UInt8]) {
        guard let target = WebURL(url, schemes: ["http"]) else { throw WebError("unsupported URL \(url) (http:// only)") }
        let deadline = MonotonicDeadline(secondsFromNow: timeoutSeconds)
        let socket = try TCPSocket.connect(host: target.host, port: target.port, deadline: deadline)
        defer { socket.close() }

        var head = "\(method) \(target.target) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nConnection: close\r\n"
        for (name, value) in headers where !["host", "connection", "content-length"].contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        if !body.isEmpty || !["GET", "HEAD", "DELETE", "OPTIONS"].contains(method) {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        try socket.sendAll(Array(head.utf8) + body, deadline: deadline, what: "the request to \(url)")

        var received: [UInt8] = []
        var parsed: HTTPResponseReader.Head?
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let count = try socket.receive(into: chunk, deadline: deadline, what: "the response from \(url)")
            received.append(contentsOf: chunk.prefix(count))
            if parsed == nil { parsed = try HTTPResponseReader.head(received) }
            if let parsed, let responseBody = try HTTPResponseReader.body(received, head: parsed, method: method, ended: count == 0) {
                return (parsed.status, parsed.headers, responseBody)
            }
            if count == 0 { throw WebError("connection closed before a complete response from \(url)") }
        }
    }
}
