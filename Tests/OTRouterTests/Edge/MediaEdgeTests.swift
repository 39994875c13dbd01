import Glibc
import OTMedia
@testable import OTRouter
import OTTestSupport
import Testing

/// The one-port media edge end to end over real loopback sockets: a native client does
/// ICE, DTLS (client) and SRTP against it with the project's own parts.
@Suite struct MediaEdgeTests {
    @Test func rtpAndRTCPArriveDecryptedAndTheEdgeSendsBack() throws {
        let fixture = try EdgeFixture()
        let client = try fixture.connected(1)
        let id = EdgeLegID(1)
        #expect(fixture.edge.isConnected(id))
        #expect(fixture.edge.selectedAddress(of: id) == client.socket.localAddress)

        let rtp = rtpPacket(sequence: 7, ssrc: 0x1234_5678, payload: Array(0 ..< 200))
        let rtcp = rtcpPacket(ssrc: 0x1234_5678)
        try client.sendRTP(rtp)
        try client.sendRTCP(rtcp)
        #expect(edgeEventually { fixture.inbox.received(id).count == 2 })
        #expect(fixture.inbox.received(id) == [.init(bytes: rtp, isRTCP: false), .init(bytes: rtcp, isRTCP: true)])

        let down = rtpPacket(sequence: 9, ssrc: 0xCAFE, payload: [1, 2, 3, 4, 5])
        try down.withUnsafeBytes { try fixture.edge.send(leg: id, rtp: $0) }
        let first = try #require(try client.receiveMedia())
        #expect(first.packet == down && !first.isRTCP)
        let downRTCP = rtcpPacket(ssrc: 0xCAFE)
        try downRTCP.withUnsafeBytes { try fixture.edge.send(leg: id, rtcp: $0) }
        let second = try #require(try client.receiveMedia())
        #expect(second.packet == downRTCP && second.isRTCP)

        let counters = fixture.edge.counters
        #expect(counters.handshakesStarted == 1 && counters.handshakesCompleted == 1)
        #expect(counters.mediaDelivered == 2 && counters.mediaSent == 2 && counters.srtpAuthFailures == 0)
    }

    /// The setup needs no key in signaling: what crosses each way has exactly ufrag,
    /// password and fingerprint (plus the port's address), and none of it contains the
    /// SRTP master keys both sides derived.
    @Test func signalingCarriesOnlyUfragPasswordAndFingerprint() throws {
        let fixture = try EdgeFixture(workers: 1)
        let client = try fixture.connected(1)
        let keys = try #require(client.keys)
        #expect(Mirror(reflecting: client.offer).children.map(\.label) == ["ufrag", "password", "fingerprint"])
        #expect(Mirror(reflecting: client.edge).children.map(\.label) == ["address", "credentials", "fingerprint"])
        let exchanged = "\(client.offer) \(client.edge)"
        for material in [keys.local, keys.remote] {
            #expect(!exchanged.contains(material.base64))
            #expect(!exchanged.contains(material.masterKey.map { String($0) }.joined(separator: ", ")))
        }
        // The client's own view of the edge's keys matches what the edge uses: traffic flows.
        try client.sendRTP(rtpPacket(sequence: 1, ssrc: 5, payload: [9]))
        #expect(edgeEventually { fixture.inbox.received(EdgeLegID(1)).count == 1 })
    }

    @Test func twoLegsOnOnePortAreToldApart() throws {
        let fixture = try EdgeFixture()
        let a = try fixture.connected(1)
        let b = try fixture.connected(2)
        #expect(a.edge.address == b.edge.address)
        for sequence in 0 ..< 20 {
            try a.sendRTP(rtpPacket(sequence: UInt16(sequence), ssrc: 0xA, payload: [0xAA]))
            try b.sendRTP(rtpPacket(sequence: UInt16(sequence), ssrc: 0xB, payload: [0xBB]))
        }
        #expect(edgeEventually { fixture.inbox.received(EdgeLegID(1)).count == 20 && fixture.inbox.received(EdgeLegID(2)).count == 20 })
        #expect(fixture.inbox.received(EdgeLegID(1)).allSatisfy { $0.bytes.last == 0xAA })
        #expect(fixture.inbox.received(EdgeLegID(2)).allSatisfy { $0.bytes.last == 0xBB })
        try [UInt8](rtpPacket(sequence: 1, ssrc: 1, payload: [2])).withUnsafeBytes { try fixture.edge.send(leg: EdgeLegID(2), rtp: $0) }
        #expect(try b.receiveMedia()?.packet.last == 2)
        #expect(try a.receiveMedia(timeout: 0.2) == nil)
    }

    @Test func removingALegDoesNotDisturbAnotherThatStreams() throws {
        let fixture = try EdgeFixture()
        let a = try fixture.connected(1)
        let b = try fixture.connected(2)
        let total = 400
        for sequence in 0 ..< total {
            if sequence == total / 2 { fixture.edge.remove(EdgeLegID(1)) }
            try b.sendRTP(rtpPacket(sequence: UInt16(sequence), ssrc: 0xB, payload: [UInt8(sequence & 0xFF)]))
            if sequence % 10 == 0 { usleep(1_000) }
        }
        try a.sendRTP(rtpPacket(sequence: 1, ssrc: 0xA, payload: [1]))
        #expect(edgeEventually { fixture.inbox.received(EdgeLegID(2)).count == total })
        let sequences = fixture.inbox.received(EdgeLegID(2)).map { Int($0.bytes[2]) << 8 | Int($0.bytes[3]) }
        #expect(sequences == Array(0 ..< total))
        #expect(edgeEventually { fixture.edge.counters.mediaWithoutLeg >= 1 })
        #expect(fixture.inbox.received(EdgeLegID(1)).isEmpty)
        #expect(!fixture.edge.isRegistered(EdgeLegID(1)) && fixture.edge.legCount == 1)
        #expect(throws: EdgeError.unknownLeg) {
            try [UInt8](rtpPacket(sequence: 1, ssrc: 1, payload: [])).withUnsafeBytes { try fixture.edge.send(leg: EdgeLegID(1), rtp: $0) }
        }
    }

    /// A nominating check from a new address moves the leg there (RFC 8445 / NAT
    /// rebinding): media from it is accepted with the same keys, and the edge sends there.
    @Test func aLegFollowsItsPeerToANewAddress() throws {
        let fixture = try EdgeFixture()
        let client = try fixture.connected(1)
        let id = EdgeLegID(1)
        let first = client.socket.localAddress
        try client.rebind()
        #expect(client.socket.localAddress != first)
        #expect(try client.checkICE())
        #expect(edgeEventually { fixture.edge.selectedAddress(of: id) == client.socket.localAddress })
        try client.sendRTP(rtpPacket(sequence: 3, ssrc: 3, payload: [3]))
        #expect(edgeEventually { fixture.inbox.received(id).count == 1 })
        try [UInt8](rtpPacket(sequence: 4, ssrc: 4, payload: [4])).withUnsafeBytes { try fixture.edge.send(leg: id, rtp: $0) }
        #expect(try client.receiveMedia()?.packet.last == 4)
    }

    @Test func twoWorkersHandleEveryClient() throws {
        let fixture = try EdgeFixture(workers: 2)
        #expect(fixture.edge.workerCount == 2)
        let clients = try (1 ... 6).map { try fixture.connected(UInt64($0)) }
        for round in 0 ..< 50 {
            for (index, client) in clients.enumerated() {
                try client.sendRTP(rtpPacket(sequence: UInt16(round), ssrc: UInt32(index + 1), payload: [UInt8(index)]))
            }
            usleep(500)
        }
        #expect(edgeEventually { (1 ... 6).allSatisfy { fixture.inbox.received(EdgeLegID(UInt64($0))).count == 50 } })
        #expect(fixture.edge.counters.mediaDelivered == 300)
        #expect(fixture.edge.counters.handshakesCompleted == 6)
    }
}
