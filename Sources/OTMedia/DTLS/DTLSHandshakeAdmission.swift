import Glibc
import Synchronization

/// Caps on DTLS handshakes in flight, per source host and in total, that the router's
/// UDP edge consults before it creates a `DTLSTransport` for a ClientHello: a handshake
/// costs the server a P-256 key agreement and a signature (~1 ms of CPU) plus an SSL
/// object, so a ClientHello flood must not be able to make it do that without bound.
///
/// `admit(from:)` takes a slot (or refuses, counted), `finished(from:)` gives it back when
/// the handshake ends whichever way. Sources are compared by IP address without the port
/// (a flood varies its ports). Thread-safe: one `Mutex` around a small dictionary; each
/// call costs a lock and a hash lookup, and allocates only when a new host first appears.
public final class DTLSHandshakeAdmission: Sendable {
    /// Default cap per source host: a browser or client opens a handful of legs at once.
    public static let defaultPerSource = 8
    /// Default cap in total.
    public static let defaultTotal = 512

    /// The caps and what they refused so far.
    public struct Counters: Sendable, Equatable {
        /// Handshakes in flight now.
        public var inFlight: Int
        /// Handshakes admitted since creation.
        public var admitted: UInt64
        /// Refusals because the source host had `perSource` in flight.
        public var refusedPerSource: UInt64
        /// Refusals because `total` were in flight.
        public var refusedTotal: UInt64
    }

    /// Most handshakes in flight from one source host.
    public let perSource: Int
    /// Most handshakes in flight in all.
    public let total: Int

    private struct Book {
        var bySource: [SourceHost: Int] = [:]
        var counters = Counters(inFlight: 0, admitted: 0, refusedPerSource: 0, refusedTotal: 0)
    }
    private let book = Mutex(Book())

    /// Caps of `perSource` per host and `total` overall (each at least 1).
    public init(perSource: Int = DTLSHandshakeAdmission.defaultPerSource, total: Int = DTLSHandshakeAdmission.defaultTotal) {
        self.perSource = max(1, perSource)
        self.total = max(1, total)
    }

    /// Takes a slot for a handshake from `source` and returns true, or returns false (and
    /// counts the refusal) when the host or the total is at its cap.
    public func admit(from source: SocketAddress) -> Bool {
        let host = SourceHost(source)
        return book.withLock { book in
            guard book.counters.inFlight < total else {
                book.counters.refusedTotal &+= 1
                return false
            }
            let current = book.bySource[host, default: 0]
            guard current < perSource else {
                book.counters.refusedPerSource &+= 1
                return false
            }
            book.bySource[host] = current + 1
            book.counters.inFlight += 1
            book.counters.admitted &+= 1
            return true
        }
    }

    /// Gives back the slot of a handshake from `source` that ended (connected, failed,
    /// timed out or closed). A call without a matching `admit` does nothing.
    public func finished(from source: SocketAddress) {
        let host = SourceHost(source)
        book.withLock { book in
            guard let current = book.bySource[host] else { return }
            if current <= 1 { book.bySource[host] = nil } else { book.bySource[host] = current - 1 }
            book.counters.inFlight -= 1
        }
    }

    /// A snapshot of the counters.
    public var counters: Counters { book.withLock { $0.counters } }

    /// In-flight handshakes from `source`'s host.
    public func inFlight(from source: SocketAddress) -> Int {
        let host = SourceHost(source)
        return book.withLock { $0.bySource[host, default: 0] }
    }
}

/// An IP address without its port: the key the admission caps count by.
struct SourceHost: Hashable, Sendable {
    var high: UInt64
    var low: UInt64
    var isIPv6: Bool

    init(_ address: SocketAddress) {
        var storage = address.storage
        if Int32(storage.ss_family) == AF_INET6 {
            let words = withUnsafeBytes(of: &storage) { raw -> (UInt64, UInt64) in
                let v6 = raw.load(as: sockaddr_in6.self)
                return withUnsafeBytes(of: v6.sin6_addr) { ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                                                            $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
            }
            high = words.0
            low = words.1
            isIPv6 = true
        } else {
            let v4 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            high = 0
            low = UInt64(v4.sin_addr.s_addr)
            isIPv6 = false
        }
    }
}
