import OTMedia
@testable import OTRouter
import OTTestSupport
import Testing

/// Receive coalescing (UDP GRO) on the edge's workers: a client's burst sent as one GSO
/// message reaches the worker as one message, which cuts it back into the client's
/// packets, in order, each checked on its own; the packet size limit still holds per
/// datagram; with coalescing off the same burst arrives one datagram per message.
@Suite struct EdgeReceiveCoalescingTests {
    /// `count` RTP packets of `payload` bytes each (the last `lastPayload` bytes, when
    /// given), sequence numbers from `first` on.
    static func burst(_ count: Int, payload: Int, lastPayload: Int? = nil, first: Int = 1, ssrc: UInt32 = 0x00C0_FFEE) -> [[UInt8]] {
        (0 ..< count).map { index in
            let size = index == count - 1 ? lastPayload ?? payload : payload
            return rtpPacket(sequence: UInt16(first + index), ssrc: ssrc, payload: (0 ..< size).map { UInt8(truncatingIfNeeded: $0 &+ index) })
        }
    }

    @Test func aBurstInOneMessageIsCutIntoItsPacketsInOrder() throws {
        let fixture = try EdgeFixture(workers: 1)
        #expect(fixture.edge.usesReceiveCoalescing)
        let client = try fixture.connected(1)
        let packets = Self.burst(21, payload: 1_000, lastPayload: 400)
        #expect(try client.sendRTPRun(packets) == 21)  // one GSO message on the wire
        let id = EdgeLegID(1)
        #expect(edgeEventually { fixture.inbox.received(id).count == 21 })
        #expect(fixture.inbox.received(id) == packets.map { .init(bytes: $0, isRTCP: false) })
        let counters = fixture.edge.counters
        #expect(counters.coalescedDatagrams == 21)
        #expect(counters.rtpPackets == 21 && counters.mediaDelivered == 21)
        #expect(counters.unknownPackets == 0 && counters.srtpAuthFailures == 0)
    }

    @Test func aForgedPacketInsideACoalescedMessageIsDroppedAlone() throws {
        let fixture = try EdgeFixture(workers: 1)
        let client = try fixture.connected(1)
        let packets = Self.burst(12, payload: 800)
        #expect(try client.sendRTPRun(packets, corrupt: [0, 5, 11]) == 12)
        let id = EdgeLegID(1)
        #expect(edgeEventually { fixture.edge.counters.srtpAuthFailures == 3 })
        #expect(edgeEventually { fixture.inbox.received(id).count == 9 })
        let delivered = packets.enumerated().filter { ![0, 5, 11].contains($0.offset) }.map { EdgeInbox.Packet(bytes: $0.element, isRTCP: false) }
        #expect(fixture.inbox.received(id) == delivered)
        #expect(fixture.edge.counters.coalescedDatagrams == 12)
    }

    /// The limit is per datagram: 1,300 bytes on the wire pass, 1,301 do not, whether
    /// they come coalesced or alone; the leg keeps working.
    @Test func theDatagramSizeLimitHoldsInsideCoalescedMessages() throws {
        let fixture = try EdgeFixture(workers: 1) { $0.maximumPacketBytes = 1_300 }
        let client = try fixture.connected(1)
        let overhead = 12 + (try #require(client.keys)).profile.rtpTagLength  // RTP header + SRTP tag
        let id = EdgeLegID(1)

        #expect(try client.sendRTPRun(Self.burst(6, payload: 1_301 - overhead)) == 6)
        #expect(edgeEventually { fixture.edge.counters.unknownPackets == 6 })
        try client.sendRTP(Self.burst(1, payload: 1_301 - overhead, first: 7)[0])
        #expect(edgeEventually { fixture.edge.counters.unknownPackets == 7 })
        #expect(fixture.inbox.received(id).isEmpty)

        let fitting = Self.burst(6, payload: 1_300 - overhead, first: 8)
        #expect(try client.sendRTPRun(fitting) == 6)
        #expect(edgeEventually { fixture.inbox.received(id).count == 6 })
        #expect(fixture.inbox.received(id) == fitting.map { .init(bytes: $0, isRTCP: false) })
        #expect(fixture.edge.counters.coalescedDatagrams == 12)
        #expect(fixture.edge.counters.unknownPackets == 7)
    }

    @Test func withCoalescingOffTheSameBurstArrivesOneDatagramPerMessage() throws {
        let fixture = try EdgeFixture(workers: 1) { $0.receiveCoalescing = false }
        #expect(!fixture.edge.usesReceiveCoalescing)
        let client = try fixture.connected(1)
        let packets = Self.burst(21, payload: 1_000, lastPayload: 400)
        #expect(try client.sendRTPRun(packets) == 21)
        let id = EdgeLegID(1)
        #expect(edgeEventually { fixture.inbox.received(id).count == 21 })
        #expect(fixture.inbox.received(id) == packets.map { .init(bytes: $0, isRTCP: false) })
        #expect(fixture.edge.counters.coalescedDatagrams == 0)
        #expect(fixture.edge.counters.mediaDelivered == 21)
    }
}
