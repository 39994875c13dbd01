import Testing
@testable import OTMedia

/// A DTLS client and server transport across two real UDP sockets on 127.0.0.1: both
/// export the same keys, and SRTP sessions built from them carry RTP both ways.
@Suite struct DTLSUDPHandshakeTests {
    /// Runs the handshake over the two sockets until both are connected or final (20 s cap).
    static func handshakeOverUDP(_ client: DTLSTransport, _ server: DTLSTransport) throws {
        let clientSocket = try DTLSTestSocket(), serverSocket = try DTLSTestSocket()
        client.start(now: DTLSTest.now())
        server.start(now: DTLSTest.now())
        clientSocket.sendOutgoing(of: client, to: serverSocket.port)
        let begin = DTLSTest.now()
        while !(client.state == .connected || client.state.isFinal) || !(server.state == .connected || server.state.isFinal),
              DTLSTest.now() - begin < 20_000_000_000 {
            if let (bytes, from) = serverSocket.receive(timeoutMilliseconds: 5) {
                #expect(from == clientSocket.port)
                bytes.withUnsafeBytes { _ = server.receive($0, now: DTLSTest.now()) }
                serverSocket.sendOutgoing(of: server, to: clientSocket.port)
            }
            if let (bytes, from) = clientSocket.receive(timeoutMilliseconds: 5) {
                #expect(from == serverSocket.port)
                bytes.withUnsafeBytes { _ = client.receive($0, now: DTLSTest.now()) }
                clientSocket.sendOutgoing(of: client, to: serverSocket.port)
            }
            client.handleTimeout(now: DTLSTest.now())
            clientSocket.sendOutgoing(of: client, to: serverSocket.port)
            server.handleTimeout(now: DTLSTest.now())
            serverSocket.sendOutgoing(of: server, to: clientSocket.port)
        }
        // Every flight left as datagrams within the link MTU, one per OpenSSL write.
        #expect(clientSocket.largestSent <= DTLSTransport.mtu && serverSocket.largestSent <= DTLSTransport.mtu)
        #expect(clientSocket.sentCount >= 2 && serverSocket.sentCount >= 2)
        #expect(UInt64(clientSocket.sentCount) == client.counters.datagramsSent)
        #expect(UInt64(serverSocket.sentCount) == server.counters.datagramsSent)
    }

    @Test func gcmPreferredKeysAgreeAndCarryRTPBothWays() throws {
        let (client, server) = try DTLSTest.pair()
        try Self.handshakeOverUDP(client, server)
        #expect(client.state == .connected)
        #expect(server.state == .connected)
        let clientKeys = try #require(client.srtpKeys), serverKeys = try #require(server.srtpKeys)
        #expect(clientKeys.profile == .aeadAES128GCM, "GCM is preferred when both offer it")
        #expect(serverKeys.profile == .aeadAES128GCM)
        #expect(clientKeys.local == serverKeys.remote)
        #expect(clientKeys.remote == serverKeys.local)
        #expect(clientKeys.local != clientKeys.remote, "each direction has its own keys")
        #expect(DTLSTest.exporterBytes(clientKeys, role: .client) == DTLSTest.exporterBytes(serverKeys, role: .server))
        #expect(try DTLSTest.srtpRoundTrip(from: clientKeys, to: serverKeys, sequence: 1))
        #expect(try DTLSTest.srtpRoundTrip(from: serverKeys, to: clientKeys, sequence: 2))
        // The wrong half does not decrypt: the split is per direction.
        let clear = SRTPTestPackets.rtp(sequence: 3)
        let protected = try clientKeys.makeSender().protect(clear)
        let wrong = try SRTPSession(keys: clientKeys.local, direction: .receiver)
        #expect(try wrong.unprotect(protected) == clear, "sanity: the sender's own keys open it")
        let crossed = try SRTPSession(keys: serverKeys.local, direction: .receiver)
        #expect(throws: SRTPError.authenticationFailed) { try crossed.unprotect(protected) }
        // Datagrams stayed within the MTU.
        #expect(client.counters.datagramsSent >= 2 && server.counters.datagramsSent >= 2)
    }

    @Test func serverRestrictedToCMSelectsCM() throws {
        let (client, server) = try DTLSTest.pair(serverProfiles: [.aesCM128HMACSHA1_80])
        try Self.handshakeOverUDP(client, server)
        #expect(client.state == .connected)
        #expect(server.state == .connected)
        let clientKeys = try #require(client.srtpKeys), serverKeys = try #require(server.srtpKeys)
        #expect(clientKeys.profile == .aesCM128HMACSHA1_80)
        #expect(serverKeys.profile == .aesCM128HMACSHA1_80)
        #expect(DTLSTest.exporterBytes(clientKeys, role: .client).count == 60)
        #expect(DTLSTest.exporterBytes(clientKeys, role: .client) == DTLSTest.exporterBytes(serverKeys, role: .server))
        #expect(try DTLSTest.srtpRoundTrip(from: clientKeys, to: serverKeys, sequence: 10))
        #expect(try DTLSTest.srtpRoundTrip(from: serverKeys, to: clientKeys, sequence: 11))
    }

    /// The server's order wins (RFC 5764 section 4.1.1: the server chooses).
    @Test func serverOrderWins() throws {
        let (client, server) = try DTLSTest.pair(serverProfiles: [.aesCM128HMACSHA1_80, .aeadAES128GCM])
        DTLSTest.handshake(client, server)
        #expect(server.srtpKeys?.profile == .aesCM128HMACSHA1_80)
        #expect(client.srtpKeys?.profile == .aesCM128HMACSHA1_80)
    }

    /// close_notify: the closing side frees its SSL and the peer sees `.closed`.
    @Test func closeNotifyClosesThePeer() throws {
        let (client, server) = try DTLSTest.pair()
        DTLSTest.handshake(client, server)
        #expect(server.state == .connected)
        #expect(client.close() == .closed)
        #expect(!client.holdsSSL)
        #expect(client.srtpKeys == nil)
        let notify = DTLSTest.outgoing(client)
        #expect(notify.count == 1)
        DTLSTest.deliver(notify, to: server, now: DTLSTest.now())
        #expect(server.state == .closed)
        #expect(!server.holdsSSL)
        #expect(server.srtpKeys == nil)
    }

    /// Keys never show in descriptions, debug descriptions or dumps.
    @Test func keysAreNeverPrinted() throws {
        let (client, server) = try DTLSTest.pair()
        DTLSTest.handshake(client, server)
        let keys = try #require(client.srtpKeys)
        var dumped = ""
        dump(keys, to: &dumped)
        var dumpedTransport = ""
        dump(client, to: &dumpedTransport)
        let texts = [keys.description, keys.debugDescription, String(describing: keys), String(reflecting: keys), dumped,
                     client.description, String(reflecting: client), "\(client.state)"]
        for material in [keys.local, keys.remote] {
            for secret in [material.masterKey, material.masterSalt] {
                let hex = secret.map { String($0, radix: 16) }.joined()
                let decimal = secret.map(String.init).joined(separator: ", ")
                for text in texts {
                    #expect(!text.contains(hex) && !text.contains(decimal) && !text.contains(Base64.encode(secret)))
                }
            }
        }
        #expect(keys.description.contains("redacted"))
    }
}
