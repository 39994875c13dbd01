import Foundation
import Synchronization

/// Redis pub/sub on a connection of its own (a subscribed connection can do nothing
/// else): a thread subscribes to `channels` and hands each message to `handler`, on that
/// thread. When the connection breaks (Redis restarted) it reconnects with a growing
/// pause (0.1 s doubling to 2 s), subscribes again and calls `resubscribed`, so the owner
/// can re-read what it may have missed. Cost: one thread and one TCP connection.
public final class RedisSubscriber: Sendable {
    /// A message: its channel and payload (binary-safe).
    public typealias Handler = @Sendable (_ channel: String, _ payload: [UInt8]) -> Void

    private let connection: RedisConnection
    private let channels: [String]
    private let handler: Handler
    private let resubscribed: @Sendable () -> Void
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let subscriptions = Atomic<Int>(0)

    /// Starts the thread; it subscribes as soon as it reaches the server. `resubscribed`
    /// runs (on the thread) after every successful subscription, the first included.
    public init(endpoint: RedisEndpoint, channels: [String], timeoutMilliseconds: Int = 1000,
                resubscribed: @escaping @Sendable () -> Void = {}, handler: @escaping Handler) {
        connection = RedisConnection(endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds)
        self.channels = channels
        self.handler = handler
        self.resubscribed = resubscribed
        let thread = Thread { [self] in run() }
        thread.name = "otkit.redis.subscriber"
        thread.start()
    }

    /// How many times the channels were subscribed (1 after the first, +1 per reconnect). Cost: an atomic load.
    public var subscriptionCount: Int { subscriptions.load(ordering: .acquiring) }

    /// Stops the thread and closes the connection; waits up to 2 s for the thread. Idempotent.
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = finished.wait(timeout: .now() + 2)
        connection.close()
    }

    private func run() {
        defer { finished.signal() }
        var pause = 0.1
        while !stopping.load(ordering: .acquiring) {
            do {
                try connection.send([Array("SUBSCRIBE".utf8)] + channels.map { Array($0.utf8) })
                var confirmed = 0
                while !stopping.load(ordering: .acquiring) {
                    guard let reply = try connection.receive(waitMilliseconds: 200) else { continue }
                    guard let items = reply.elements, let kind = items.first?.text else { continue }
                    switch kind {
                    case "subscribe":
                        confirmed += 1
                        if confirmed == channels.count {
                            pause = 0.1
                            subscriptions.add(1, ordering: .releasing)
                            resubscribed()
                        }
                    case "message" where items.count == 3:
                        if let channel = items[1].text, case .bulk(let payload?) = items[2] { handler(channel, payload) }
                    default:
                        break
                    }
                }
            } catch {
                connection.close()
                var slept = 0.0
                while slept < pause && !stopping.load(ordering: .acquiring) {
                    Thread.sleep(forTimeInterval: 0.05)
                    slept += 0.05
                }
                pause = min(2, pause * 2)
            }
        }
    }
}
