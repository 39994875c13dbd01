import Foundation
import OTNet
import OTSignaling
import Synchronization

/// One client whose signaling socket reached this node while its session lives at
/// another node (the owner): its messages go to the owner over a WebSocket of this node's
/// own, message for message and in order, and the owner's come back the same way. With
/// ``media`` (this node cascades: a `MediaRouter` and a cluster secret), the client's
/// native subscriptions get their legs on this node (``ProxiedMedia``); its publishers and
/// browser subscribers keep their media at the owner, whose replies carry its address.
/// Messages wait in a bounded queue (``ClusterConfiguration/proxyQueueMessages``)
/// while the owner's socket opens or is slow; past it this client alone is closed (1008).
///
/// Cost: one `WebSocketClient` (its own service thread) per proxied client; one copy of
/// each message into a queue per direction; with ``media``, one serial queue that keeps
/// the owner's messages in order while a leg is set up.
final class SignalingProxy: Sendable {
    /// The client's socket on this node.
    let client: any WebSocketPeer
    /// The session it connects to.
    let sessionId: String
    /// The request id of the client's `connect` (a failure to reach the owner answers it).
    let connectRequestId: Int
    /// Whether that `connect` resumes a connection (a failure to reach the owner then
    /// answers 1022, "dropped": the client tries again, through whichever node).
    let resuming: Bool
    private let limit: Int
    /// The client's media served on this node, nil when the owner serves all of it.
    let media: ProxiedMedia?
    /// Owner → client messages pass here in order when ``media`` is set (a leg set-up blocks it).
    private let delivery: DispatchQueue?
    /// Messages waiting on ``delivery``; past four times the queue limit the client is
    /// closed as a slow consumer (the owner's messages piled up behind a slow set-up).
    private let waiting = Atomic<Int>(0)

    private struct State {
        var pending: [String] = []
        var upstream: WebSocketClient?
        var closed = false
        var authenticated = false
        var heardFromOwner = false
    }
    private let state = Mutex(State())

    init(client: any WebSocketPeer, sessionId: String, limit: Int, connectRequestId: Int, resuming: Bool = false,
         media: ProxiedMedia? = nil) {
        self.connectRequestId = connectRequestId
        self.resuming = resuming
        self.client = client
        self.sessionId = sessionId
        self.limit = limit
        self.media = media
        delivery = media == nil ? nil : DispatchQueue(label: "otkit.cluster.proxy.delivery")
    }

    /// Passes one client message on to the owner (or keeps it until the owner's socket
    /// exists), through ``media`` first. False when the queue is over its limit: the
    /// caller closes this client.
    func forward(_ text: String) -> Bool {
        let text = media?.outgoing(text) ?? text
        return state.withLock { state -> Bool in
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

    /// One message from the owner: delivered at once without ``media``; with it, in order
    /// on the delivery queue, after a leg the message asks for is set up (``ProxiedMedia``).
    /// `failed` runs when the client's queue refused a message, or more than four times the
    /// queue limit wait on the delivery queue (the caller closes the client).
    func fromOwner(_ text: String, failed: @escaping @Sendable () -> Void) {
        guard let media, let delivery else {
            if !deliver(text) { failed() }
            return
        }
        state.withLock { $0.heardFromOwner = true }  // at once: a close right after must not read as "never answered"
        guard waiting.add(1, ordering: .relaxed).newValue <= 4 * limit else {
            waiting.subtract(1, ordering: .relaxed)
            return failed()
        }
        delivery.async { [self] in
            defer { waiting.subtract(1, ordering: .relaxed) }
            switch media.incoming(text) {
            case .pass:
                if !deliver(text) { failed() }
            case .swallow:
                break
            case let .needsLeg(reply, request, requestId):
                let answer = media.openLeg(reply, for: request, requestId: requestId)
                if let toOwner = answer.toOwner { _ = forwardAsIs(toOwner) }
                if !deliver(answer.toClient) { failed() }
            }
        }
    }

    /// Sends this node's own message to the owner (past ``media``). False over the limit.
    private func forwardAsIs(_ text: String) -> Bool {
        state.withLock { state -> Bool in
            if state.closed { return true }
            if let upstream = state.upstream { return upstream.send(text) }
            guard state.pending.count < limit else { return false }
            state.pending.append(text)
            return true
        }
    }

    /// Whether the owner has sent anything yet (its answer to `connect` comes first).
    var heardFromOwner: Bool { state.withLock { $0.heardFromOwner } }

    /// Marks the proxy closed, removes the client's legs on this node, and returns the
    /// owner's socket to close (off the caller's thread: closing joins its service
    /// thread), nil if none or already closed.
    func shut() -> WebSocketClient? {
        media?.closeAll()
        return state.withLock { state -> WebSocketClient? in
            guard !state.closed else { return nil }
            state.closed = true
            state.pending = []
            defer { state.upstream = nil }
            return state.upstream
        }
    }
}
