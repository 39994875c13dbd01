import Glibc
import Testing
@testable import OTMedia

@Suite struct UDPSocketTests {
    typealias Support = TransportTestSupport

    /// The loopback families this machine has (::1 is skipped where IPv6 is off).
    static let families: [SocketAddress] = [.ipv4Loopback()] + (Support.ipv6Available ? [.ipv6Loopback()] : [])
    /// Every loopback family with both code paths: batched calls and the ENOSYS fallback.
    static let cases: [(SocketAddress, Bool)] = families.flatMap { [($0, true), ($0, false)] }

    @Test("64 datagrams in one sendmmsg arrive intact and in order via recvmmsg", arguments: cases)
    func batchRoundTrip(address: SocketAddress, batched: Bool) throws {
        let sender = try UDPSocket(bindingTo: address)
        let receiver = try UDPSocket(bindingTo: address, receiveBufferBytes: 1 << 20)
        if !batched {
            sender.disableBatchedCalls()
            receiver.disableBatchedCalls()
        }
        let pool = PacketBufferPool(initialCount: 128)
        let batch = UDPMessageBatch(capacity: 64)
        let outgoing = (0..<64).map { index -> PacketBuffer in
            let buffer = pool.take()!
            Support.fill(buffer, sequence: UInt32(index), length: 100 + index * 17)
            buffer.peer = receiver.localAddress
            return buffer
        }
        #expect(try sender.send(outgoing, batch: batch) == .processed(64))
        for buffer in outgoing { pool.release(buffer) }

        let incoming = (0..<64).map { _ in pool.take()! }
        var received = 0
        while received < 64 {
            #expect(try receiver.waitUntilReadable(timeoutNanoseconds: 5_000_000_000))
            let slice = Array(incoming[received...])
            received += try receiver.receive(into: slice, batch: batch).count
        }
        for (index, buffer) in incoming.enumerated() {
            #expect(Support.sequence(of: buffer) == UInt32(index))
            #expect(buffer.length == 100 + index * 17)
            #expect(buffer.peer == sender.localAddress)
            #expect(!buffer.isTruncated)
            #expect(buffer.start == pool.headroom)
        }
        #expect(receiver.usesBatchedCalls == batched)
        #expect(try receiver.receive(into: incoming, batch: batch) == .wouldBlock(0))
    }

    @Test("Binding port 0 reports the ephemeral port the kernel chose", arguments: families)
    func ephemeralPort(address: SocketAddress) throws {
        let socket = try UDPSocket(bindingTo: address)
        #expect(socket.localAddress.port != 0)
        #expect(socket.localAddress.family == address.family)
        #expect(socket.localAddress.with(port: 0) == address)
        #expect(throws: TransportError.self) { try UDPSocket(bindingTo: socket.localAddress) }
    }

    @Test("A datagram larger than its buffer is flagged truncated (MSG_TRUNC) and counted")
    func truncation() throws {
        let sender = try UDPSocket(bindingTo: .ipv4Loopback())
        let receiver = try UDPSocket(bindingTo: .ipv4Loopback())
        let bigPool = PacketBufferPool(initialCount: 2)
        let smallPool = PacketBufferPool(initialCount: 2, bufferSize: 256, headroom: 16)
        let batch = UDPMessageBatch()
        let big = bigPool.take()!, small = bigPool.take()!
        Support.fill(big, sequence: 1, length: 1000)
        Support.fill(small, sequence: 2, length: 200)
        big.peer = receiver.localAddress
        small.peer = receiver.localAddress
        #expect(try sender.send([big, small], batch: batch) == .processed(2))

        let slots = [smallPool.take()!, smallPool.take()!]
        var received = 0
        while received < 2 {
            #expect(try receiver.waitUntilReadable(timeoutNanoseconds: 5_000_000_000))
            received += try receiver.receive(into: Array(slots[received...]), batch: batch).count
        }
        #expect(slots[0].isTruncated)
        #expect(slots[0].length == 256 - 16)
        #expect(!slots[1].isTruncated)
        #expect(Support.sequence(of: slots[1]) == 2)
        #expect(receiver.truncatedCount == 1)
    }

    @Test("Receive stamps buffers with the injected clock")
    func receiveTimestampFromClock() throws {
        let clock = ManualClock(start: 123_456_789)
        let sender = try UDPSocket(bindingTo: .ipv4Loopback())
        let receiver = try UDPSocket(bindingTo: .ipv4Loopback(), clock: clock)
        let pool = PacketBufferPool(initialCount: 2)
        try Support.send(0..<1, from: sender, to: receiver.localAddress, pool: pool)
        let got = try Support.collect(receiver, count: 1)
        #expect(got.map(\.timestamp) == [123_456_789])
    }

    /// On the system clock the stamp is the kernel's arrival, not the read: a datagram
    /// left waiting 50 ms is stamped at least 50 ms before the read, and not before it was
    /// sent (loopback delivers during the send). Both code paths: recvmmsg and recvmsg.
    @Test("Receive stamps buffers with the kernel's arrival time on the system clock", arguments: [true, false])
    func receiveTimestampIsTheKernelsArrival(batched: Bool) throws {
        let sender = try UDPSocket(bindingTo: .ipv4Loopback())
        let receiver = try UDPSocket(bindingTo: .ipv4Loopback())
        if !batched { receiver.disableBatchedCalls() }
        #expect(receiver.usesKernelTimestamps)
        let pool = PacketBufferPool(initialCount: 4)
        // The kernel turns its receive stamping on from a workqueue when the first socket
        // asking for stamps appears (net_enable_timestamp); until that has run, a datagram
        // is enqueued unstamped and recvmsg stamps it at the read (a clean-clone CI run on a
        // busy machine, 2026-12-04: "stamped 0.22 ms after the read"). Wait until a probe
        // comes back stamped before its read: at most 100 probes 10 ms apart.
        var stamping = false
        for probe in 0..<100 where !stamping {
            try Support.send(UInt32(100 + probe)..<UInt32(101 + probe), from: sender, to: receiver.localAddress, pool: pool)
            usleep(10_000)
            let beforeProbeRead = MonotonicClock.nanoseconds()
            let echoed = try Support.collect(receiver, count: 1)
            stamping = echoed.count == 1 && echoed[0].timestamp + 5_000_000 <= beforeProbeRead
        }
        try #require(stamping, "the kernel never stamped a datagram before its read")
        let beforeSend = MonotonicClock.nanoseconds()
        try Support.send(0..<2, from: sender, to: receiver.localAddress, pool: pool)
        usleep(50_000)
        let beforeRead = MonotonicClock.nanoseconds()
        let got = try Support.collect(receiver, count: 2)
        #expect(got.count == 2)
        // The kernel stamps on CLOCK_REALTIME and the socket turns that into an age against
        // it, so a clock being slewed shifts the stamp: on 2026-12-04 this VM's realtime
        // gained 10 ms on the monotonic clock over 2 s (0.5 %), and the stamps of this 50 ms
        // wait came out 0.25-0.48 ms before the send (a clock slewed the other way moves
        // them later). 1 ms of slack each way still tells the kernel's arrival from the
        // read, which is 50 ms later.
        let slew: UInt64 = 1_000_000
        for (_, stamp, _, _) in got {
            #expect(stamp + slew >= beforeSend && stamp + 50_000_000 <= beforeRead + slew,
                    "stamped \(Int64(beforeRead) - Int64(stamp)) ns before the read, \(Int64(stamp) - Int64(beforeSend)) ns after the send")
        }
        #expect(try UDPSocket(bindingTo: .ipv4Loopback(), clock: ManualClock()).usesKernelTimestamps == false)
    }

    @Test("ICMP port unreachable on a connected socket is counted, not thrown")
    func connectionRefusedIsCounted() throws {
        let port: UInt16 = try {
            let gone = try UDPSocket(bindingTo: .ipv4Loopback())
            defer { gone.close() }
            return gone.localAddress.port
        }()
        let socket = try UDPSocket(bindingTo: .ipv4Loopback())
        try socket.connect(to: .ipv4Loopback(port: port))
        let pool = PacketBufferPool(initialCount: 4)
        let batch = UDPMessageBatch()
        for _ in 0..<10 where socket.connectionRefusedCount == 0 {
            try Support.send(0..<1, from: socket, to: nil, pool: pool)
            _ = try socket.waitUntilReadable(timeoutNanoseconds: 100_000_000)
            let slots = [pool.take()!]
            #expect(try socket.receive(into: slots, batch: batch) == .wouldBlock(0))
            pool.release(slots[0])
        }
        #expect(socket.connectionRefusedCount >= 1)
    }

    @Test("A datagram with no destination on an unconnected socket is dropped and counted")
    func noDestinationIsDroppedNotThrown() throws {
        let socket = try UDPSocket(bindingTo: .ipv4Loopback())
        let receiver = try UDPSocket(bindingTo: .ipv4Loopback())
        let pool = PacketBufferPool(initialCount: 4)
        let lost = pool.take()!, fine = pool.take()!
        Support.fill(lost, sequence: 1, length: 10)
        Support.fill(fine, sequence: 2, length: 10)
        fine.peer = receiver.localAddress
        #expect(try socket.send([lost, fine], batch: UDPMessageBatch()) == .processed(2))
        #expect(socket.sendDroppedCount == 1)
        #expect(try Support.collect(receiver, count: 1).map(\.sequence) == [2])
    }

    @Test("A closed socket throws .closed")
    func closedSocketThrows() throws {
        let socket = try UDPSocket(bindingTo: .ipv4Loopback())
        socket.close()
        socket.close()
        #expect(throws: TransportError(.closed, "the socket is closed")) {
            try socket.receive(into: [], batch: UDPMessageBatch())
        }
    }

    @Test("Asking for bigger kernel buffers never gives smaller ones")
    func bufferSizing() throws {
        let plain = try UDPSocket(bindingTo: .ipv4Loopback())
        let sized = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 2 << 20, sendBufferBytes: 2 << 20)
        // 2 MiB is above the kernel's default (212 992 here), so asking must change something.
        #expect(sized.receiveBufferBytes > plain.receiveBufferBytes)
        #expect(sized.sendBufferBytes > plain.sendBufferBytes)
        #expect(sized.receiveBufferBytes > 0)
    }

    @Test("The pool does not grow while sockets move batches in steady state")
    func steadyStateDoesNotAllocateBuffers() throws {
        let sender = try UDPSocket(bindingTo: .ipv4Loopback())
        let receiver = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 1 << 20)
        let pool = PacketBufferPool(initialCount: 64, maximumCount: 1024)
        let batch = UDPMessageBatch(capacity: 32)
        var incoming = 0
        for round in 0..<100 {
            let outgoing = (0..<32).map { index -> PacketBuffer in
                let buffer = pool.take()!
                Support.fill(buffer, sequence: UInt32(round * 32 + index), length: 1200)
                buffer.peer = receiver.localAddress
                return buffer
            }
            #expect(try sender.send(outgoing, batch: batch) == .processed(32))
            for buffer in outgoing { pool.release(buffer) }
            let slots = (0..<32).map { _ in pool.take()! }
            var got = 0
            while got < 32 {
                _ = try receiver.waitUntilReadable(timeoutNanoseconds: 5_000_000_000)
                got += try receiver.receive(into: Array(slots[got...]), batch: batch).count
            }
            incoming += got
            for buffer in slots { pool.release(buffer) }
        }
        #expect(incoming == 3200)
        #expect(pool.createdCount == 64)
        #expect(pool.availableCount == 64)
    }
}
