/// The text messages waiting to be written to one WebSocket, with the slow-consumer limits
/// and the close request that goes out after them. Guarded by its owner's lock.
/// Cost: one array slot per message; the array is compacted as it drains.
struct OutgoingQueue {
    /// The most messages a connection may have queued before it counts as a slow consumer.
    static let maximumMessages = 4096
    /// The most bytes a connection may have queued before it counts as a slow consumer.
    static let maximumBytes = 16 << 20

    private var messages: [String] = []
    private var head = 0
    private(set) var queuedBytes = 0
    /// The close frame to send once the queue is empty.
    var closeRequest: (code: UInt16, reason: String)?
    /// Set once the connection has ended: nothing more is accepted.
    var closed = false
    /// Set while the owner is already in the service thread's to-do list.
    var scheduled = false

    enum AppendResult { case queued, refused, overflow }

    var isEmpty: Bool { head == messages.count }
    /// Messages waiting to be written.
    var count: Int { messages.count - head }
    /// Messages or a close frame are waiting to be written.
    var hasWork: Bool { !isEmpty || closeRequest != nil }

    /// Queues `text` unless the connection is closing; past the limits, drops the queue
    /// and asks for a 1008 close instead.
    mutating func append(_ text: String) -> AppendResult {
        if closed || closeRequest != nil { return .refused }
        let bytes = text.utf8.count
        if messages.count - head >= Self.maximumMessages || queuedBytes + bytes > Self.maximumBytes {
            messages.removeAll()
            head = 0
            queuedBytes = 0
            closeRequest = (1008, "slow consumer")
            return .overflow
        }
        messages.append(text)
        queuedBytes += bytes
        return .queued
    }

    /// What a writable callback sends next.
    enum Next { case message(String, more: Bool), close(code: UInt16, reason: String), nothing }

    /// Takes what goes out next: the oldest message (`more` says whether anything is left
    /// after it), else the close request (after which the queue accepts nothing), else nothing.
    mutating func takeNext() -> Next {
        if let text = popFirst() { return .message(text, more: hasWork) }
        if let request = closeRequest {
            closed = true
            return .close(code: request.code, reason: request.reason)
        }
        return .nothing
    }

    /// Takes the oldest message.
    mutating func popFirst() -> String? {
        guard head < messages.count else { return nil }
        let text = messages[head]
        messages[head] = ""
        head += 1
        queuedBytes -= text.utf8.count
        if head == messages.count {
            messages.removeAll(keepingCapacity: messages.capacity <= 1024)
            head = 0
        } else if head >= 1024 && head * 2 >= messages.count {
            messages.removeFirst(head)
            head = 0
        }
        return text
    }
}
