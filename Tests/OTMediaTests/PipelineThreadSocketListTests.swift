import Foundation
import Synchronization
import Testing
@testable import OTMedia

/// Reads whichever sockets it was last given, counting datagrams per socket; a new list
/// posted from the test goes to the thread through `updatedSockets` after a wake-up.
final class SocketListHandler: PipelineHandler, @unchecked Sendable {
    let posted = Mutex<[UDPSocket]?>(nil)
    /// Datagrams read, by the socket's port (whatever index it had at the time).
    let counts = Mutex<[UInt16: Int]>([:])
    let starts = Atomic<Int>(0)
    let switches = Atomic<Int>(0)
    private var sockets: [UDPSocket]
    private let pool = PacketBufferPool(initialCount: 8)
    private let batch = UDPMessageBatch(capacity: 8)
    private var slots: [PacketBuffer] = []

    init(sockets: [UDPSocket]) { self.sockets = sockets }

    func pipelineStarted(now: UInt64) {
        slots = (0..<8).map { _ in pool.take()! }
        starts.add(1, ordering: .relaxed)
    }

    func socketReadable(_ index: Int, now: UInt64) {
        let socket = sockets[index]
        while let result = try? socket.receive(into: slots, batch: batch), result.count > 0 {
            counts.withLock { $0[socket.localAddress.port, default: 0] += result.count }
        }
    }

    func updatedSockets() -> [UDPSocket]? {
        guard let next = posted.withLock({ list -> [UDPSocket]? in defer { list = nil }; return list }) else { return nil }
        sockets = next
        switches.add(1, ordering: .releasing)
        return next
    }

    func count(_ socket: UDPSocket) -> Int { counts.withLock { $0[socket.localAddress.port, default: 0] } }
}

@Suite struct PipelineThreadSocketListTests {
    typealias Support = TransportTestSupport

    @Test("A running thread takes up a new socket list after a wake-up, without a restart")
    func socketsJoinAndLeaveARunningThread() throws {
        let a = try UDPSocket(bindingTo: .ipv4Loopback()), b = try UDPSocket(bindingTo: .ipv4Loopback())
        let sender = try UDPSocket(bindingTo: .ipv4Loopback())
        let pool = PacketBufferPool(initialCount: 64)
        let handler = SocketListHandler(sockets: [a])
        let thread = try PipelineThread(name: "otkit-test-list", sockets: [a], handler: handler)
        defer { thread.stop() }

        try Support.send(0..<5, from: sender, to: b.localAddress, pool: pool)
        try Support.send(0..<3, from: sender, to: a.localAddress, pool: pool)
        #expect(Support.waitUntil { handler.count(a) == 3 })
        #expect(handler.count(b) == 0, "b is not polled yet")

        handler.posted.withLock { $0 = [a, b] }
        thread.wake()
        // b's 5 queued datagrams are read once b is in the list (readiness is level-triggered).
        #expect(Support.waitUntil { handler.count(b) == 5 })

        handler.posted.withLock { $0 = [b] }
        thread.wake()
        #expect(Support.waitUntil { handler.switches.load(ordering: .acquiring) == 2 })
        try Support.send(0..<4, from: sender, to: a.localAddress, pool: pool)
        try Support.send(0..<2, from: sender, to: b.localAddress, pool: pool)
        #expect(Support.waitUntil { handler.count(b) == 7 })
        usleep(50_000)
        #expect(handler.count(a) == 3, "a left the list: nothing more is read from it")
        #expect(handler.starts.load(ordering: .relaxed) == 1 && thread.isRunning, "one thread all along")
    }
}
