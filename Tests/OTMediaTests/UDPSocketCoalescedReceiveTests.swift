import Glibc
import Testing
@testable import OTMedia

/// `UDPSocket(receiveCoalescing:)`: with UDP GRO on, a run of equal datagrams that a
/// local sender sent as one GSO message is read as one message whose `segmentSize` cuts
/// it back into the same datagrams; without it, one datagram per message as always; a
/// buffer too short for a coalesced message gets it flagged truncated, not half-read.
@Suite struct UDPSocketCoalescedReceiveTests {
    typealias Support = TransportTestSupport

    /// 20 datagrams of 1,000 bytes and a last one of 300 (one GSO message: one run).
    static let sizes = Array(repeating: 1_000, count: 20) + [300]

    /// Sends `sizes` (sequence numbers 0...) from a fresh socket to `receiver` as one
    /// segmented send; returns the sender.
    static func sendRun(to receiver: UDPSocket) throws -> UDPSocket {
        let sender = try UDPSocket(bindingTo: .ipv4Loopback())
        let pool = PacketBufferPool(initialCount: sizes.count, maximumCount: sizes.count, bufferSize: 2_048, headroom: 0)
        let buffers = sizes.enumerated().map { index, size -> PacketBuffer in
            let buffer = pool.take()!
            Support.fill(buffer, sequence: UInt32(index), length: size)
            buffer.peer = receiver.localAddress
            return buffer
        }
        #expect(try sender.sendSegmented(buffers, batch: UDPMessageBatch(capacity: 32)) == .processed(sizes.count))
        #expect(sender.segmentedDatagramCount == sizes.count)
        for buffer in buffers { pool.release(buffer) }
        return sender
    }

    /// Reads messages into `bufferSize`-byte buffers until `datagrams` datagrams (cut at
    /// each message's segment size) or a truncated message came; returns the messages.
    static func readMessages(_ socket: UDPSocket, datagrams: Int, bufferSize: Int) throws -> [(length: Int, segmentSize: Int, truncated: Bool, pieces: [(sequence: UInt32?, length: Int)])] {
        let pool = PacketBufferPool(initialCount: 4, maximumCount: 4, bufferSize: bufferSize, headroom: 0)
        let buffers = (0 ..< 4).map { _ in pool.take()! }
        let piece = PacketBufferPool(initialCount: 1, maximumCount: 1, bufferSize: 2_048, headroom: 0).take()!
        let batch = UDPMessageBatch(capacity: 4)
        var messages: [(length: Int, segmentSize: Int, truncated: Bool, pieces: [(sequence: UInt32?, length: Int)])] = []
        var seen = 0
        let deadline = MonotonicClock.nanoseconds() + 10_000_000_000
        while seen < datagrams, !messages.contains(where: \.truncated), MonotonicClock.nanoseconds() < deadline {
            _ = try socket.waitUntilReadable(timeoutNanoseconds: 50_000_000)
            let count = try socket.receive(into: buffers, batch: batch).count
            for buffer in buffers.prefix(count) {
                var pieces: [(sequence: UInt32?, length: Int)] = []
                let bytes = buffer.bytes
                let step = buffer.segmentSize > 0 ? buffer.segmentSize : max(bytes.count, 1)
                var offset = 0
                while offset < bytes.count, !buffer.isTruncated {
                    let end = min(offset + step, bytes.count)
                    piece.reset()
                    piece.assign(UnsafeRawBufferPointer(rebasing: bytes[offset ..< end]))
                    pieces.append((Support.sequence(of: piece), end - offset))
                    offset = end
                }
                seen += pieces.count
                messages.append((buffer.length, buffer.segmentSize, buffer.isTruncated, pieces))
            }
        }
        return messages
    }

    @Test("The kernel here takes UDP_GRO (the edge's receive path counts on it for its figures)")
    func kernelHasReceiveCoalescing() throws {
        #expect(try UDPSocket(bindingTo: .ipv4Loopback(), receiveCoalescing: true).usesReceiveCoalescing)
        #expect(try !UDPSocket(bindingTo: .ipv4Loopback()).usesReceiveCoalescing)
    }

    @Test("A GSO run arrives as one message that cuts back into the same datagrams")
    func aRunArrivesAsOneMessage() throws {
        let receiver = try UDPSocket(bindingTo: .ipv4Loopback(), receiveCoalescing: true)
        _ = try Self.sendRun(to: receiver)
        let messages = try Self.readMessages(receiver, datagrams: Self.sizes.count, bufferSize: 65_535)
        #expect(messages.count == 1)
        #expect(messages.first?.segmentSize == 1_000)
        #expect(messages.first?.length == 20_300)
        let pieces = messages.flatMap(\.pieces)
        #expect(pieces.map(\.sequence) == (0 ..< Self.sizes.count).map { UInt32($0) })
        #expect(pieces.map(\.length) == Self.sizes)
        #expect(receiver.coalescedDatagramCount == Self.sizes.count)
        #expect(receiver.truncatedCount == 0)
    }

    @Test("Without coalescing the same run arrives one datagram per message")
    func withoutCoalescingOneDatagramPerMessage() throws {
        let receiver = try UDPSocket(bindingTo: .ipv4Loopback())
        _ = try Self.sendRun(to: receiver)
        let messages = try Self.readMessages(receiver, datagrams: Self.sizes.count, bufferSize: 2_048)
        #expect(messages.count == Self.sizes.count)
        #expect(messages.allSatisfy { $0.segmentSize == 0 && !$0.truncated })
        #expect(messages.flatMap(\.pieces).map(\.sequence) == (0 ..< Self.sizes.count).map { UInt32($0) })
        #expect(receiver.coalescedDatagramCount == 0)
    }

    /// The buffer limit: a coalesced message longer than its buffer is flagged, counted
    /// and not cut (its datagrams are lost together, never read in part).
    @Test("A coalesced message longer than its buffer is flagged truncated")
    func aShortBufferTruncatesTheWholeMessage() throws {
        let receiver = try UDPSocket(bindingTo: .ipv4Loopback(), receiveCoalescing: true)
        _ = try Self.sendRun(to: receiver)
        let messages = try Self.readMessages(receiver, datagrams: Self.sizes.count, bufferSize: 20_299)
        #expect(messages.count == 1)
        #expect(messages.first?.truncated == true)
        #expect(messages.first?.pieces.isEmpty == true)
        #expect(receiver.truncatedCount == 1)
    }
}
