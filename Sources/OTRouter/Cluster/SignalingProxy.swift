import Foundation
import OTNet
import OTSignaling
import Synchronization

/// One client whose signaling socket reached this node while its session lives at
/// another node (the owner): its messages go to the owner over a WebSocket of this node's
/// own, message for message and in order, and the owner's come back the same way. The
/// owner's replies carry its own media address, so the client's media goes to the owner
/// directly. Messages wait in a bounded queue (``ClusterConfiguration/proxyQueueMessages``)
/// while the owner's socket opens or is slow; past it this client alone is closed (1008).
///
/// Cost: one `WebSocketClient` (its own service thread) per proxied client; one copy of
/// each message into a queue per direction.
final class SignalingProxy: Sendable {
    /// The client's socket on this node.
    let client: any WebSocketPeer
    /// The session it connects to.
    let sessionId: String
    /// The request id of the client's `connect` (a failure to reach the owner answers it).
    let connectRequestId: Int
    private let limit: Int

    private struct State {
        var pending: [String] = []
        var upstream: WebSocketClient?
        var closed = false
        var authenticated = false
        var heardFromOwner = false
    }
    private let state = Mutex(State())

    init(client: any WebSocketPeer, sessionId: String, limit: Int, connectRequestId: Int) {
        self.connectRequestId = connectRequestId
        self.client = client
        self.sessionId = sessionId
        self.limit = limit
    }

    /// Passes one client message on to the owner (or keeps it until the owner's socket
    /// exists). False when the queue is over its limit: the caller closes this client.
    func forward(_ text: String) -> Bool {
        state.withLock { state -> Bool in
            if state.closed { return true }
            if let upstream = state.upstream {
                guard upstream.queuedMessages < limit else { return false }
                return upstream.send(text)
            }
            guard state.pending.count < limit else { return false }
            state.pending.append(text)
            return true
        }
    }

    /// The owner's socket is open for business: what waited goes first, in order. Returns
    /// false (and the caller closes `upstream`) when the proxy was closed meanwhile.
    func attach(_ upstream: WebSocketClient) -> Bool {
        state.withLock { state -> Bool in
            guard !state.closed else { return false }
            for text in state.pending { upstream.send(text) }
            state.pending = []
            state.upstream = upstream
            return true
        }
    }

    /// One message from the owner, for the client. The first `connected` reply lifts this
    /// node's unauthenticated deadline for the socket (the owner accepted it). False when
    /// the client's own queue refused it (a slow client).
    func deliver(_ text: String) -> Bool {
        let lift = state.withLock { state -> Bool in
            state.heardFromOwner = true
            guard !state.authenticated, text.contains("\"connected\"") else { return false }
            if case .connected? = try? SignalingCodec.decodeServerMessage(text).message {
                state.authenticated = true
                return true
            }
            return false
        }
        if lift { client.markAuthenticated() }
        return client.send(text)
    }

    /// Whether the owner has sent anything yet (its answer to `connect` comes first).
    var heardFromOwner: Bool { state.withLock { $0.heardFromOwner } }

    /// Marks the proxy closed and returns the owner's socket to close (off the caller's
    /// thread: closing joins its service thread), nil if none or already closed.
    func shut() -> WebSocketClient? {
        state.withLock { state -> WebSocketClient? in
            guard !state.closed else { return nil }
            state.closed = true
            state.pending = []
            defer { state.upstream = nil }
            return state.upstream
        }
    }
}
