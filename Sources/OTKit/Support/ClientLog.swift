import Foundation

/// The last few hundred log lines of a session, for `reportIssue`. Cost: a lock and
/// one string per line; oldest lines fall off.
final class ClientLog: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer: [String] = []
    private let capacity: Int

    init(capacity: Int = 200) { self.capacity = capacity }

    func add(_ line: String) {
        let stamped = "\(Date().timeIntervalSince1970) \(line)"
        lock.withLock {
            if buffer.count == capacity { buffer.removeFirst() }
            buffer.append(stamped)
        }
    }

    func lines() -> [String] { lock.withLock { buffer } }
}
