import Synchronization

/// One WebSocket accepted by a `WebServer`. `send` and `close` may be called from any
/// thread: they queue under a lock and wake the service thread, which frames queued
/// messages into the connection's output as the socket takes them. Everything else here
/// belongs to the service thread.
final class ServerPeer: WebSocketPeer, @unchecked Sendable {
    let id: UInt64
    let remoteAddress: String
    let path: String
    /// Not the server core: an application that keeps peers must not keep the server's
    /// handler (and so, often, itself) alive through them.
    private let wakeList: PeerWakeList
    /// The queue shared with other threads.
    let outgoing = Locked(OutgoingQueue())
    /// Service thread only: the live connection, nil once it has closed.
    var connection: ServerConnection?
    /// Service thread only: the handler has been told about the close.
    var closeReported = false
    /// Set by `markAuthenticated` (any thread); the service thread then lifts the limits.
    let authenticated = Atomic<Bool>(false)
    /// Service thread only: counted among the server's unauthenticated WebSockets and
    /// under its deadline.
    var countedUnauthenticated = false

    init(id: UInt64, remoteAddress: String, path: String, wakeList: PeerWakeList, connection: ServerConnection) {
        self.id = id
        self.remoteAddress = remoteAddress
        self.path = path
        self.wakeList = wakeList
        self.connection = connection
    }

    @discardableResult func send(_ text: String) -> Bool {
        let (result, schedule) = outgoing.withLock { queue in
            let result = queue.append(text)
            let schedule = result != .refused && !queue.scheduled
            if schedule { queue.scheduled = true }
            return (result, schedule)
        }
        if schedule { wakeList.schedule(self) }
        return result == .queued
    }

    func markAuthenticated() {
        guard !authenticated.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeList.schedule(self)
    }

    func close(code: UInt16, reason: String) {
        let schedule = outgoing.withLock { queue in
            guard !queue.closed, queue.closeRequest == nil else { return false }
            queue.closeRequest = (code, reason)
            let schedule = !queue.scheduled
            queue.scheduled = true
            return schedule
        }
        if schedule { wakeList.schedule(self) }
    }
}

/// The peers that have something to write, shared between the threads that call `send`
/// and the server's service thread, plus the loop to wake. Cost: one lock per schedule.
final class PeerWakeList: Sendable {
    private let waker: ServerWaker
    private let peers = Locked<[ServerPeer]>([])

    init(waker: ServerWaker) { self.waker = waker }

    /// Adds `peer` and wakes the service thread. Any thread.
    func schedule(_ peer: ServerPeer) {
        peers.withLock { $0.append(peer) }
        waker.wake()
    }

    /// Empties the list (service thread).
    func take() -> [ServerPeer] {
        peers.withLock { list in
            defer { list.removeAll(keepingCapacity: true) }
            return list
        }
    }
}
