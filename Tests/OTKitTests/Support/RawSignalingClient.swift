import Foundation
import OTNet
import OTSignaling

/// A signaling client written straight on the wire protocol (OTNet's WebSocketClient and
/// SignalingCodec), with none of OTSession's behaviour: it answers nothing and obeys
/// nothing, so a test can play a client that ignores the router.
final class RawSignalingClient: @unchecked Sendable {
    private let lock = NSLock()
    private var replies: [Int: ServerMessage] = [:]
    private var receivedEvents: [ServerMessage] = []
    private var opened = false
    private var nextRequestId = 1
    private var client: WebSocketClient?

    init(url: String) throws {
        client = try WebSocketClient(
            url: url,
            onOpen: { [weak self] in self?.lock.withLock { self?.opened = true } },
            onText: { [weak self] text in
                guard let self, let (message, requestId) = try? SignalingCodec.decodeServerMessage(text) else { return }
                self.lock.withLock {
                    if let requestId { self.replies[requestId] = message } else { self.receivedEvents.append(message) }
                }
            },
            onClose: { _ in })
        // The router drops a socket that stays silent: ping every second, as OTSession does.
        heartbeat.schedule(deadline: .now() + 1, repeating: 1)
        heartbeat.setEventHandler { [weak self] in
            guard let self else { return }
            let requestId = self.lock.withLock { () -> Int in defer { self.nextRequestId += 1 }; return self.nextRequestId }
            self.client?.send(SignalingCodec.encode(.ping, requestId: requestId))
        }
        heartbeat.resume()
    }

    private let heartbeat = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "test.raw.heartbeat"))

    /// Events (messages without a request id) received so far.
    var events: [ServerMessage] { lock.withLock { receivedEvents } }

    /// Sends `message` and waits (up to `seconds`) for its reply.
    func request(_ message: ClientMessage, seconds: Double = 10) -> ServerMessage? {
        let requestId = lock.withLock { () -> Int in defer { nextRequestId += 1 }; return nextRequestId }
        client?.send(SignalingCodec.encode(message, requestId: requestId))
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let reply = lock.withLock({ replies[requestId] }) { return reply }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }

    func close() {
        heartbeat.cancel()
        client?.close()
    }
}
