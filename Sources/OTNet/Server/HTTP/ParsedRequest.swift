/// One HTTP/1.1 request as `HTTPRequestReader` read it off a connection: the request line
/// decoded, the headers with lower-case names (repeats joined with ", "), the body, and
/// whether the connection stays open after the answer. Service thread only.
struct ParsedRequest: Equatable {
    /// "GET", "POST", …
    var method: String
    /// "HTTP/1.1" or "HTTP/1.0".
    var version: String
    /// The path, percent-decoded, a leading `//` folded to `/`.
    var path: String
    /// The query arguments in order, percent-decoded, `+` read as a space.
    var query: [QueryArgument]
    /// Header values by lower-case name.
    var headers: [String: String]
    /// The body (empty when there is none).
    var body: [UInt8] = []
    /// Whether the connection may carry another request after this one.
    var keepAlive: Bool
    /// The request asks for a WebSocket (`Upgrade: websocket`): nothing after its head is
    /// HTTP any more.
    var isUpgrade: Bool

    /// One `name=value` of the query.
    struct QueryArgument: Equatable {
        var name: String
        var value: String
    }
}
