import OTMedia
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// The forwarding thread's fan-out on the edge: a burst from the publisher goes out to
/// every edge subscriber as one batch from the edge's port (`ForwardingHandler.flushAll`),
/// each leg's equal-sized packets as UDP GSO runs (`UDPSocket.sendSegmented`); each
/// subscriber must still get every packet, decryptable, whole and in order.
@Suite(.serialized) struct EdgeFanOutBurstTests {
    @Test func aBurstReachesFourEdgeSubscribersWholeAndInOrder() throws {
        let rig = try EdgeRouterRig()
        let (publisherLeg, publisher) = try rig.publisher()
        let subscribers = try (0..<4).map { try rig.subscriber("s\($0)") }
        let audio = try #require(publisherLeg.audioSSRC)
        // First packets until every leg is reachable (keys and address taken by the thread).
        var sequence: UInt16 = 100
        var ready = false
        for _ in 0..<400 where !ready {
            try publisher.sendRTP(edgeRTP(sequence: sequence, ssrc: audio, payloadType: 111, payload: edgeAudioPayload(sequence)))
            sequence &+= 1
            ready = true
            for (leg, client) in subscribers where try client.drainRTP(ssrc: leg.audioSSRC ?? 0, quiet: 0.02).isEmpty {
                ready = false
            }
        }
        #expect(ready, "every subscriber got a packet before the burst")
        for (leg, client) in subscribers { _ = try client.drainRTP(ssrc: leg.audioSSRC ?? 0, quiet: 0.2) }
        // The burst: 120 packets of one size, as fast as the publisher can send them.
        let burst = 120
        let first = sequence
        for offset in 0..<burst {
            let number = first &+ UInt16(offset)
            try publisher.sendRTP(edgeRTP(sequence: number, ssrc: audio, payloadType: 111, payload: edgeAudioPayload(number)))
        }
        for (index, (leg, client)) in subscribers.enumerated() {
            var packets: [[UInt8]] = []
            let deadline = MonotonicClock.nanoseconds() + 30_000_000_000
            while packets.count < burst, MonotonicClock.nanoseconds() < deadline {
                packets += try client.drainRTP(ssrc: leg.audioSSRC ?? 0, quiet: 0.5)
            }
            #expect(packets.count == burst, "subscriber \(index) got \(packets.count) of \(burst)")
            let sequences = packets.map { edgeBE16($0, 2) }
            #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "subscriber \(index): \(sequences)")
            let named = packets.map { edgePayload($0) }.map { UInt16($0[1]) << 8 | UInt16($0[2]) }
            #expect(named == (0..<packets.count).map { first &+ UInt16($0) }, "subscriber \(index) payloads")
        }
        let socket = rig.edge.sendSocket
        #expect(socket.usesSegmentation && socket.segmentationFallbackCount == 0)
        // Some of the burst went out in GSO runs (how many depends on how the thread's
        // drains cut it: at least one run of two in 4 x 120 packets).
        #expect(socket.segmentedDatagramCount >= 2, "\(socket.segmentedDatagramCount) datagrams in GSO runs")
        print("edge fan-out burst: \(socket.segmentedDatagramCount) of \(4 * burst) datagrams went out in GSO runs")
        #expect(socket.sendDroppedCount == 0)
        let counters = try #require(rig.router.counters(streamId: "s1"))
        #expect(counters.packetsDropped == 0, "\(counters)")
    }
}
