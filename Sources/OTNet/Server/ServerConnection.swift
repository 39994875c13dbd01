/// What the server knows about one lws connection (one TCP socket): the HTTP request being
/// read and the response being written, or — after an upgrade — its WebSocket peer and
/// the message being reassembled. Attached to the wsi as lws "opaque user data", which,
/// unlike the per-session data, survives the upgrade's protocol re-bind; released in
/// WSI_DESTROY. Service thread only.
final class ServerConnection {
    // The request being collected (reset after each response: keep-alive reuses the wsi).
    var request = HTTPRequest(method: "GET", path: "/")
    var expectedBodyLength = 0
    /// Set while a Content-Length body is being read. lws 4.1 also sends BODY_COMPLETION
    /// for a POST with `Content-Length: 0`, after the response has already been started:
    /// the completion only counts while this is set.
    var awaitingBody = false
    var bodyTooLarge = false

    // The response being written, one chunk per HTTP_WRITEABLE.
    var responding = false
    var responseBody: [UInt8] = []
    var responseOffset = 0
    var closeAfterResponse = false

    // WebSocket state.
    var webSocketPath = "/"
    var webSocketQuery: [(name: String, value: String)] = []
    var peer: ServerPeer?
    var incoming: [UInt8] = []
    var incomingIsBinary = false

    /// Forgets the request and response so the next keep-alive request starts clean.
    func resetRequest() {
        request = HTTPRequest(method: "GET", path: "/")
        expectedBodyLength = 0
        awaitingBody = false
        bodyTooLarge = false
        responding = false
        responseBody = []
        responseOffset = 0
        closeAfterResponse = false
    }
}
