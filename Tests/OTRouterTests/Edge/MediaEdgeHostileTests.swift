import Glibc
import OTMedia
@testable import OTRouter
import OTTestSupport
import Testing

/// Hostile input on the one-port edge: each kind is dropped without an answer and
/// counted, and the legs around it keep working.
@Suite struct MediaEdgeHostileTests {
    @Test func badlySignedUnknownOrTruncatedSTUNGetsNoAnswer() throws {
        let fixture = try EdgeFixture()
        let client = try fixture.client(1)

        try client.sendRaw(try client.bindingRequest(integrityKey: "thisIsNotThePassword0123"))
        #expect(try client.receiveRaw(timeout: 0.3) == nil)
        #expect(edgeEventually { fixture.edge.counters.stunBadSignature == 1 })

        try client.sendRaw(try client.bindingRequest(username: "nobody:\(client.credentials.ufrag)"))
        #expect(try client.receiveRaw(timeout: 0.3) == nil)
        #expect(edgeEventually { fixture.edge.counters.stunUnknownUfrag == 1 })

        // The header promises more attribute bytes than arrive: a truncated attribute.
        var truncated = try client.bindingRequest()
        truncated.removeLast(6)
        try client.sendRaw(truncated)
        // An attribute whose length runs past the message's end (oversized).
        var oversized = try client.bindingRequest()
        oversized[22] = 0xFF
        oversized[23] = 0xFF
        try client.sendRaw(oversized)
        #expect(try client.receiveRaw(timeout: 0.3) == nil)
        #expect(edgeEventually { fixture.edge.counters.stunMalformed == 2 })

        #expect(fixture.edge.counters.stunAnswered == 0)
        #expect(fixture.edge.selectedAddress(of: EdgeLegID(1)) == nil)
        // The leg itself is fine: a proper check is answered and the client connects.
        try client.connect()
        #expect(fixture.edge.counters.stunAnswered >= 1)
    }

    @Test func dtlsGarbageIsCountedAndTheLegsKeepWorking() throws {
        let fixture = try EdgeFixture()
        let steady = try fixture.connected(1)
        let late = try fixture.client(2)
        #expect(try late.checkICE())
        var junk = [UInt8](repeating: 0x5A, count: 60)
        junk[0] = 23
        // Before the handshake: a DTLS-looking datagram that is no ClientHello.
        try late.sendRaw(junk)
        // (A retransmitted flight of `steady`'s handshake would count too: hence ≥.)
        #expect(edgeEventually { fixture.edge.counters.dtlsGarbage >= 1 })
        #expect(fixture.edge.counters.handshakesStarted == 1)
        #expect(try late.handshake() == .connected)

        let before = fixture.edge.counters.dtlsGarbage
        // After the handshake: a plaintext (epoch 0) record anyone could forge, and a record
        // that claims more bytes than its datagram holds.
        var forged = junk
        forged[1] = 0xFE
        forged[2] = 0xFD
        forged[3] = 0
        forged[4] = 0
        forged[11] = 0
        forged[12] = 47
        try late.sendRaw(forged)
        forged[4] = 1
        try steady.sendRaw(Array(forged.prefix(20)))
        // From an address no leg selected.
        let stranger = try EdgeClient(edge: late.edge)
        try stranger.sendRaw(junk)
        #expect(edgeEventually { fixture.edge.counters.dtlsGarbage >= before + 3 })

        try late.sendRTP(rtpPacket(sequence: 1, ssrc: 2, payload: [2]))
        try steady.sendRTP(rtpPacket(sequence: 1, ssrc: 1, payload: [1]))
        #expect(edgeEventually { fixture.inbox.received(EdgeLegID(1)).count == 1 && fixture.inbox.received(EdgeLegID(2)).count == 1 })
        try [UInt8](rtpPacket(sequence: 1, ssrc: 1, payload: [3])).withUnsafeBytes { try fixture.edge.send(leg: EdgeLegID(2), rtp: $0) }
        #expect(try late.receiveMedia()?.packet.last == 3)
        #expect(fixture.edge.counters.handshakesFailed == 0)
    }

    @Test func aWrongPeerFingerprintFailsTheHandshake() throws {
        let fixture = try EdgeFixture()
        let impostor = try DTLSCertificate(commonName: "someone else")
        let client = try fixture.client(1, peerFingerprint: impostor.fingerprint)
        #expect(try client.checkICE())
        try client.handshake(timeout: 2)
        #expect(edgeEventually { fixture.edge.counters.handshakesFailed == 1 })
        #expect(fixture.edge.counters.handshakesCompleted == 0)
        #expect(!fixture.edge.isConnected(EdgeLegID(1)))
        #expect(fixture.edge.admissionCounters.inFlight == 0)
        #expect(edgeEventually { fixture.inbox.endings.count == 1 })
        #expect(fixture.inbox.endings.first?.hasPrefix("leg 1: DTLS handshake failed: DTLS peer certificate fingerprint") == true)
        #expect(throws: EdgeError.notConnected) {
            try [UInt8](rtpPacket(sequence: 1, ssrc: 1, payload: [])).withUnsafeBytes { try fixture.edge.send(leg: EdgeLegID(1), rtp: $0) }
        }
    }

    @Test func aHandshakeFloodFromOneHostStopsAtThePerHostCap() throws {
        let fixture = try EdgeFixture { $0.handshakesPerSource = 2 }
        var stalled: [DTLSTransport] = []
        let clients = try (1 ... 5).map { try fixture.client(UInt64($0)) }
        for client in clients {
            #expect(try client.checkICE())
            stalled.append(try client.sendClientHelloOnly())
        }
        #expect(edgeEventually { fixture.edge.counters.handshakesRefused == 3 })
        #expect(fixture.edge.counters.handshakesStarted == 2)
        #expect(fixture.edge.admissionCounters.inFlight == 2)
        #expect(stalled.count == 5)
    }

    @Test func aHandshakeThatNeverFinishesIsFreedAfterTheBound() throws {
        let clock = ManualClock(start: 1_000_000_000)
        let fixture = try EdgeFixture(clock: clock) { $0.handshakeTimeout = 2_000_000_000 }
        let client = try fixture.client(1)
        #expect(try client.checkICE())
        let stalled = try client.sendClientHelloOnly()
        #expect(edgeEventually { fixture.edge.counters.handshakesStarted == 1 })
        #expect(fixture.edge.admissionCounters.inFlight == 1)
        clock.advance(by: 1_000_000_000)
        usleep(50_000)
        #expect(fixture.edge.counters.handshakesTimedOut == 0)
        clock.advance(by: 1_500_000_000)
        #expect(edgeEventually { fixture.edge.counters.handshakesTimedOut == 1 })
        #expect(fixture.edge.admissionCounters.inFlight == 0)
        #expect(!fixture.edge.isConnected(EdgeLegID(1)))
        #expect(edgeEventually { fixture.inbox.endings == ["leg 1: \(EdgeLegEnding.handshakeFailed(.handshakeTimedOut))"] })
        _ = stalled
    }

    /// RFC 7675 section 5.1 asks only that the edge stop SENDING after 30 s without a
    /// valid check: the silent leg lapses (counted, `send` refuses it and counts that) but
    /// stays registered with its keys and address, no ending is reported, and its peer's
    /// next valid check resumes sending to the very same leg; the refreshed leg never lapses.
    @Test func aLegWithoutConsentLapsesIsKeptAndAValidCheckResumesIt() throws {
        let clock = ManualClock(start: 1_000_000_000)
        let fixture = try EdgeFixture(clock: clock)
        let quiet = try fixture.connected(1)
        let chatty = try fixture.connected(2)
        clock.advance(by: 20_000_000_000)
        #expect(try chatty.checkICE())
        clock.advance(by: 15_000_000_000)
        #expect(edgeEventually { fixture.edge.counters.consentLapses == 1 })
        #expect(fixture.edge.isRegistered(EdgeLegID(1)) && fixture.edge.isConnected(EdgeLegID(1)))
        #expect(!fixture.edge.hasConsent(EdgeLegID(1)) && fixture.edge.hasConsent(EdgeLegID(2)))
        #expect(fixture.edge.legCount == 2 && fixture.inbox.endings.isEmpty)
        // Nothing goes to the lapsed leg (refused and counted); the other leg is served.
        let packet = rtpPacket(sequence: 1, ssrc: 9, payload: [9])
        #expect(edgeSend(fixture.edge, EdgeLegID(1), rtp: packet) == .consentLapsed)
        #expect(fixture.edge.counters.mediaWithheld == 1)
        #expect(edgeSend(fixture.edge, EdgeLegID(2), rtp: packet) == nil)
        #expect(try chatty.receiveMedia()?.packet == packet)
        #expect(try quiet.receiveMedia(timeout: 0.2) == nil, "nothing was sent to the lapsed leg")
        // A valid check from the selected address restores consent: same leg, keys, address.
        #expect(try quiet.checkICE())
        #expect(edgeEventually { fixture.edge.counters.consentRestored == 1 })
        #expect(fixture.edge.hasConsent(EdgeLegID(1)))
        #expect(edgeSend(fixture.edge, EdgeLegID(1), rtp: packet) == nil)
        #expect(try quiet.receiveMedia()?.packet == packet)
        #expect(fixture.edge.legCount == 2 && fixture.edge.counters.consentLapses == 1 && fixture.edge.counters.mediaWithheld == 1)
        #expect(fixture.inbox.endings.isEmpty)
    }
}
