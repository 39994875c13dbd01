/// Turns an `HTTPResponse` into the bytes of an HTTP/1.1 answer: status line, the given
/// Content-Type exactly as given, the handler's headers (any with CR, LF or NUL, or that
/// would restate the framing, are dropped), Content-Length (never on 204/304, RFC 9110
/// §8.6), `Connection: close` when the connection ends after it; no body for HEAD, 204
/// and 304. Cost: one pass building the head, one copy of the body.
enum ResponseEncoding {
    /// Appends the answer to `output`.
    /// `contentLength`: the length of a body sent afterwards (a streamed file); nil: `response.body`'s.
    static func append(_ response: HTTPResponse, method: String, close: Bool, keepAliveHTTP10: Bool = false,
                       contentLength: Int? = nil, to output: inout [UInt8]) {
        var head = "HTTP/1.1 \(response.status) \(reasonPhrase(response.status))\r\n"
        if let contentType = response.contentType, isSafe(contentType) { head += "Content-Type: \(contentType)\r\n" }
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) {
            let lower = name.lowercased()
            guard isSafe(name), isSafe(value), !name.isEmpty,
                  !["content-length", "transfer-encoding", "connection", "content-type"].contains(lower) else { continue }
            head += "\(name): \(value)\r\n"
        }
        let bodiless = response.status == 204 || response.status == 304 || (100..<200).contains(response.status)
        if !bodiless { head += "Content-Length: \(contentLength ?? response.body.count)\r\n" }
        if close {
            head += "Connection: close\r\n"
        } else if keepAliveHTTP10 {
            head += "Connection: keep-alive\r\n"
        }
        head += "\r\n"
        output.append(contentsOf: head.utf8)
        if !bodiless && method != "HEAD" && contentLength == nil { output.append(contentsOf: response.body) }
    }

    /// A JSON error answer `{"code":status,"message":…}` (the message is plain ASCII text).
    static func error(_ status: Int, _ message: String) -> HTTPResponse {
        .json(status, #"{"code":\#(status),"message":"\#(message.filter { $0 != "\"" && $0 != "\\" })"}"#)
    }

    private static func isSafe(_ text: String) -> Bool {
        !text.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
    }

    /// The reason phrase of the common statuses (clients ignore it; RFC 9112 §4).
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}
