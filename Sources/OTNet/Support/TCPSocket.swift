import Glibc

/// A TCP socket file descriptor with blocking-style helpers bounded by a deadline (the
/// descriptor itself is non-blocking; waits happen in `poll`). Closed on deinit.
/// Cost: one descriptor; helpers copy nothing.
final class TCPSocket {
    let descriptor: Int32
    private var isClosed = false

    init(adopting descriptor: Int32) { self.descriptor = descriptor }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    /// Connects to the first address of `host` that answers before `deadline`.
    static func connect(host: String, port: Int, deadline: MonotonicDeadline) throws(WebError) -> TCPSocket {
        var lastError = WebError("cannot connect to \(host):\(port)")
        for address in try SocketAddressText.resolve(host, port: port) {
            let fd = socket(Int32(address.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw .system("socket", errno) }
            let socket = TCPSocket(adopting: fd)
            var storage = address
            let started = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, SocketAddressText.length(address)) }
            }
            if started == 0 { return socket }
            guard errno == EINPROGRESS else {
                lastError = .system("connect to \(host):\(port)", errno)
                continue
            }
            guard try socket.wait(for: Int16(POLLOUT), deadline: deadline) else {
                throw WebError("timed out connecting to \(host):\(port)")
            }
            var status: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &status, &length)
            if status == 0 { return socket }
            lastError = .system("connect to \(host):\(port)", status)
        }
        throw lastError
    }

    /// Waits until the socket is ready for `events`; false when the deadline passed first.
    func wait(for events: Int16, deadline: MonotonicDeadline) throws(WebError) -> Bool {
        while true {
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, deadline.remainingMilliseconds)
            if ready > 0 { return true }
            if ready == 0 { return false }
            if errno != EINTR { throw .system("poll", errno) }
        }
    }

    /// Sends all of `bytes` before `deadline`.
    func sendAll(_ bytes: [UInt8], deadline: MonotonicDeadline, what: String) throws(WebError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EINTR) {
                guard try wait(for: Int16(POLLOUT), deadline: deadline) else { throw WebError("timed out sending \(what)") }
            } else {
                throw .system("send \(what)", errno)
            }
        }
    }

    /// Receives up to `buffer.count` bytes before `deadline`: the count, 0 at end of stream.
    func receive(into buffer: UnsafeMutableRawBufferPointer, deadline: MonotonicDeadline, what: String) throws(WebError) -> Int {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            guard errno == EAGAIN || errno == EINTR else { throw .system("receive \(what)", errno) }
            guard try wait(for: Int16(POLLIN), deadline: deadline) else { throw WebError("timed out waiting for \(what)") }
        }
    }
}
