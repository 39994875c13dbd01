import OTTestSupport
import Testing
@testable import OTMedia

/// Garbage, truncated records and random records never trap a transport, and a server
/// fed them still completes a real handshake afterwards.
@Suite struct DTLSHostileInputTests {
    /// 10,000 hostile datagrams of four kinds, from a fixed seed (replayable).
    static func hostileDatagrams(seed: UInt64, count: Int = 10_000, epoch: UInt16 = 0) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        func byte() -> UInt8 { UInt8(truncatingIfNeeded: random.next()) }
        func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in byte() } }
        func below(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        return (0..<count).map { index -> [UInt8] in
            switch index % 5 {
            case 0:
                // Not DTLS by the first byte (STUN 0-3, RTP 128-191, anything else outside 20-63).
                var datagram = bytes(1 + below(1500))
                datagram[0] = [0, 1, 2, 3, 64, 127, 128, 191, 200, 255][below(10)]
                return datagram
            case 1:
                // Truncated: a DTLS first byte and fewer bytes than a header, or a header
                // that claims more than follows.
                var datagram = bytes(1 + below(40))
                datagram[0] = UInt8(20 + below(44))
                if datagram.count >= 13 { datagram[11] = 0x40; datagram[12] = 0 }
                return datagram
            default:
                // A well-formed record header (content type 20-23, DTLS 1.2 or 1.0, this
                // epoch, random sequence, exact length) around a random body; one in three
                // carries a handshake header (ClientHello, Finished, …) with random lengths.
                let bodyLength = below(1200)
                var body = bytes(bodyLength)
                let type = UInt8(20 + below(4))
                if index % 5 == 4, bodyLength >= 12 {
                    body[0] = [1, 2, 11, 12, 13, 14, 15, 16, 20][below(9)]
                    body[1] = 0; body[2] = UInt8(bodyLength >> 8); body[3] = UInt8(truncatingIfNeeded: bodyLength)
                }
                let version: [UInt8] = below(4) == 0 ? [0xFE, 0xFF] : [0xFE, 0xFD]
                return [type] + version + [UInt8(epoch >> 8), UInt8(truncatingIfNeeded: epoch)] + bytes(6)
                    + [UInt8(bodyLength >> 8), UInt8(truncatingIfNeeded: bodyLength)] + body
            }
        }
    }

    @Test func serverSurvivesGarbageThenCompletesAHandshake() throws {
        let (client, server) = try DTLSTest.pair()
        server.start(now: DTLSTest.now())
        for datagram in Self.hostileDatagrams(seed: 0xD71_5EED) {
            datagram.withUnsafeBytes { _ = server.receive($0, now: DTLSTest.now()) }
            #expect(server.state == .new || server.state == .handshaking)
        }
        let counters = server.counters
        #expect(counters.datagramsReceived == 10_000)
        #expect(counters.datagramsIgnored >= 2_000, "every non-DTLS and short datagram is dropped before OpenSSL")
        #expect(counters.rejectedBeforeHandshake >= 1_000, "OpenSSL refused the random records; each reset the SSL object")
        #expect(counters.datagramsSent == 0, "nothing is answered to garbage (no alerts to unknown senders)")
        #expect(server.state == .new, "nothing in the garbage was a ClientHello OpenSSL accepted")
        // The same transport then completes a real handshake.
        DTLSTest.handshake(client, server)
        #expect(server.state == .connected)
        #expect(client.state == .connected)
        #expect(client.srtpKeys?.local == server.srtpKeys?.remote)
    }

    /// Forged records after the handshake never end the leg: both ends stay connected with
    /// the same keys, which still carry SRTP; closing still works.
    @Test func connectedPairSurvivesGarbageOfBothEpochs() throws {
        let (client, server) = try DTLSTest.pair()
        DTLSTest.handshake(client, server)
        #expect(server.state == .connected)
        let serverKeys = try #require(server.srtpKeys), clientKeys = try #require(client.srtpKeys)
        var survived = true
        for (seed, epoch) in [(UInt64(1), UInt16(0)), (2, 1)] {
            for datagram in Self.hostileDatagrams(seed: seed, count: 5_000, epoch: epoch) {
                datagram.withUnsafeBytes {
                    _ = server.receive($0, now: DTLSTest.now())
                    _ = client.receive($0, now: DTLSTest.now())
                }
                if server.state != .connected || client.state != .connected { survived = false }
            }
        }
        #expect(survived, "server \(server.state), client \(client.state)")
        #expect(server.srtpKeys == serverKeys)
        #expect(client.srtpKeys == clientKeys)
        #expect(server.counters.recordsDiscarded > 0, "epoch-0 and short records never reach OpenSSL")
        #expect(try DTLSTest.srtpRoundTrip(from: clientKeys, to: serverKeys, sequence: 5))
        #expect(try DTLSTest.srtpRoundTrip(from: serverKeys, to: clientKeys, sequence: 6))
        #expect(client.close() == .closed)
        #expect(server.close() == .closed)
        #expect(!client.holdsSSL && !server.holdsSSL)
    }

    /// Epoch-0 records (plaintext) after the handshake do not reach OpenSSL at all: the
    /// association keeps working and a later close_notify still closes the peer.
    @Test func epochZeroGarbageLeavesTheAssociationWorking() throws {
        let (client, server) = try DTLSTest.pair()
        DTLSTest.handshake(client, server)
        for datagram in Self.hostileDatagrams(seed: 3, count: 5_000, epoch: 0) {
            datagram.withUnsafeBytes { _ = server.receive($0, now: DTLSTest.now()) }
        }
        #expect(server.state == .connected)
        #expect(server.holdsSSL)
        #expect(server.counters.associationErrorsAfterHandshake == 0)
        client.close()
        DTLSTest.deliver(DTLSTest.outgoing(client), to: server, now: DTLSTest.now())
        #expect(server.state == .closed)
    }

    /// Whatever a client in mid-handshake is sent, it never traps; it either fails with a
    /// reason or keeps going (counted), and a fresh pair still completes.
    @Test func handshakingClientNeverTraps() throws {
        let (client, _) = try DTLSTest.pair()
        client.start(now: DTLSTest.now())
        for datagram in Self.hostileDatagrams(seed: 77, count: 2_000) {
            datagram.withUnsafeBytes { _ = client.receive($0, now: DTLSTest.now()) }
        }
        if case .failed(let reason) = client.state { #expect("\(reason)".contains("DTLS")) }
        #expect(client.counters.datagramsReceived == 2_000)
        let (fresh, server) = try DTLSTest.pair()
        DTLSTest.handshake(fresh, server)
        #expect(fresh.state == .connected && server.state == .connected)
    }
}
