import Foundation

extension NSLock {
    /// `withLock` that keeps a typed error (Foundation's rethrows `any Error`).
    func withTypedLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
