import Synchronization

/// How many leg sockets (UDP, 4 MiB buffers each) the media router has open now, for its
/// socket limit and `/metrics`. Cost: one relaxed atomic add per open and per close.
final class SocketGauge: Sendable {
    private let count = Atomic<Int>(0)

    /// A leg socket was opened.
    func opened() { count.add(1, ordering: .relaxed) }
    /// A leg socket was closed.
    func closed() { count.subtract(1, ordering: .relaxed) }
    /// The sockets open now.
    var value: Int { count.load(ordering: .relaxed) }
}
