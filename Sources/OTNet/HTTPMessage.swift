/// One HTTP request as the server received it: method, path, query, headers and the whole
/// body (the server collects `Content-Length` bodies; chunked request bodies are refused).
/// Cost: the strings and the body bytes, copied once out of the connection's buffer.
public struct HTTPRequest: Sendable, Equatable {
    /// "GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS" or "HEAD".
    public var method: String
    /// The path without the query string, leading `//` folded to `/`
    /// (`/v2/project/123/session/1_MX4/signal`). Percent-escapes are already decoded
    /// (the server does it while parsing: `/a%20b` arrives as `/a b`).
    public var path: String
    /// The query arguments, percent-decoded (`+` becomes a space), in the order given
    /// (`?offset=5&count=10`); an escaped `%26` or `%3D` stays inside its value.
    public var query: [(name: String, value: String)]
    /// Request headers with lower-case names (`content-type`, `x-opentok-auth`, ...).
    public var headers: [String: String]
    /// The request body (empty when there is none).
    public var body: [UInt8]
    /// The peer's address as text (`127.0.0.1`), for logs.
    public var remoteAddress: String

    /// A request with every field given.
    public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:],
                body: [UInt8] = [], remoteAddress: String = "") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The first query argument called `name`, if any.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// Field-wise equality; query arguments compare in order.
    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.path == b.path && a.headers == b.headers && a.body == b.body
            && a.remoteAddress == b.remoteAddress && a.query.map(\.name) == b.query.map(\.name)
            && a.query.map(\.value) == b.query.map(\.value)
    }
}

/// The answer to an `HTTPRequest`. The `Content-Type` is sent exactly as given (the
/// OpenTok Python SDK compares it to `application/json` character for character).
public struct HTTPResponse: Sendable, Equatable {
    /// The status code (200, 204, 400, ...).
    public var status: Int
    /// The `Content-Type` header; nil sends none (use for 204).
    public var contentType: String?
    /// Further headers (`name`, `value`), e.g. `("WWW-Authenticate", "...")`.
    public var headers: [String: String]
    /// The body bytes.
    public var body: [UInt8]
    /// When set, the body is this file's content instead of `body`: the server opens it when
    /// it answers (Content-Length is its size then; a file it cannot open gets a 404) and
    /// sends it in chunks of `fileChunkSize` as the socket takes them, so a large file
    /// never sits in memory whole.
    public var bodyFile: String?

    /// The bytes read from a `bodyFile` at a time (one chunk is buffered per connection).
    public static let fileChunkSize = 64 << 10

    /// A response with every field given.
    public init(status: Int, contentType: String? = nil, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// A response whose body is the file at `path`, streamed (see `bodyFile`). Cost: a plain value.
    public static func file(_ status: Int, path: String, contentType: String, headers: [String: String] = [:]) -> HTTPResponse {
        var response = HTTPResponse(status: status, contentType: contentType, headers: headers)
        response.bodyFile = path
        return response
    }

    /// A response with a JSON body (`Content-Type: application/json`, no charset).
    public static func json(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: Array(text.utf8))
    }

    /// A plain-text response (`text/plain; version=0.0.4` for Prometheus, for example).
    public static func text(_ status: Int, _ text: String, contentType: String = "text/plain") -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }

    /// 204 No Content.
    public static let noContent = HTTPResponse(status: 204)
}
