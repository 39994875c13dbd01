import Foundation
import OTMedia
import Synchronization

/// Sends junk datagrams to the given addresses from its own socket and thread, round
/// after round: random bytes, RTP and RTCP headers with garbage after them (they fail
/// SRTP authentication), truncated headers and datagrams bigger than a packet buffer.
/// Counts what it sent and what came back to its socket. For robustness tests of
/// pipelines and the router. Cost: one thread and one UDP socket; a round sends one
/// datagram per target, then sleeps `pause` microseconds.
public final class JunkSender: @unchecked Sendable {
    private let socket: UDPSocket
    private let targets: [SocketAddress]
    private let pause: UInt32
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)
    /// Datagrams sent so far.
    public let sent = Atomic<Int>(0)
    /// Datagrams that came back to the sender's socket.
    public let received = Atomic<Int>(0)

    /// Starts sending at once. `random` makes the bytes (a seeded generator makes runs
    /// repeat); `pause` is the sleep between rounds in microseconds.
    public init<Random: RandomNumberGenerator & Sendable>(
        targets: [SocketAddress], random: Random = SystemRandomNumberGenerator(), pause: UInt32 = 2_000
    ) throws {
        socket = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 1 << 20, sendBufferBytes: 1 << 20)
        self.targets = targets
        self.pause = pause
        Thread { [self] in spray(random) }.start()
    }

    private func spray<Random: RandomNumberGenerator>(_ random: Random) {
        var generator = random
        let pool = PacketBufferPool(initialCount: 40, bufferSize: 4096)
        let batch = UDPMessageBatch(capacity: 32)
        var round = 0
        while running.load(ordering: .relaxed) {
            for target in targets {
                guard let buffer = pool.take() else { continue }
                let kind = round % 5
                let length = [40, 1300, 7, 60, 3000][kind]
                let bytes = buffer.writableBytes
                for i in 0..<length { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
                switch kind {
                case 0, 1: bytes[0] = 0x80; bytes[1] = 96      // RTP, video PT, garbage body: bad tag
                case 2: bytes[0] = 0x80                          // truncated header
                case 3: bytes[0] = 0x81; bytes[1] = 201          // RTCP RR-looking junk
                default: break                                   // bigger than a receive buffer
                }
                buffer.setLength(length)
                buffer.peer = target
                _ = try? socket.send([buffer], batch: batch)
                pool.release(buffer)
                sent.add(1, ordering: .relaxed)
            }
            var inbound: [PacketBuffer] = []
            for _ in 0..<8 { if let b = pool.take() { inbound.append(b) } }
            if case .processed(let n)? = try? socket.receive(into: inbound, batch: batch) { received.add(n, ordering: .relaxed) }
            for b in inbound { pool.release(b) }
            round += 1
            usleep(pause)
        }
        finished.store(true, ordering: .releasing)
    }

    /// Stops sending, waits for the thread to finish and closes the socket.
    public func stop() {
        running.store(false, ordering: .relaxed)
        while !finished.load(ordering: .acquiring) { usleep(1_000) }
        socket.close()
    }
}
