import CHiredis
import Foundation
import Glibc

/// One connection to a Redis server, for commands (request, then reply). hiredis opens
/// the TCP connection with a connect timeout; each send and receive then has the same
/// timeout; replies are read by ``RedisReplyParser`` (bounded, range-checked).
///
/// Reconnects by itself: a command on a closed or broken connection opens a new one
/// first, and a command whose connection turns out dead (the server restarted) is sent
/// once more on a fresh connection. A timeout closes the connection (its reply would
/// arrive out of step). Thread-safe: one lock serializes commands and is held across
/// the round trip — this is the cluster's control plane, never the media path.
public final class RedisConnection: @unchecked Sendable {
    /// The server it talks to.
    public let endpoint: RedisEndpoint
    /// The connect, send and receive timeout, milliseconds.
    public let timeoutMilliseconds: Int
    private let lock = NSLock()
    // Guarded by `lock`.
    private var context: UnsafeMutablePointer<redisContext>?
    private var parser: RedisReplyParser
    private var repliesOnThisConnection = 0
    private var connects = 0

    /// A connection to `endpoint` (opened by the first command). `timeoutMilliseconds`
    /// bounds connect, send and receive (at least 1). Cost: none until used.
    public init(endpoint: RedisEndpoint, timeoutMilliseconds: Int = 1000, limits: RedisProtocolLimits = RedisProtocolLimits()) {
        self.endpoint = endpoint
        self.timeoutMilliseconds = max(1, timeoutMilliseconds)
        parser = RedisReplyParser(limits: limits)
    }

    deinit { if let context { redisFree(context) } }

    /// How many times a TCP connection was opened (the first included). Cost: the lock.
    public var connectCount: Int { lock.withLock { connects } }

    /// Closes the TCP connection; the next command opens a new one. Cost: a close(2).
    public func close() { lock.withLock { drop() } }

    /// Sends one command (binary-safe arguments, the first being its name) and returns
    /// the reply. Cost: a round trip to the server (plus a connect when needed).
    /// - Throws: ``RedisError``: `.connect`/`.io`/`.proto` (the connection is closed),
    ///   `.server` for an `-ERR` reply.
    public func command(_ arguments: [[UInt8]]) throws(RedisError) -> RedisReply {
        lock.lock()
        defer { lock.unlock() }
        let reused = context != nil && repliesOnThisConnection > 0
        do {
            return try roundTrip(arguments)
        } catch where reused && error.kind == .io {
            // A connection that worked before and broke now: most likely the server
            // restarted. Try once more on a fresh one.
            return try roundTrip(arguments)
        }
    }

    /// ``command(_:)-([[UInt8]])`` with text arguments (UTF-8). Cost: as that one.
    @discardableResult
    public func command(_ arguments: String...) throws(RedisError) -> RedisReply {
        try command(arguments.map { Array($0.utf8) })
    }

    /// ``command(_:)-([[UInt8]])`` with text arguments (UTF-8) in an array. Cost: as that one.
    @discardableResult
    public func command(strings arguments: [String]) throws(RedisError) -> RedisReply {
        try command(arguments.map { Array($0.utf8) })
    }

    /// Sends a command without reading its reply (`SUBSCRIBE`: replies come as pushes).
    /// Cost: a send (plus a connect when needed).
    /// - Throws: ``RedisError`` (`.connect`/`.io`; the connection is closed).
    public func send(_ arguments: [[UInt8]]) throws(RedisError) {
        lock.lock()
        defer { lock.unlock() }
        try open()
        try write(RedisCommandEncoding.encode(arguments))
    }

    /// The next reply (a pushed message on a subscribed connection), waiting at most
    /// `waitMilliseconds`; nil if none came by then (nothing is lost: a partial reply
    /// stays buffered). Cost: a poll(2) and the reads.
    /// - Throws: ``RedisError`` (`.io`/`.proto`; the connection is closed; also when no
    ///   connection is open).
    public func receive(waitMilliseconds: Int) throws(RedisError) -> RedisReply? {
        lock.lock()
        defer { lock.unlock() }
        guard context != nil else { throw RedisError(.io, "\(endpoint): not connected") }
        return try read(waitMilliseconds: waitMilliseconds, timeoutIsError: false)
    }

    // MARK: - Under the lock

    private func roundTrip(_ arguments: [[UInt8]]) throws(RedisError) -> RedisReply {
        try open()
        try write(RedisCommandEncoding.encode(arguments))
        guard let reply = try read(waitMilliseconds: timeoutMilliseconds, timeoutIsError: true) else {
            throw RedisError(.io, "\(endpoint): no reply")  // not reached: a timeout throws
        }
        repliesOnThisConnection += 1
        if case .error(let text) = reply { throw RedisError(.server, "\(endpoint): \(text)") }
        return reply
    }

    private func open() throws(RedisError) {
        if context != nil { return }
        guard let made = chiredis_connect(endpoint.host, Int32(endpoint.port), timeoutMilliseconds) else {
            throw RedisError(.connect, "\(endpoint): out of memory")
        }
        guard chiredis_err(made) == 0 else {
            let text = String(cString: chiredis_errstr(made))
            redisFree(made)
            throw RedisError(.connect, "\(endpoint): \(text)")
        }
        guard chiredis_set_timeout(made, timeoutMilliseconds) == 0 else {
            let text = String(cString: chiredis_errstr(made))
            redisFree(made)
            throw RedisError(.connect, "\(endpoint): cannot set the socket timeout: \(text)")
        }
        context = made
        parser = RedisReplyParser(limits: parser.limits)
        repliesOnThisConnection = 0
        connects += 1
        if endpoint.database != 0 {
            do {
                _ = try roundTrip([Array("SELECT".utf8), Array(String(endpoint.database).utf8)])
            } catch {
                drop()
                throw RedisError(.connect, "\(endpoint): cannot select database \(endpoint.database): \(error.description)")
            }
        }
    }

    private func drop() {
        if let context { redisFree(context) }
        context = nil
        parser = RedisReplyParser(limits: parser.limits)
    }

    private func write(_ bytes: [UInt8]) throws(RedisError) {
        guard let context else { throw RedisError(.io, "\(endpoint): not connected") }
        let fd = chiredis_fd(context)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                sent += n
                continue
            }
            let code = errno
            if n < 0 && code == EINTR { continue }
            drop()
            throw RedisError(.io, "\(endpoint): send failed: \(code == EAGAIN ? "timed out after \(timeoutMilliseconds) ms" : String(cString: strerror(code)))")
        }
    }

    /// One reply; nil when `waitMilliseconds` passed and `timeoutIsError` is false.
    private func read(waitMilliseconds: Int, timeoutIsError: Bool) throws(RedisError) -> RedisReply? {
        let deadline = ContinuousClock.now + .milliseconds(waitMilliseconds)
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            do {
                if let reply = try parser.next() { return reply }
            } catch {
                drop()
                throw RedisError(.proto, "\(endpoint): \(error.description)")
            }
            guard let context else { throw RedisError(.io, "\(endpoint): not connected") }
            let fd = chiredis_fd(context)
            let left = deadline - ContinuousClock.now
            let leftMilliseconds = max(0, Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(clamping: leftMilliseconds))
            if ready < 0 {
                let code = errno
                if code == EINTR { continue }
                drop()
                throw RedisError(.io, "\(endpoint): poll failed: \(String(cString: strerror(code)))")
            }
            if ready == 0 {
                if !timeoutIsError { return nil }
                drop()
                throw RedisError(.io, "\(endpoint): no reply within \(timeoutMilliseconds) ms")
            }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                do {
                    try parser.feed(Array(chunk[0..<n]))
                } catch {
                    drop()
                    throw RedisError(.proto, "\(endpoint): \(error.description)")
                }
                continue
            }
            let code = errno
            if n < 0 && (code == EINTR || code == EAGAIN) { continue }
            drop()
            throw RedisError(.io, "\(endpoint): " + (n == 0 ? "the server closed the connection" : "receive failed: \(String(cString: strerror(code)))"))
        }
    }
}
