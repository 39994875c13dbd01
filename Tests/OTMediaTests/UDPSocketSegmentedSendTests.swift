import Glibc
import Testing
@testable import OTMedia

/// `UDPSocket.sendSegmented`: runs of equal datagrams to one peer go to the kernel as one
/// UDP GSO message; whatever the grouping, each receiver gets the same datagrams, in order
/// and intact, as with one message per datagram.
@Suite struct UDPSocketSegmentedSendTests {
    typealias Support = TransportTestSupport

    /// `segmented`: GSO on (where the kernel has it) or turned off (the fallback).
    static let cases: [(SocketAddress, Bool)] =
        ([.ipv4Loopback()] + (Support.ipv6Available ? [.ipv6Loopback()] : [])).flatMap { [($0, true), ($0, false)] }

    @Test("Fan-out batches arrive as the same datagrams, in order, at every receiver", arguments: cases)
    func fanOutArrivesIntact(address: SocketAddress, segmented: Bool) throws {
        let sender = try UDPSocket(bindingTo: address, sendBufferBytes: 4 << 20)
        if !segmented { sender.disableSegmentation() }
        let receivers = try (0..<3).map { _ in try UDPSocket(bindingTo: address, receiveBufferBytes: 4 << 20) }
        let pool = PacketBufferPool(initialCount: 512, maximumCount: 1024, bufferSize: 2048, headroom: 0)
        let batch = UDPMessageBatch(capacity: 512)
        // Per receiver: 100 datagrams of 1,250 bytes (more than one GSO message holds), then a
        // shorter one (ends a run), then sizes that change every datagram, then 70 more equal ones.
        var sizes: [Int] = Array(repeating: 1250, count: 100) + [700] + (0..<9).map { 100 + $0 * 13 }
        sizes += Array(repeating: 900, count: 70)
        var outgoing: [PacketBuffer] = []
        for receiver in receivers {
            for (index, size) in sizes.enumerated() {
                let buffer = pool.take()!
                Support.fill(buffer, sequence: UInt32(index), length: size)
                buffer.peer = receiver.localAddress
                outgoing.append(buffer)
            }
        }
        #expect(try sender.sendSegmented(outgoing, batch: batch) == .processed(outgoing.count))
        for buffer in outgoing { pool.release(buffer) }
        for receiver in receivers {
            let got = try Support.collect(receiver, count: sizes.count)
            #expect(got.count == sizes.count)
            #expect(got.map(\.sequence) == (0..<sizes.count).map { UInt32($0) })
            #expect(got.map(\.length) == sizes)
            #expect(got.allSatisfy { $0.peer == sender.localAddress })
        }
        #expect(sender.sendDroppedCount == 0)
        #expect(sender.segmentationFallbackCount == 0)
        if segmented {
            // 100 + 1 in runs of 48 (60,000 / 1,250), 48, 5; 70 in runs of 64 and 6; per receiver.
            #expect(sender.segmentedDatagramCount == 3 * 171)
        } else {
            #expect(!sender.usesSegmentation)
            #expect(sender.segmentedDatagramCount == 0)
        }
    }

    @Test("The kernel here does UDP GSO (the forwarding path's fan-out relies on it for its figures)")
    func kernelHasSegmentation() throws {
        let socket = try UDPSocket(bindingTo: .ipv4Loopback())
        #expect(socket.usesSegmentation)
    }

    @Test("A datagram without a destination inside a run is dropped and counted; the rest arrive")
    func noDestinationInsideARun() throws {
        let sender = try UDPSocket(bindingTo: .ipv4Loopback())
        let receiver = try UDPSocket(bindingTo: .ipv4Loopback())
        let pool = PacketBufferPool(initialCount: 8, bufferSize: 2048, headroom: 0)
        let buffers = (0..<6).map { index -> PacketBuffer in
            let buffer = pool.take()!
            Support.fill(buffer, sequence: UInt32(index), length: 500)
            if index != 3 { buffer.peer = receiver.localAddress }
            return buffer
        }
        #expect(try sender.sendSegmented(buffers, batch: UDPMessageBatch(capacity: 8)) == .processed(6))
        #expect(sender.sendDroppedCount == 1)
        #expect(try Support.collect(receiver, count: 5).map(\.sequence) == [0, 1, 2, 4, 5])
        #expect(sender.usesSegmentation)
    }

    @Test("segmentRun groups equal sizes to one peer, ends at a shorter one and at the limits")
    func runRules() throws {
        let pool = PacketBufferPool(initialCount: 200, maximumCount: 200, bufferSize: 2048, headroom: 0)
        let a = SocketAddress(ipv4: "127.0.0.1", port: 1000)!, b = SocketAddress(ipv4: "127.0.0.1", port: 1001)!
        func make(_ specs: [(Int, SocketAddress)]) -> [PacketBuffer] {
            specs.map { size, peer in
                let buffer = pool.take()!
                Support.fill(buffer, sequence: 0, length: size)
                buffer.peer = peer
                return buffer
            }
        }
        let mixed = make([(1000, a), (1000, a), (800, a), (1000, a), (1000, b), (1200, b)])
        #expect(UDPMessageBatch.segmentRun(mixed, first: 0, limit: mixed.count) == 3)  // ends with the shorter one
        #expect(UDPMessageBatch.segmentRun(mixed, first: 3, limit: mixed.count) == 1)  // next peer differs
        #expect(UDPMessageBatch.segmentRun(mixed, first: 4, limit: mixed.count) == 1)  // next one is larger
        #expect(UDPMessageBatch.segmentRun(mixed, first: 0, limit: 2) == 2)
        for buffer in mixed { pool.release(buffer) }
        let many = make(Array(repeating: (1000, a), count: 100))
        #expect(UDPMessageBatch.segmentRun(many, first: 0, limit: 100) == 60)  // 60,000 bytes
        for buffer in many { pool.release(buffer) }
        let small = make(Array(repeating: (100, a), count: 100))
        #expect(UDPMessageBatch.segmentRun(small, first: 0, limit: 100) == UDPMessageBatch.maximumSegments)
        for buffer in small { pool.release(buffer) }
    }
}
