import CEpoll
import Foundation
import Glibc

/// The eventfd that interrupts the service thread's `epoll_wait` from other threads.
/// A lock guards "the descriptor is still open", so a wake after the server has stopped
/// never writes to a closed (or reused) descriptor. Cost: one descriptor; a wake is one
/// 8-byte write.
final class ServerWaker: Sendable {
    /// The eventfd (registered with the service thread's epoll).
    let descriptor: Int32
    private let open = Locked(true)

    init() throws(WebError) {
        let fd = cepoll_eventfd()
        guard fd >= 0 else { throw .system("eventfd", errno) }
        descriptor = fd
    }

    /// Makes the service thread's next (or current) wait return. Any thread.
    func wake() {
        open.withLock { isOpen in
            guard isOpen else { return }
            var one: UInt64 = 1
            _ = write(descriptor, &one, 8)
        }
    }

    /// Service thread: consumes the pending wake-ups.
    func drain() {
        var value: UInt64 = 0
        _ = read(descriptor, &value, 8)
    }

    /// Closes the descriptor; later wakes do nothing. Idempotent.
    func retire() {
        open.withLock { isOpen in
            guard isOpen else { return }
            isOpen = false
            close(descriptor)
        }
    }
}
