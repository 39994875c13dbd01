import OTNet

/// What a signaling transport reports, on its own thread.
struct SignalingTransportHandlers: Sendable {
    var onOpen: @Sendable () -> Void
    var onText: @Sendable (String) -> Void
    /// Exactly once: nil = closed cleanly, text = could not connect / network error.
    var onClose: @Sendable (String?) -> Void
}

/// One signaling connection to the router (a WebSocket in production).
protocol SignalingTransport: AnyObject, Sendable {
    /// Queues one message; false when the connection is closed.
    @discardableResult func send(_ text: String) -> Bool
    /// Closes the connection (onClose follows). Idempotent.
    func close()
}

/// Opens a transport to `url`.
typealias SignalingTransportFactory = @Sendable (_ url: String, _ allowSelfSignedCertificates: Bool,
                                                 _ handlers: SignalingTransportHandlers) throws(OTError) -> any SignalingTransport

/// The production transport: an `OTNet.WebSocketClient`.
final class WebSocketSignalingTransport: SignalingTransport {
    static let factory: SignalingTransportFactory = { url, allowSelfSigned, handlers throws(OTError) in
        try WebSocketSignalingTransport(url: url, allowSelfSignedCertificates: allowSelfSigned, handlers: handlers)
    }

    private let client: WebSocketClient

    init(url: String, allowSelfSignedCertificates: Bool, handlers: SignalingTransportHandlers) throws(OTError) {
        do {
            client = try WebSocketClient(url: url, allowSelfSignedCertificates: allowSelfSignedCertificates,
                                         onOpen: handlers.onOpen, onText: handlers.onText, onClose: handlers.onClose)
        } catch {
            throw OTError(.connectionFailed, "cannot open the signaling WebSocket to \(url): \(error.message)")
        }
    }

    func send(_ text: String) -> Bool { client.send(text) }
    func close() { client.close(code: 1000, reason: "bye") }
}
