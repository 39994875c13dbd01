import Foundation

/// A value guarded by an `NSLock`. OTNet uses NSLock rather than `Synchronization.Mutex`
/// because ThreadSanitizer understands it (it reports false races inside Mutex on Linux).
/// Cost: one uncontended lock/unlock per access.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value while holding the lock.
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
