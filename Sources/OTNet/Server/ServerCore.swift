import CEpoll
import Foundation
import Glibc
import Synchronization

/// Numbers the WebSocket connections of this process (server and client side).
let webSocketIDs = Atomic<UInt64>(1)

/// The service thread of a `WebServer`: one epoll loop over the listening socket, the
/// wake-up eventfd and every accepted connection (all non-blocking). It accepts (backing
/// off on EMFILE), reads requests and frames, calls the handler, and writes what is
/// queued as the sockets take it; the one lock it takes (a peer's queue) is never held
/// across a system call. Everything here runs on the service thread except `stopRequested`,
/// `exitRequested`, the counters and `waitFinished`.
final class ServerCore: @unchecked Sendable {
    /// Bodies above this are read and discarded, and answered with 413.
    static let maximumBodyBytes = 1 << 20
    /// How long a closing WebSocket may take to get its close frame out before it is dropped.
    static let closeDeadlineNanoseconds: UInt64 = 3_000_000_000
    /// A new connection must finish its TLS handshake and send its first request head within this.
    static let firstRequestNanoseconds: UInt64 = 10_000_000_000
    /// A request, once its first byte is in, must arrive whole within this (slow senders).
    static let requestNanoseconds: UInt64 = 30_000_000_000
    /// An idle keep-alive connection is closed after this.
    static let idleNanoseconds: UInt64 = 60_000_000_000
    /// Above this many queued output bytes a connection's input is not read and its
    /// WebSocket queue is not drained, so one slow reader cannot make the server buffer
    /// without bound (its messages wait in its own capped queue instead).
    static let outputHighWater = 256 << 10
    /// How long the loop stops accepting after `accept` fails for lack of descriptors:
    /// long enough that retrying costs nothing, short enough that clients wait only a moment.
    static let acceptBackoffNanoseconds: UInt64 = 50_000_000
    /// How often deadlines are checked.
    static let sweepNanoseconds: UInt64 = 100_000_000
    /// Epoll keys of the two fixed descriptors; connections count up from 2.
    static let listenerKey: UInt64 = 0, wakerKey: UInt64 = 1

    /// Dropped once the loop has ended, so a handler that owns the server does not keep
    /// both alive forever once the server has stopped.
    var handler: (any WebServerHandler)?
    let limits: ExposureLimits
    let counters = WebServerCounters()
    let waker: ServerWaker
    let wakeList: PeerWakeList
    let stopRequested = Atomic<Bool>(false)
    let exitRequested = Atomic<Bool>(false)
    let maximumMessageBytes: Int
    let tls: TLSServerContext?
    let epoll: Int32
    private var listener: Int32
    var connections: [UInt64: ServerConnection] = [:]
    private var nextSerial: UInt64 = 2
    var openPeers: [UInt64: ServerPeer] = [:]
    /// WebSockets open and not yet vouched for.
    var unauthenticated = UnauthenticatedPeers()
    var stopHandled = false
    private var acceptPausedUntil: UInt64?
    private var nextSweep: UInt64 = 0
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    private let finished = NSCondition()
    private var isFinished = false

    init(handler: any WebServerHandler, limits: ExposureLimits, listener: Int32, tls: TLSServerContext?,
         maximumMessageBytes: Int) throws(WebError) {
        self.handler = handler
        self.limits = limits
        self.listener = listener
        self.tls = tls
        self.maximumMessageBytes = maximumMessageBytes
        let epoll = cepoll_create()
        guard epoll >= 0 else { throw .system("epoll_create1", errno) }
        let waker: ServerWaker
        do { waker = try ServerWaker() } catch {
            close(epoll)
            throw error
        }
        self.epoll = epoll
        self.waker = waker
        wakeList = PeerWakeList(waker: waker)
        guard cepoll_control(epoll, EPOLL_CTL_ADD, listener, CEPOLL_IN, Self.listenerKey) == 0,
              cepoll_control(epoll, EPOLL_CTL_ADD, waker.descriptor, CEPOLL_IN, Self.wakerKey) == 0 else {
            let code = errno
            waker.retire()
            close(epoll)
            throw .system("epoll_ctl", code)
        }
    }

    deinit { readBuffer.deallocate() }

    // MARK: the loop

    /// Runs until stopped (every WebSocket closed after a stop, or `exitRequested`), then
    /// closes every socket and tells the handler about every peer still open.
    func run() {
        var keys = [UInt64](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        while !exitRequested.load(ordering: .acquiring) {
            if stopRequested.load(ordering: .acquiring) && !stopHandled { handleStop() }
            if stopHandled && openPeers.isEmpty { break }
            let count = keys.withUnsafeMutableBufferPointer { keyBuffer in
                events.withUnsafeMutableBufferPointer { eventBuffer in
                    cepoll_wait(epoll, keyBuffer.baseAddress, eventBuffer.baseAddress, 256, 100)
                }
            }
            if count < 0 && errno != EINTR { break }
            for index in 0..<max(0, Int(count)) {
                switch keys[index] {
                case Self.listenerKey: acceptAll()
                case Self.wakerKey:
                    waker.drain()
                    wokenUp()
                default:
                    if let connection = connections[keys[index]] { service(connection, events: events[index]) }
                }
            }
            let now = monotonicNanoseconds()
            if let paused = acceptPausedUntil, now >= paused, listener >= 0 {
                acceptPausedUntil = nil
                _ = cepoll_control(epoll, EPOLL_CTL_ADD, listener, CEPOLL_IN, Self.listenerKey)
            }
            if now >= nextSweep {
                nextSweep = now + Self.sweepNanoseconds
                sweepDeadlines(now)
            }
        }
        for connection in Array(connections.values) { drop(connection) }
        for peer in Array(openPeers.values) { reportClosed(peer) }
        closeListener()
        _ = wakeList.take()
        waker.retire()
        close(epoll)
        handler = nil
        finished.lock()
        isFinished = true
        finished.broadcast()
        finished.unlock()
    }

    /// Waits until the loop has ended, up to `seconds`; true if it has. Any thread.
    func waitFinished(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        finished.lock()
        defer { finished.unlock() }
        while !isFinished {
            if !finished.wait(until: deadline) { return isFinished }
        }
        return true
    }

    private func handleStop() {
        stopHandled = true
        closeListener()
        for peer in openPeers.values { peer.close(code: 1001, reason: "server stopping") }
    }

    private func closeListener() {
        guard listener >= 0 else { return }
        _ = cepoll_control(epoll, EPOLL_CTL_DEL, listener, 0, Self.listenerKey)
        close(listener)
        listener = -1
    }

    // MARK: accepting

    private func acceptAll() {
        // A bounded batch, so a connection storm cannot starve the sockets already open.
        for _ in 0..<128 {
            guard listener >= 0 else { return }
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors the listener stays readable and accepting again at
                    // once would spin: stop listening for a moment and keep serving the rest.
                    counters.acceptFailures.add(1, ordering: .relaxed)
                    _ = cepoll_control(epoll, EPOLL_CTL_DEL, listener, 0, Self.listenerKey)
                    acceptPausedUntil = monotonicNanoseconds() + Self.acceptBackoffNanoseconds
                    return
                default: return
                }
            }
            guard limits.admits(descriptor: fd, counters: counters) else {
                close(fd)
                continue
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            adopt(fd)
        }
    }

    private func adopt(_ fd: Int32) {
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        var session: TLSSession?
        if let tls {
            guard let made = TLSSession(context: tls, descriptor: fd) else {
                close(fd)
                return
            }
            session = made
        }
        let serial = nextSerial
        nextSerial += 1
        let connection = ServerConnection(
            serial: serial, descriptor: fd, remoteIP: SocketAddressText.format(storage, withPort: false),
            remoteAddress: SocketAddressText.format(storage, withPort: true), tls: session,
            http: HTTPRequestReader(maximumBodyBytes: Self.maximumBodyBytes))
        guard cepoll_control(epoll, EPOLL_CTL_ADD, fd, CEPOLL_IN, serial) == 0 else {
            close(fd)
            return
        }
        connection.registeredEvents = CEPOLL_IN
        connection.setDeadline(monotonicNanoseconds() + Self.firstRequestNanoseconds)
        connections[serial] = connection
    }

    // MARK: connections

    /// One epoll report for `connection`.
    private func service(_ connection: ServerConnection, events: UInt32) {
        if events & (CEPOLL_IN | CEPOLL_ERR | CEPOLL_HUP) != 0 || connection.tls != nil {
            readAvailable(connection)
        }
        settle(connection)
    }

    /// After any work on a connection: writes what is queued, refills from the WebSocket
    /// queue, resumes reading when the output has drained, closes it when done, or
    /// updates what epoll watches.
    func settle(_ connection: ServerConnection) {
        while connection.isOpen {
            flush(connection)
            guard connection.isOpen else { return }
            var progressed = false
            if connection.phase == .webSocket && connection.pendingOutput < Self.outputHighWater {
                let before = connection.pendingOutput
                pump(connection)
                progressed = connection.pendingOutput != before
            }
            if connection.readPaused && wantsRead(connection) {
                connection.readPaused = false
                if connection.phase == .http { processHTTP(connection) }
                readAvailable(connection)
                progressed = true
            }
            if !progressed { break }
        }
        guard connection.isOpen else { return }
        if connection.closeAfterFlush && connection.pendingOutput == 0 {
            drop(connection)
            return
        }
        var wanted: UInt32 = 0
        if wantsRead(connection) || connection.phase == .tlsHandshake { wanted |= CEPOLL_IN }
        if connection.pendingOutput > 0 || connection.tlsWantsWrite { wanted |= CEPOLL_OUT }
        if wanted != connection.registeredEvents {
            connection.registeredEvents = wanted
            _ = cepoll_control(epoll, EPOLL_CTL_MOD, connection.descriptor, wanted, connection.serial)
        }
    }

    /// Whether the connection's input should be read now.
    func wantsRead(_ connection: ServerConnection) -> Bool {
        connection.isOpen && !connection.inputEnded && !connection.closeAfterFlush
            && connection.pendingOutput < Self.outputHighWater && connection.fileBody == nil
    }

    /// Reads what the socket has (until it would block; plain sockets at most 1 MiB per
    /// turn, so one fast sender cannot hold the loop) and feeds it to the reader of its phase.
    func readAvailable(_ connection: ServerConnection) {
        if connection.phase == .tlsHandshake {
            guard advanceHandshake(connection) else { return }
        }
        var total = 0
        while connection.isOpen {
            guard wantsRead(connection) else {
                if !connection.inputEnded && !connection.closeAfterFlush { connection.readPaused = true }
                return
            }
            switch receive(connection) {
            case .done(let count):
                total += count
                feed(connection, UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
                if connection.tls == nil && total >= 1 << 20 { return }
            case .wouldBlock:
                return
            case .closed:
                inputEnded(connection)
                return
            case .failed:
                drop(connection)
                return
            }
        }
    }

    private func advanceHandshake(_ connection: ServerConnection) -> Bool {
        guard let session = connection.tls else { return true }
        switch session.handshake() {
        case .done:
            connection.phase = .http
            connection.tlsWantsWrite = false
            return true
        case .wouldBlock(let write):
            connection.tlsWantsWrite = write
            return false
        case .closed, .failed:
            drop(connection)
            return false
        }
    }

    private func receive(_ connection: ServerConnection) -> TLSSession.Outcome {
        if let session = connection.tls {
            let outcome = session.read(into: readBuffer)
            if case .wouldBlock(let write) = outcome { connection.tlsWantsWrite = write }
            return outcome
        }
        while true {
            let count = recv(connection.descriptor, readBuffer.baseAddress, readBuffer.count, 0)
            if count > 0 { return .done(count) }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock(write: false)
            default: return .failed
            }
        }
    }

    private func feed(_ connection: ServerConnection, _ bytes: UnsafeRawBufferPointer) {
        switch connection.phase {
        case .tlsHandshake: break
        case .http:
            connection.http.append(bytes)
            processHTTP(connection)
        case .webSocket:
            connection.frames?.append(bytes)
            processFrames(connection)
        }
    }

    /// The peer ended its side: HTTP answers what it has read and closes; a WebSocket that
    /// ends without a close frame is gone.
    private func inputEnded(_ connection: ServerConnection) {
        connection.inputEnded = true
        if connection.phase == .webSocket && !connection.sentClose {
            drop(connection)
        } else {
            connection.closeAfterFlush = true
        }
    }

    /// Writes queued output until the socket would block.
    func flush(_ connection: ServerConnection) {
        while connection.isOpen && (connection.pendingOutput > 0 || refillFileBody(connection)) {
            let outcome = connection.output.withUnsafeBytes { raw -> TLSSession.Outcome in
                let pending = UnsafeRawBufferPointer(rebasing: raw[connection.outputOffset...])
                if let session = connection.tls { return session.write(pending) }
                while true {
                    let sent = send(connection.descriptor, pending.baseAddress, pending.count, Int32(MSG_NOSIGNAL))
                    if sent >= 0 { return .done(sent) }
                    switch errno {
                    case EINTR: continue
                    case EAGAIN, EWOULDBLOCK: return .wouldBlock(write: true)
                    default: return .failed
                    }
                }
            }
            switch outcome {
            case .done(let count): connection.consumeOutput(count)
            case .wouldBlock(let write):
                if connection.tls != nil { connection.tlsWantsWrite = write }
                return
            case .closed, .failed:
                drop(connection)
                return
            }
        }
    }

    /// With the output drained and a file body under way: reads its next chunk into the
    /// output (true), or ends it (false). A file that ends early (truncated meanwhile) or
    /// cannot be read drops the connection: the client sees a short body, never wrong bytes.
    private func refillFileBody(_ connection: ServerConnection) -> Bool {
        guard let file = connection.fileBody else { return false }
        guard file.remaining > 0 else {
            connection.fileBody = nil
            return false
        }
        guard file.read(into: &connection.output) else {
            connection.fileBody = nil
            drop(connection)
            return false
        }
        return true
    }

    /// Closes the socket at once and tells the handler about its WebSocket, if any.
    func drop(_ connection: ServerConnection) {
        guard connection.isOpen else { return }
        connection.isOpen = false
        connection.fileBody = nil
        connections[connection.serial] = nil
        _ = cepoll_control(epoll, EPOLL_CTL_DEL, connection.descriptor, 0, connection.serial)
        connection.tls?.shutdown()
        close(connection.descriptor)
        if let peer = connection.peer {
            reportClosed(peer)
            peer.connection = nil
        }
    }

    /// Drops every connection whose deadline has passed (a WebSocket first gets a close
    /// frame, written if the socket takes it at once).
    private func sweepDeadlines(_ now: UInt64) {
        var due: [ServerConnection] = []
        for connection in connections.values {
            if let deadline = connection.deadline, deadline <= now { due.append(connection) }
        }
        for connection in due where connection.isOpen {
            if connection.phase == .webSocket && !connection.sentClose {
                let reason = connection.peer?.countedUnauthenticated == true ? "not authenticated in time" : "deadline"
                WebSocketFrameWriter.appendClose(code: 1008, reason: reason, to: &connection.output)
                connection.sentClose = true
                flush(connection)
            }
            drop(connection)
        }
    }

    func reportClosed(_ peer: ServerPeer) {
        guard !peer.closeReported else { return }
        peer.closeReported = true
        if unauthenticated.remove(peer) {
            // Still unauthenticated at close: the deadline (or the client) ended it.
            counters.unauthenticatedClosed.add(1, ordering: .relaxed)
        }
        peer.outgoing.withLock { $0.closed = true }
        openPeers[peer.id] = nil
        handler?.webSocketClosed(peer)
    }
}
