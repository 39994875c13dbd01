import Synchronization

/// One WebSocket accepted by a `WebServer`. `send` and `close` may be called from any
/// thread: they queue under a lock and wake the service thread, which writes one message
/// per writable callback. Everything else here belongs to the service thread.
final class ServerPeer: WebSocketPeer, @unchecked Sendable {
    let id: UInt64
    let remoteAddress: String
    let path: String
    private let core: ServerCore  // strong: the core drops its peers when they close
    /// The queue shared with other threads.
    let outgoing = Locked(OutgoingQueue())
    /// Service thread only: the live connection, nil once lws has closed it.
    var wsi: OpaquePointer?
    /// Service thread only: the handler has been told about the close.
    var closeReported = false
    /// Service thread only: the close deadline has been armed.
    var closeDeadlineArmed = false

    init(id: UInt64, remoteAddress: String, path: String, core: ServerCore, wsi: OpaquePointer) {
        self.id = id
        self.remoteAddress = remoteAddress
        self.path = path
        self.core = core
        self.wsi = wsi
    }

    @discardableResult func send(_ text: String) -> Bool {
        let (result, schedule) = outgoing.withLock { queue in
            let result = queue.append(text)
            let schedule = result != .refused && !queue.scheduled
            if schedule { queue.scheduled = true }
            return (result, schedule)
        }
        if schedule { core.schedule(self) }
        return result == .queued
    }

    func close(code: UInt16, reason: String) {
        let schedule = outgoing.withLock { queue in
            guard !queue.closed, queue.closeRequest == nil else { return false }
            queue.closeRequest = (code, reason)
            let schedule = !queue.scheduled
            queue.scheduled = true
            return schedule
        }
        if schedule { core.schedule(self) }
    }
}
