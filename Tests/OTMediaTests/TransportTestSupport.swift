import Glibc
@testable import OTMedia

/// Helpers shared by the UDP, pipeline-thread and impairment tests.
enum TransportTestSupport {
    /// True when this machine can bind ::1 (containers sometimes have IPv6 off).
    static let ipv6Available: Bool = (try? UDPSocket(bindingTo: .ipv6Loopback())) != nil

    /// Polls `condition` every millisecond until it holds; gives up after `seconds` (a
    /// failsafe against hangs, never a timing assertion). Returns the last value.
    static func waitUntil(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
        while !condition() {
            if MonotonicClock.nanoseconds() > deadline { return false }
            usleep(1000)
        }
        return true
    }

    /// Writes `sequence` big-endian into the first 4 bytes of `buffer`, then `length - 4`
    /// bytes of a pattern derived from it.
    static func fill(_ buffer: PacketBuffer, sequence: UInt32, length: Int) {
        let bytes = buffer.writableBytes
        bytes.storeBytes(of: sequence.bigEndian, as: UInt32.self)
        for index in 4..<length { bytes[index] = UInt8(truncatingIfNeeded: Int(sequence) &* 31 &+ index) }
        buffer.setLength(length)
    }

    /// The sequence number `fill` wrote, or nil if the bytes do not match the pattern.
    static func sequence(of buffer: PacketBuffer) -> UInt32? {
        let bytes = buffer.bytes
        guard bytes.count >= 4 else { return nil }
        let sequence = UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self))
        for index in 4..<bytes.count where bytes[index] != UInt8(truncatingIfNeeded: Int(sequence) &* 31 &+ index) {
            return nil
        }
        return sequence
    }

    /// Receives until `count` datagrams have arrived on `socket` (or the failsafe expires)
    /// and returns their sequence numbers and receive timestamps, in arrival order.
    static func collect(
        _ socket: UDPSocket, count: Int, seconds: Double = 20
    ) throws -> [(sequence: UInt32?, timestamp: UInt64, length: Int, peer: SocketAddress?)] {
        var result: [(sequence: UInt32?, timestamp: UInt64, length: Int, peer: SocketAddress?)] = []
        let batch = UDPMessageBatch(capacity: 32)
        let pool = PacketBufferPool(initialCount: 32)
        let buffers = (0..<32).map { _ in pool.take()! }
        defer { for buffer in buffers { pool.release(buffer) } }
        let deadline = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
        while result.count < count && MonotonicClock.nanoseconds() < deadline {
            _ = try socket.waitUntilReadable(timeoutNanoseconds: 50_000_000)
            let received = try socket.receive(into: buffers, batch: batch).count
            for buffer in buffers.prefix(received) {
                result.append((sequence(of: buffer), buffer.receiveTimestamp, buffer.length, buffer.peer))
            }
        }
        return result
    }

    /// Sends datagrams with sequence numbers `range` (each `length` bytes) from `socket`
    /// to `peer`, `batchSize` per `sendmmsg`, calling `afterBatch` after each batch (to
    /// pace the sender against a consumer).
    static func send(
        _ range: Range<UInt32>, length: Int = 100, from socket: UDPSocket, to peer: SocketAddress?,
        pool: PacketBufferPool, batchSize: Int = 50, afterBatch: (Int) -> Void = { _ in }
    ) throws {
        let batch = UDPMessageBatch(capacity: 32)
        var sent = 0
        var next = range.lowerBound
        while next < range.upperBound {
            let end = min(next + UInt32(batchSize), range.upperBound)
            let buffers = (next..<end).map { sequence -> PacketBuffer in
                let buffer = pool.take()!
                fill(buffer, sequence: sequence, length: length)
                buffer.peer = peer
                return buffer
            }
            var offset = 0
            while offset < buffers.count {
                let rest = Array(buffers[offset...])
                let result = try socket.send(rest, batch: batch)
                offset += result.count
                if case .wouldBlock = result { _ = waitUntil(seconds: 0.001) { false } }
            }
            for buffer in buffers { pool.release(buffer) }
            sent += buffers.count
            afterBatch(sent)
            next = end
        }
    }
}
