import Testing
@testable import OTMedia

/// The ways a DTLS-SRTP handshake must fail, and the timers that keep it alive.
@Suite struct DTLSFailureTests {
    /// The server expects another certificate than the client presents.
    @Test func serverSeesWrongClientFingerprint() throws {
        let stranger = try DTLSCertificate(commonName: "stranger")
        let (client, server) = try DTLSTest.pair(serverExpects: stranger.fingerprint, handshakeTimeout: 2_000_000_000)
        DTLSTest.handshake(client, server)
        #expect(server.state == .failed(.fingerprintMismatch(expected: stranger.fingerprint,
                                                             actual: DTLSTest.clientCertificate.fingerprint)))
        #expect(server.srtpKeys == nil)
        #expect(!server.holdsSSL)
        #expect("\(server.state)".contains("does not match the SDP's a=fingerprint"))
        #expect(client.state != .connected || client.srtpKeys != nil)
    }

    /// The client expects another certificate than the server presents.
    @Test func clientSeesWrongServerFingerprint() throws {
        let stranger = try DTLSCertificate(commonName: "stranger")
        let (client, server) = try DTLSTest.pair(clientExpects: stranger.fingerprint, handshakeTimeout: 2_000_000_000)
        DTLSTest.handshake(client, server)
        #expect(client.state == .failed(.fingerprintMismatch(expected: stranger.fingerprint,
                                                             actual: DTLSTest.serverCertificate.fingerprint)))
        #expect(client.srtpKeys == nil)
        #expect(!client.holdsSSL)
    }

    /// OpenSSL completes a handshake without a common use_srtp profile; the transport must not.
    @Test func noCommonProfileFails() throws {
        let (client, server) = try DTLSTest.pair(clientProfiles: [.aesCM128HMACSHA1_32], serverProfiles: [.aeadAES128GCM],
                                                 handshakeTimeout: 2_000_000_000)
        DTLSTest.handshake(client, server)
        #expect(server.state == .failed(.noCommonSRTPProfile))
        #expect(server.srtpKeys == nil)
        #expect(!server.holdsSSL)
        if case .failed(let reason) = client.state {
            #expect(reason == .noCommonSRTPProfile || reason == .handshakeTimedOut)
        } else {
            Issue.record("the client must not connect without an SRTP profile, got \(client.state)")
        }
    }

    /// The client's first two flights are lost; the 50 ms timer resends until it completes.
    @Test func retransmissionTimerRecoversTwoLostFlights() throws {
        let (client, server) = try DTLSTest.pair()
        let dropped = DTLSTest.handshake(client, server, dropClientFlights: 2)
        #expect(dropped == 2)
        #expect(client.state == .connected)
        #expect(server.state == .connected)
        #expect(client.counters.retransmissions >= 2)
        #expect(client.srtpKeys?.local == server.srtpKeys?.remote)
        #expect(client.nextTimeout(now: DTLSTest.now()) == nil, "no timer once connected")
    }

    /// The server's last flight (ChangeCipherSpec + Finished) is lost after the server is
    /// connected: the client's timer resends its last flight, the connected server answers
    /// its Finished again, and the client connects with the same keys.
    @Test func lostServerLastFlightIsResentOnTheClientsRepeat() throws {
        let (client, server) = try DTLSTest.pair()
        client.start(now: DTLSTest.now())
        var toClient = DTLSTest.deliver(DTLSTest.outgoing(client), to: server, now: DTLSTest.now())
        let lastClientFlight = DTLSTest.deliver(toClient, to: client, now: DTLSTest.now())
        _ = DTLSTest.deliver(lastClientFlight, to: server, now: DTLSTest.now())
        #expect(server.state == .connected)
        #expect(client.state == .handshaking, "the server's last flight was dropped")
        let begin = DTLSTest.now()
        while client.state != .connected, DTLSTest.now() - begin < 5_000_000_000 {
            DTLSTest.sleepNanoseconds(20_000_000)
            client.handleTimeout(now: DTLSTest.now())
            toClient = DTLSTest.deliver(DTLSTest.outgoing(client), to: server, now: DTLSTest.now())
            DTLSTest.deliver(toClient, to: client, now: DTLSTest.now())
        }
        #expect(client.state == .connected)
        #expect(client.counters.retransmissions >= 1)
        #expect(client.srtpKeys?.local == server.srtpKeys?.remote)
        #expect(client.srtpKeys?.remote == server.srtpKeys?.local)
    }

    /// The retransmission timer reports 50 ms first, then doubles.
    @Test func retransmissionTimerStartsAt50ms() throws {
        let (client, _) = try DTLSTest.pair()
        let t0 = DTLSTest.now()
        client.start(now: t0)
        #expect(client.state == .handshaking)
        let first = try #require(client.nextTimeout(now: t0))
        #expect(first > t0 && first - t0 <= 50_000_000)
        DTLSTest.sleepNanoseconds(60_000_000)
        client.handleTimeout(now: DTLSTest.now())
        #expect(client.counters.retransmissions == 1)
        #expect(client.outgoingCount == 1, "the ClientHello again")
        let t1 = DTLSTest.now()
        let second = try #require(client.nextTimeout(now: t1))
        #expect(second - t1 > 50_000_000 && second - t1 <= 100_000_000)
    }

    /// A handshake stuck past its deadline fails and frees its SSL object, on both roles.
    @Test func deadlineFreesAStuckHandshake() throws {
        let (client, server) = try DTLSTest.pair(handshakeTimeout: 1_000_000_000)
        let t0: UInt64 = 5_000_000_000
        client.start(now: t0)
        server.start(now: t0)
        let hello = DTLSTest.outgoing(client)
        DTLSTest.deliver(hello, to: server, now: t0 + 1)
        #expect(server.state == .handshaking)
        // The server's answer is lost; nothing else arrives.
        #expect(server.nextTimeout(now: t0 + 2).map { $0 <= t0 + 1_000_000_000 } == true)
        #expect(server.handleTimeout(now: t0 + 999_999_999) == nil)
        #expect(server.holdsSSL)
        #expect(server.handleTimeout(now: t0 + 1_000_000_000) == .failed(.handshakeTimedOut))
        #expect(!server.holdsSSL)
        #expect(server.nextTimeout(now: t0 + 1_000_000_001) == nil)
        #expect(client.handleTimeout(now: t0 + 2_000_000_000) == .failed(.handshakeTimedOut))
        #expect(!client.holdsSSL)
        // A late datagram after the end is ignored and counted.
        DTLSTest.deliver(hello, to: server, now: t0 + 3_000_000_000)
        #expect(server.counters.datagramsIgnored == 1)
        #expect(server.state == .failed(.handshakeTimedOut))
    }

    /// A server that never hears a ClientHello also times out (its clock starts at `start`).
    @Test func silentPeerTimesOut() throws {
        let (_, server) = try DTLSTest.pair(handshakeTimeout: 500)
        server.start(now: 100)
        #expect(server.nextTimeout(now: 100) == 600)
        #expect(server.handleTimeout(now: 600) == .failed(.handshakeTimedOut))
        #expect(!server.holdsSSL)
    }
}
