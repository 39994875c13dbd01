import Foundation
import Glibc
import Synchronization

/// For tests: accepts TCP connections on 127.0.0.1 (a kernel-chosen port) and forwards
/// each one to `target`, pumping bytes both ways on a thread per connection. With the
/// black hole on, bytes in both directions are read and thrown away while the TCP
/// connections stay up — what a dead network path looks like to both ends.
///
/// Cost: one accept thread, plus one thread and two sockets per relayed connection;
/// a 64 KiB buffer per connection.
public final class TCPRelay: Sendable {
    /// The port the relay listens on (127.0.0.1).
    public let port: Int
    private let core: RelayCore

    /// Starts listening; `target` is `"host:port"` (the host is resolved per connection).
    /// Throws for a malformed target or when the listening socket cannot be made.
    public init(target: String) throws(WebError) {
        guard let colon = target.lastIndex(of: ":"), let targetPort = Int(target[target.index(after: colon)...]) else {
            throw WebError("relay target must be host:port, not \(target)")
        }
        let host = String(target[..<colon]).trimmingCharacters(in: ["[", "]"])
        core = try RelayCore(host: host, port: targetPort)
        port = core.listenPort
        try core.startAccepting()
    }

    deinit { stop() }

    /// On: read and discard everything in both directions. Off: forward again (bytes
    /// dropped meanwhile stay lost). Takes effect for the next read.
    public func setBlackhole(_ on: Bool) { core.blackhole.store(on, ordering: .releasing) }

    /// Stops accepting, closes every relayed connection and joins the threads. Idempotent.
    public func stop() { core.stop() }
}

/// The sockets and threads of a `TCPRelay`.
final class RelayCore: @unchecked Sendable {
    let host: String
    let port: Int
    let listenDescriptor: Int32
    let listenPort: Int
    let blackhole = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private struct State {
        var open: Set<Int32> = []
        var threads: [OSThread] = []
        var stopped = false
    }
    private let state = Locked(State())

    init(host: String, port: Int) throws(WebError) {
        self.host = host
        self.port = port
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw .system("relay listen", code)
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            let code = errno
            close(fd)
            throw .system("pipe", code)
        }
        listenDescriptor = fd
        listenPort = Int(UInt16(bigEndian: address.sin_port))
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
    }

    deinit {
        close(listenDescriptor)
        close(wakeRead)
        close(wakeWrite)
    }

    func startAccepting() throws(WebError) {
        let thread = try OSThread(name: "otnet-relay") { [self] in acceptLoop() }
        state.withLock { $0.threads.append(thread) }
    }

    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)  // never drained: every poll below returns from now on
        let threads = state.withLock { state -> [OSThread] in
            state.stopped = true
            for fd in state.open { shutdown(fd, Int32(SHUT_RDWR)) }
            return state.threads
        }
        threads.forEach { $0.join() }
        // Pump threads started after the snapshot see `stopped` and exit; join them too.
        state.withLock { $0.threads }.forEach { $0.join() }
    }

    private func acceptLoop() {
        while !stopping.load(ordering: .acquiring) {
            var entries = [pollfd(fd: listenDescriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            guard poll(&entries, 2, -1) >= 0 || errno == EINTR else { return }
            guard entries[1].revents == 0 else { return }
            guard entries[0].revents != 0 else { continue }
            let client = accept(listenDescriptor, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            let upstream: TCPSocket
            do {
                upstream = try TCPSocket.connect(host: host, port: port, deadline: MonotonicDeadline(secondsFromNow: 5))
            } catch {
                close(client)
                continue
            }
            let server = dup(upstream.descriptor)  // the pump owns plain descriptors
            upstream.close()
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.open.insert(client)
                state.open.insert(server)
                return true
            }
            guard admitted else {
                close(client)
                close(server)
                return
            }
            do {
                let thread = try OSThread(name: "otnet-relay-io") { [self] in pump(client, server) }
                state.withLock { $0.threads.append(thread) }
            } catch {
                release(client, server)
            }
        }
    }

    /// Moves bytes between `a` and `b` until either side closes or the relay stops.
    private func pump(_ a: Int32, _ b: Int32) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer {
            buffer.deallocate()
            release(a, b)
        }
        while !stopping.load(ordering: .acquiring) {
            var entries = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            guard poll(&entries, 3, -1) >= 0 || errno == EINTR else { return }
            if entries[2].revents != 0 { return }
            for (from, to, ready) in [(a, b, entries[0].revents), (b, a, entries[1].revents)] where ready != 0 {
                let count = recv(from, buffer, 64 << 10, 0)
                if count == 0 { return }
                if count < 0 {
                    if errno == EAGAIN || errno == EINTR { continue }
                    return
                }
                if blackhole.load(ordering: .acquiring) { continue }
                guard forward(buffer, count, to: to) else { return }
            }
        }
    }

    /// Writes `count` bytes to `fd`, waiting in poll while its buffer is full.
    private func forward(_ buffer: UnsafeMutableRawPointer, _ count: Int, to fd: Int32) -> Bool {
        var offset = 0
        while offset < count {
            let sent = send(fd, buffer + offset, count - offset, Int32(MSG_NOSIGNAL))
            if sent > 0 {
                offset += sent
                continue
            }
            guard sent < 0, errno == EAGAIN || errno == EINTR else { return false }
            var entries = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            guard poll(&entries, 2, -1) >= 0 || errno == EINTR, entries[1].revents == 0 else { return false }
        }
        return true
    }

    private func release(_ a: Int32, _ b: Int32) {
        state.withLock { state in
            state.open.remove(a)
            state.open.remove(b)
        }
        close(a)
        close(b)
    }
}
