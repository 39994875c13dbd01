import OTNet

/// A client socket as the owner sees it when another node proxies it: the proxying
/// node's socket, reporting the client's own address (from the verified cluster mark) so
/// per-address limits and logs see the client, not the node. Everything else passes through.
final class ForwardedPeer: WebSocketPeer {
    private let socket: any WebSocketPeer
    /// The proxying node's id.
    let node: String
    /// The same id as the socket's, so the socket's callbacks find this peer's state.
    var id: UInt64 { socket.id }
    /// The client's address as the proxying node saw it.
    let remoteAddress: String

    init(_ socket: any WebSocketPeer, node: String, client: String) {
        self.socket = socket
        self.node = node
        remoteAddress = client
    }

    @discardableResult func send(_ text: String) -> Bool { socket.send(text) }
    func close(code: UInt16, reason: String) { socket.close(code: code, reason: reason) }
    func markAuthenticated() { socket.markAuthenticated() }
}
