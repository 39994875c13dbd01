import Foundation
import OTSignaling

/// One signaling connection's protocol state: request ids, the replies awaited, and the
/// heartbeat. Everything runs on the session's serial `queue`; the transport's thread
/// only hops onto it. A channel is used once: reconnection makes a new one.
///
/// Heartbeat (agreed with the router): a `.ping` every `interval`; hearing nothing at all
/// from the router for `timeout` counts as a lost path (`onLost`).
final class SignalingChannel: @unchecked Sendable {
    typealias Reply = (ServerMessage) -> Void

    private let queue: DispatchQueue
    private var transport: (any SignalingTransport)?
    private var nextRequestId = 1
    private var pending: [Int: Reply] = [:]
    /// Requests whose caller waits (async APIs): answered with an error on `close()` too.
    private var answerOnClose: Set<Int> = []
    private var lastHeard = Date()
    private var heartbeat: DispatchSourceTimer?
    private(set) var isOpen = false
    private(set) var isClosed = false
    /// Router events (messages without a request id), with their sequence number (nil
    /// when the router numbered none).
    var onEvent: (ServerMessage, Int?) -> Void = { _, _ in }
    /// The last event sequence number the session handled, and the last acknowledged to
    /// the router (`acknowledgeEvents`, sent instead of a ping when they differ).
    private var handledEventSeq = 0
    private var acknowledgedEventSeq = 0
    /// Unacknowledged events that trigger an acknowledgement before the next heartbeat
    /// (keeps the router's log short in a busy session).
    static let acknowledgeEvery = 256
    /// The socket opened.
    var onOpen: () -> Void = {}
    /// The path was lost (socket closed, could not connect, heartbeat timeout); once.
    var onLost: (String?) -> Void = { _ in }
    /// Messages the codec refused (logged by the session).
    var onMalformed: (String) -> Void = { _ in }

    init(queue: DispatchQueue) { self.queue = queue }

    /// Opens the transport. Throws what the factory throws (e.g. 1006).
    func open(url: String, allowSelfSigned: Bool, factory: SignalingTransportFactory) throws(OTError) {
        let handlers = SignalingTransportHandlers(
            onOpen: { [weak self] in
                guard let self else { return }
                self.queue.async { self.opened() }
            },
            onText: { [weak self] text in
                guard let self else { return }
                self.queue.async { self.received(text) }
            },
            onClose: { [weak self] failure in
                guard let self else { return }
                self.queue.async { self.lost(failure ?? "the router closed the connection") }
            })
        transport = try factory(url, allowSelfSigned, handlers)
    }

    /// Sends `message`; `reply` gets the router's answer (or a 1022 error if the path is
    /// lost first). Returns false when the channel is closed (nothing sent, no reply).
    @discardableResult
    func request(_ message: ClientMessage, answerOnClose: Bool = false, reply: Reply? = nil) -> Bool {
        guard !isClosed, let transport else { return false }
        let id = nextRequestId
        nextRequestId += 1
        if let reply { pending[id] = reply }
        if answerOnClose { self.answerOnClose.insert(id) }
        if !transport.send(SignalingCodec.encode(message, requestId: id)) {
            pending[id] = nil
            return false
        }
        return true
    }

    /// Starts pinging every `interval` seconds and watching for `timeout` of silence;
    /// events up to `acknowledged` are known to the router as handled.
    func startHeartbeat(interval: Double, timeout: Double, acknowledged: Int = 0) {
        heartbeat?.cancel()
        lastHeard = Date()
        handledEventSeq = max(handledEventSeq, acknowledged)
        acknowledgedEventSeq = acknowledged
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in
            guard let self, !self.isClosed else { return }
            if Date().timeIntervalSince(self.lastHeard) > timeout {
                self.lost("no message from the router for \(timeout) s")
                return
            }
            if !self.acknowledgeHandledEvents() { self.request(.ping) }
        }
        heartbeat = timer
        timer.resume()
    }

    /// The session handled event `seq`: acknowledged with the next heartbeat, or now when
    /// `acknowledgeEvery` are waiting.
    func eventHandled(_ seq: Int) {
        handledEventSeq = max(handledEventSeq, seq)
        if heartbeat != nil, handledEventSeq - acknowledgedEventSeq >= Self.acknowledgeEvery { acknowledgeHandledEvents() }
    }

    /// Sends `acknowledgeEvents` if events were handled since the last; true if it did.
    @discardableResult
    private func acknowledgeHandledEvents() -> Bool {
        guard handledEventSeq > acknowledgedEventSeq else { return false }
        acknowledgedEventSeq = handledEventSeq
        return request(.acknowledgeEvents(through: handledEventSeq))
    }

    /// Closes the channel without reporting a loss; awaited replies are dropped.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        heartbeat?.cancel()
        heartbeat = nil
        let waiting = pending.filter { answerOnClose.contains($0.key) }
        pending = [:]
        answerOnClose = []
        for (_, reply) in waiting {
            reply(.error(ErrorReply(code: Int(OTSessionErrorCode.notConnected.rawValue), message: "the session disconnected")))
        }
        // A WebSocket close waits up to 1 s for the handshake: not on the session's queue.
        if let transport { DispatchQueue.global().async { transport.close() } }
        transport = nil
    }

    private func opened() {
        guard !isClosed else { return }
        isOpen = true
        lastHeard = Date()
        onOpen()
    }

    private func received(_ text: String) {
        guard !isClosed else { return }
        lastHeard = Date()
        let decoded: (message: ServerMessage, requestId: Int?, eventSeq: Int?)
        do { decoded = try SignalingCodec.decodeServerFrame(text) } catch {
            onMalformed(error.description)
            return
        }
        if let id = decoded.requestId, let reply = pending.removeValue(forKey: id) {
            reply(decoded.message)
            return
        }
        // A reply nobody waits for (pong, ok, a late error) is not an event.
        guard decoded.requestId == nil else { return }
        onEvent(decoded.message, decoded.eventSeq)
    }

    private func lost(_ reason: String) {
        guard !isClosed else { return }
        let awaiting = pending
        pending = [:]
        answerOnClose = []
        close()
        for (_, reply) in awaiting.sorted(by: { $0.key < $1.key }) {
            reply(.error(ErrorReply(code: Int(OTSessionErrorCode.connectionDropped.rawValue), message: "connection lost: \(reason)")))
        }
        onLost(reason)
    }
}
