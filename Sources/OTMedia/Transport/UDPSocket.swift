import CUDP
import Glibc
import Synchronization

/// A non-blocking UDP socket (IPv4 or IPv6) that moves datagrams in batches with
/// `recvmmsg`/`sendmmsg`, straight into and out of pooled `PacketBuffer`s.
///
/// - Binding to port 0 picks an ephemeral port; `localAddress` reports the one bound.
/// - `connect` is optional: a connected socket may send buffers without a peer address,
///   and it hears ICMP "port unreachable" as `ECONNREFUSED`, which is counted
///   (`connectionRefusedCount`) and otherwise ignored — on loopback it only means the
///   other side is not up yet.
/// - `EINTR` is retried; `EAGAIN` comes back as `IOResult.wouldBlock`; other failures
///   are thrown as `TransportError` values carrying `errno` and its text.
/// - If the kernel lacks `recvmmsg`/`sendmmsg` (`ENOSYS`) the socket falls back to one
///   `recvmsg`/`sendmsg` per datagram, for good.
/// - On the system clock, receive times are the kernel's (`SO_TIMESTAMPNS`), not the
///   moment the thread got round to reading: the delay-based bandwidth estimate and the
///   jitter statistics measure the network, not this process's scheduling. A loaded
///   machine (a Raspberry Pi, an emulated CPU) reads its sockets in bursts, late, and
///   stamping at read time made that look like a queue building up.
///
/// Threads: any number of threads may use one socket at once (the kernel serializes),
/// each with its own `UDPMessageBatch`. Nothing here takes a lock or allocates per call;
/// counters are relaxed atomics. Close the socket only after every thread using it has
/// stopped (a closed descriptor number can be reused by the process).
public final class UDPSocket: Sendable {
    private let descriptor: Atomic<Int32>
    /// The address the socket is bound to (the real port when 0 was asked for).
    public let localAddress: SocketAddress
    /// The clock that stamps `PacketBuffer.receiveTimestamp`, read once per batch.
    public let clock: any MediaClock
    /// Whether datagrams carry the kernel's receive time (the system clock only).
    public let usesKernelTimestamps: Bool
    private let batchedCalls: Atomic<Bool>
    private let refused = Atomic<Int>(0)
    private let sendDropped = Atomic<Int>(0)
    private let truncated = Atomic<Int>(0)
    private let segmentation: Atomic<Bool>
    private let segmentationFallbacks = Atomic<Int>(0)
    private let segmented = Atomic<Int>(0)
    private let coalesced = Atomic<Int>(0)
    /// Whether the kernel took `UDP_GRO` at open: received messages may then carry
    /// several datagrams (`PacketBuffer.segmentSize`).
    public let usesReceiveCoalescing: Bool

    /// Opens a socket of `address`'s family and binds it to `address`.
    /// `receiveBufferBytes`/`sendBufferBytes` ask for kernel buffer sizes (`SO_RCVBUF`/
    /// `SO_SNDBUF`, or the `…FORCE` variants when the process may exceed `rmem_max`);
    /// the kernel may give less, `receiveBufferBytes` reads back what it gave.
    /// IPv6 sockets are IPv6-only (`IPV6_V6ONLY`), so "[::]" does not take IPv4 traffic.
    /// `reusePort` sets `SO_REUSEPORT` before binding, so several sockets (one per worker
    /// thread) can share one port and the kernel spreads senders over them.
    /// `receiveCoalescing` asks for UDP generic receive offload (`UDP_GRO`, Linux ≥ 5.0): a
    /// run of equal-sized datagrams from one sender, coalesced by the kernel's GRO or sent
    /// as one GSO message on this host, is then read as one message of up to 64 KB whose
    /// `PacketBuffer.segmentSize` says where to cut it; receive buffers must hold 65,535
    /// bytes or a coalesced message is truncated whole. `usesReceiveCoalescing` says
    /// whether the kernel agreed (without it every message is one datagram, as before).
    /// Cost: a handful of system calls.
    public init(
        bindingTo address: SocketAddress,
        receiveBufferBytes: Int? = nil,
        sendBufferBytes: Int? = nil,
        clock: any MediaClock = SystemMediaClock(),
        reusePort: Bool = false,
        receiveCoalescing: Bool = false
    ) throws(TransportError) {
        let family = address.family == .ipv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        do throws(TransportError) {
            if address.family == .ipv6 {
                try Self.setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1, "IPV6_V6ONLY")
            }
            if reusePort {
                try Self.setOption(fd, SOL_SOCKET, SO_REUSEPORT, 1, "SO_REUSEPORT")
            }
            if let bytes = receiveBufferBytes {
                try Self.setBufferSize(fd, force: SO_RCVBUFFORCE, plain: SO_RCVBUF, bytes, "SO_RCVBUF")
            }
            if let bytes = sendBufferBytes {
                try Self.setBufferSize(fd, force: SO_SNDBUFFORCE, plain: SO_SNDBUF, bytes, "SO_SNDBUF")
            }
            let bound = address.withSockAddr { Glibc.bind(fd, $0, $1) }
            guard bound == 0 else { throw TransportError.system("bind \(address)", errno) }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutableBytes(of: &storage) {
                getsockname(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
            }
            guard named == 0 else { throw TransportError.system("getsockname", errno) }
            localAddress = SocketAddress(storage: storage, length: length)
        } catch {
            Glibc.close(fd)
            throw error
        }
        descriptor = Atomic(fd)
        batchedCalls = Atomic(true)
        segmentation = Atomic(CUDP_segmentation_supported(fd) == 1)
        usesReceiveCoalescing = receiveCoalescing && CUDP_enable_receive_coalescing(fd) == 0
        self.clock = clock
        // Kernel stamps are CLOCK_REALTIME, turned into an age against the system clock;
        // an injected clock (tests) keeps its own time.
        usesKernelTimestamps = clock is SystemMediaClock && CUDP_enable_receive_timestamps(fd) == 0
    }

    deinit { close() }

    /// Closes the descriptor; later calls throw `.closed`. Safe to call twice.
    public func close() {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { Glibc.close(fd) }
    }

    /// The file descriptor for `poll`, or -1 once closed. Not for I/O of your own.
    public var fileDescriptor: Int32 { descriptor.load(ordering: .relaxed) }

    /// Sets the default destination and the only accepted source (`connect(2)`); buffers
    /// without a peer are then sent to `peer`. Cost: one system call.
    public func connect(to peer: SocketAddress) throws(TransportError) {
        let fd = try openDescriptor()
        while true {
            let result = peer.withSockAddr { Glibc.connect(fd, $0, $1) }
            if result == 0 { return }
            if errno == EINTR { continue }
            throw .system("connect \(peer)", errno)
        }
    }

    /// The kernel's receive buffer size in bytes as it reports it (twice what was asked
    /// for: it counts its own bookkeeping). Cost: one system call.
    public var receiveBufferBytes: Int { readOption(SO_RCVBUF) }
    /// The kernel's send buffer size in bytes as it reports it.
    public var sendBufferBytes: Int { readOption(SO_SNDBUF) }

    /// How many times the kernel reported `ECONNREFUSED` (ICMP port unreachable) on a call.
    public var connectionRefusedCount: Int { refused.load(ordering: .relaxed) }
    /// Datagrams `send` gave up on because the kernel refused that one datagram
    /// (too large, no route, wrong address family…); counted, not thrown.
    public var sendDroppedCount: Int { sendDropped.load(ordering: .relaxed) }
    /// Received datagrams that were larger than their buffer (flagged `isTruncated`).
    public var truncatedCount: Int { truncated.load(ordering: .relaxed) }
    /// False once the kernel said it has no `recvmmsg`/`sendmmsg` (or a test turned them off).
    public var usesBatchedCalls: Bool { batchedCalls.load(ordering: .relaxed) }

    /// Whether `sendSegmented` hands runs of equal datagrams to the kernel as one (UDP GSO):
    /// true when the kernel took the socket option at open, false once it refused a
    /// segmented send (or a test turned it off).
    public var usesSegmentation: Bool { segmentation.load(ordering: .relaxed) }
    /// How many times the kernel refused a segmented send and `sendSegmented` fell back to
    /// one datagram per message for good (0 or 1).
    public var segmentationFallbackCount: Int { segmentationFallbacks.load(ordering: .relaxed) }

    /// Datagrams `sendSegmented` handed the kernel inside segmented (GSO) messages, i.e. in
    /// runs of two or more.
    public var segmentedDatagramCount: Int { segmented.load(ordering: .relaxed) }

    /// Datagrams received inside coalesced messages (UDP GRO), i.e. in runs of two or more.
    public var coalescedDatagramCount: Int { coalesced.load(ordering: .relaxed) }

    /// Turns segmented sends off, as if the kernel had refused one.
    func disableSegmentation() { segmentation.store(false, ordering: .relaxed) }

    /// Turns the one-datagram-per-call fallback on, as if the kernel had said `ENOSYS`.
    func disableBatchedCalls() { batchedCalls.store(false, ordering: .relaxed) }

    /// Receives up to `maximum` datagrams (default: all of `buffers`, at most the batch's
    /// capacity) into `buffers[0...]`, in arrival order, without blocking. Each filled
    /// buffer gets its bytes at the headroom offset, its length, the sender's address,
    /// the receive time on `clock` (one read per call; with kernel timestamps, that read
    /// less the datagram's age in the kernel) and `isTruncated` if the datagram
    /// did not fit. With receive coalescing a buffer may hold several datagrams
    /// (`segmentSize`); n counts messages. Returns `.processed(n)` for n ≥ 1 messages or
    /// `.wouldBlock(0)`. Cost: one `recvmmsg`; no allocation, no lock.
    public func receive(into buffers: [PacketBuffer], maximum: Int? = nil, batch: UDPMessageBatch) throws(TransportError) -> IOResult {
        let fd = try openDescriptor()
        let count = min(maximum ?? buffers.count, buffers.count, batch.capacity)
        guard count > 0 else { return .processed(0) }
        for index in 0..<count { batch.prepareReceive(index, buffers[index]) }
        while true {
            let result: Int32
            if batchedCalls.load(ordering: .relaxed) {
                result = CUDP_recvmmsg(fd, batch.messages, UInt32(count), 0)
            } else {
                result = receiveOneByOne(fd, batch, count)
            }
            if result > 0 {
                let now = clock.nanoseconds()
                let realNow = usesKernelTimestamps ? CUDP_realtime_nanoseconds() : 0
                var cut = 0, grouped = 0
                let coalescing = usesReceiveCoalescing
                for index in 0..<Int(result) {
                    let buffer = buffers[index]
                    batch.finishReceive(index, buffer, timestamp: receiveTime(batch, index, now: now, realNow: realNow),
                                        coalescing: coalescing)
                    if buffer.isTruncated { cut += 1 }
                    if buffer.segmentSize > 0, buffer.length > buffer.segmentSize {
                        grouped += (buffer.length + buffer.segmentSize - 1) / buffer.segmentSize
                    }
                }
                if cut > 0 { truncated.add(cut, ordering: .relaxed) }
                if grouped > 0 { coalesced.add(grouped, ordering: .relaxed) }
                return .processed(Int(result))
            }
            if result == 0 { return .processed(0) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock(0)
            case ECONNREFUSED: refused.add(1, ordering: .relaxed)
            case ENOSYS where batchedCalls.load(ordering: .relaxed): disableBatchedCalls()
            case let code: throw .system("recvmmsg", code)
            }
        }
    }

    /// Sends `buffers[0..<maximum]` (default: all) in order, each to its `peer` or, when it
    /// has none, to the connected peer. Returns how many buffers were consumed — sent, or
    /// refused one by one and counted in `sendDroppedCount` — as `.processed(n)` when all
    /// were, or `.wouldBlock(n)` when the send buffer filled after n. The caller still owns
    /// the buffers (release them). Cost: one `sendmmsg` per `batch.capacity` buffers; no
    /// allocation, no lock.
    public func send(_ buffers: [PacketBuffer], maximum: Int? = nil, batch: UDPMessageBatch) throws(TransportError) -> IOResult {
        try send(buffers, from: 0, to: min(maximum ?? buffers.count, buffers.count), batch: batch)
    }

    /// Sends like `send`, but each run of consecutive buffers to the same peer with the
    /// same length (the last of a run may be shorter; at most 64 datagrams and 60,000
    /// bytes) goes to the kernel as one message with a `UDP_SEGMENT` control message (UDP
    /// GSO, Linux ≥ 4.18): the kernel builds, routes and filters one packet and cuts it
    /// into the datagrams at the end, so the receiver gets exactly what `send` would have
    /// sent. The return value counts buffers, as `send`'s does. Falls back to `send`'s
    /// one datagram per message when the kernel has no GSO, and for good the first time it
    /// refuses a segmented message (`segmentationFallbackCount`; that message's datagrams
    /// are then sent one by one). Cost: one `sendmmsg` per `batch.capacity` messages, an
    /// address comparison per buffer; no allocation, no lock.
    public func sendSegmented(_ buffers: [PacketBuffer], maximum: Int? = nil, batch: UDPMessageBatch) throws(TransportError) -> IOResult {
        let total = min(maximum ?? buffers.count, buffers.count)
        guard segmentation.load(ordering: .relaxed), batchedCalls.load(ordering: .relaxed), total > 1 else {
            return try send(buffers, from: 0, to: total, batch: batch)
        }
        let fd = try openDescriptor()
        var done = 0
        var refusals = 0
        while done < total {
            var messageCount = 0
            var vectorCount = 0
            var position = done
            while position < total, messageCount < batch.capacity, vectorCount < batch.capacity {
                let run = UDPMessageBatch.segmentRun(buffers, first: position, limit: min(total, position + batch.capacity - vectorCount))
                batch.prepareSegmentedSend(messageCount, buffers, first: position, count: run, vector: vectorCount)
                messageCount += 1
                vectorCount += run
                position += run
            }
            var sent = 0
            while sent < messageCount {
                let result = CUDP_sendmmsg(fd, batch.messages + sent, UInt32(messageCount - sent), 0)
                if result > 0 {
                    var grouped = 0
                    for message in sent ..< sent + Int(result) {
                        let datagrams = batch.segments[message]
                        done += datagrams
                        if datagrams > 1 { grouped += datagrams }
                    }
                    if grouped > 0 { segmented.add(grouped, ordering: .relaxed) }
                    sent += Int(result)
                    continue
                }
                let code = errno
                let datagrams = batch.segments[sent]
                switch code {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return .wouldBlock(done)
                case ECONNREFUSED:
                    refused.add(1, ordering: .relaxed)
                    refusals += 1
                    if refusals > messageCount {
                        sendDropped.add(datagrams, ordering: .relaxed)
                        done += datagrams
                        sent += 1
                        refusals = 0
                    }
                case ENOSYS:
                    disableBatchedCalls()
                    return try send(buffers, from: done, to: total, batch: batch)
                case EMSGSIZE, EINVAL, EIO, EOPNOTSUPP, ENOPROTOOPT, EAFNOSUPPORT, ENETUNREACH, EHOSTUNREACH, EPERM, EACCES,
                     ENOBUFS, EDESTADDRREQ:
                    if datagrams > 1, code == EMSGSIZE || code == EINVAL || code == EIO || code == EOPNOTSUPP || code == ENOPROTOOPT {
                        // The kernel (or the route's device or MTU) will not segment: plain
                        // sends from here on, this message's datagrams included.
                        disableSegmentation()
                        segmentationFallbacks.add(1, ordering: .relaxed)
                        return try send(buffers, from: done, to: total, batch: batch)
                    }
                    // These datagrams cannot go out; the rest may.
                    sendDropped.add(datagrams, ordering: .relaxed)
                    done += datagrams
                    sent += 1
                default: throw .system("sendmmsg", code)
                }
            }
        }
        return .processed(done)
    }

    /// `send` of `buffers[start..<total]`; the result counts from 0 (buffers before
    /// `start` count as consumed).
    private func send(_ buffers: [PacketBuffer], from start: Int, to total: Int, batch: UDPMessageBatch) throws(TransportError) -> IOResult {
        let fd = try openDescriptor()
        var done = start
        var refusals = 0
        while done < total {
            let count = min(total - done, batch.capacity)
            for index in 0..<count { batch.prepareSend(index, buffers[done + index]) }
            var sent = 0
            while sent < count {
                let result: Int32
                if batchedCalls.load(ordering: .relaxed) {
                    result = CUDP_sendmmsg(fd, batch.messages + sent, UInt32(count - sent), 0)
                } else {
                    result = sendOneByOne(fd, batch, from: sent, count: count)
                }
                if result > 0 {
                    sent += Int(result)
                    continue
                }
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return .wouldBlock(done + sent)
                case ECONNREFUSED:
                    // A pending ICMP error, consumed by this call; the datagram was not sent.
                    // Retry it, but give up on it if the refusals keep coming.
                    refused.add(1, ordering: .relaxed)
                    refusals += 1
                    if refusals > count {
                        sendDropped.add(1, ordering: .relaxed)
                        sent += 1
                        refusals = 0
                    }
                case ENOSYS where batchedCalls.load(ordering: .relaxed): disableBatchedCalls()
                case EMSGSIZE, EINVAL, EAFNOSUPPORT, ENETUNREACH, EHOSTUNREACH, EPERM, EACCES, ENOBUFS, EDESTADDRREQ:
                    // This datagram cannot go out; the rest may.
                    sendDropped.add(1, ordering: .relaxed)
                    sent += 1
                case let code: throw .system("sendmmsg", code)
                }
            }
            done += count
        }
        return .processed(done)
    }

    /// Waits until a datagram can be read, for at most `timeoutNanoseconds` (nil: forever).
    /// Returns false on timeout. Cost: one `ppoll`.
    public func waitUntilReadable(timeoutNanoseconds: UInt64?) throws(TransportError) -> Bool {
        let fd = try openDescriptor()
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let timeout = timeoutNanoseconds.map { Int64(min($0, UInt64(Int64.max))) } ?? -1
        while true {
            let result = CUDP_ppoll(&entry, 1, timeout)
            if result >= 0 { return result > 0 }
            if errno == EINTR { continue }
            throw .system("ppoll", errno)
        }
    }

    // MARK: - Private

    /// Message `index`'s arrival on `clock`: `now` less the age of its kernel timestamp.
    /// An age outside 0...1 s (the wall clock was stepped) falls back to `now`.
    @inline(__always)
    private func receiveTime(_ batch: UDPMessageBatch, _ index: Int, now: UInt64, realNow: Int64) -> UInt64 {
        guard usesKernelTimestamps, let stamp = batch.kernelTimestamp(index) else { return now }
        let age = realNow - stamp
        guard age > 0, age < 1_000_000_000, UInt64(age) < now else { return now }
        return now - UInt64(age)
    }

    private func openDescriptor() throws(TransportError) -> Int32 {
        let fd = descriptor.load(ordering: .relaxed)
        guard fd >= 0 else { throw TransportError(.closed, "the socket is closed") }
        return fd
    }

    /// The fallback for kernels without recvmmsg: recvmsg into each prepared message until
    /// one would block. Returns the number received, or -1 with errno if the first failed.
    private func receiveOneByOne(_ fd: Int32, _ batch: UDPMessageBatch, _ count: Int) -> Int32 {
        var received: Int32 = 0
        while received < Int32(count) {
            let result = withUnsafeMutablePointer(to: &batch.messages[Int(received)].header) { recvmsg(fd, $0, 0) }
            if result < 0 { return received > 0 ? received : -1 }
            batch.messages[Int(received)].length = UInt32(result)
            received += 1
        }
        return received
    }

    /// The fallback for kernels without sendmmsg: sendmsg each prepared message in turn.
    private func sendOneByOne(_ fd: Int32, _ batch: UDPMessageBatch, from start: Int, count: Int) -> Int32 {
        var sent: Int32 = 0
        while start + Int(sent) < count {
            let result = withUnsafePointer(to: &batch.messages[start + Int(sent)].header) { sendmsg(fd, $0, 0) }
            if result < 0 { return sent > 0 ? sent : -1 }
            sent += 1
        }
        return sent
    }

    private func readOption(_ name: Int32) -> Int {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor.load(ordering: .relaxed), SOL_SOCKET, name, &value, &length) == 0 else { return 0 }
        return Int(value)
    }

    private static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32, _ label: String) throws(TransportError) {
        var value = value
        guard setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw .system("setsockopt \(label)", errno)
        }
    }

    /// Tries the `…FORCE` option first (allowed with CAP_NET_ADMIN, ignores rmem_max), then
    /// the plain one, which the kernel silently caps.
    private static func setBufferSize(_ fd: Int32, force: Int32, plain: Int32, _ bytes: Int, _ label: String) throws(TransportError) {
        let value = Int32(clamping: bytes)
        do throws(TransportError) {
            try setOption(fd, SOL_SOCKET, force, value, label)
        } catch {
            try setOption(fd, SOL_SOCKET, plain, value, label)
        }
    }
}
