import Testing
import OTMedia

/// The caps on handshakes in flight: per source host (any port) and in total; refusals counted.
@Suite struct DTLSHandshakeAdmissionTests {
    static func address(_ host: String, _ port: UInt16) -> SocketAddress { SocketAddress(ipv4: host, port: port)! }

    @Test func perSourceCapCountsHostsNotPorts() {
        let admission = DTLSHandshakeAdmission(perSource: 3, total: 100)
        for port in 1000..<1003 { #expect(admission.admit(from: Self.address("10.0.0.1", UInt16(port)))) }
        #expect(!admission.admit(from: Self.address("10.0.0.1", 2000)), "a fourth from the same host, another port")
        #expect(admission.admit(from: Self.address("10.0.0.2", 1000)), "another host is not affected")
        #expect(admission.counters.refusedPerSource == 1)
        #expect(admission.counters.inFlight == 4)
        admission.finished(from: Self.address("10.0.0.1", 1001))
        #expect(admission.inFlight(from: Self.address("10.0.0.1", 9)) == 2)
        #expect(admission.admit(from: Self.address("10.0.0.1", 2000)), "a slot freed")
        #expect(admission.counters.admitted == 5)
    }

    @Test func totalCapAndIPv6() {
        let admission = DTLSHandshakeAdmission(perSource: 2, total: 5)
        var admitted = 0
        for host in 1...10 where admission.admit(from: Self.address("192.168.1.\(host)", 5000)) { admitted += 1 }
        #expect(admitted == 5)
        #expect(admission.counters.refusedTotal == 5)
        #expect(admission.counters.refusedPerSource == 0)
        let v6 = SocketAddress(ipv6: "2001:db8::1", port: 1)!
        #expect(!admission.admit(from: v6), "the total cap holds for IPv6 too")
        for host in 1...5 { admission.finished(from: Self.address("192.168.1.\(host)", 1)) }
        #expect(admission.counters.inFlight == 0)
        #expect(admission.admit(from: v6))
        #expect(admission.admit(from: SocketAddress(ipv6: "2001:db8::1", port: 2)!))
        #expect(!admission.admit(from: SocketAddress(ipv6: "2001:db8::1", port: 3)!))
        #expect(admission.admit(from: SocketAddress(ipv6: "2001:db8::2", port: 3)!))
        // A finish without an admit changes nothing.
        admission.finished(from: Self.address("172.16.0.1", 1))
        #expect(admission.counters.inFlight == 3)
    }

    /// A flood of ClientHellos from one host, each a real handshake offered to a server
    /// transport only if admitted: at most the cap is ever created.
    @Test func floodFromOneHostIsCapped() throws {
        let admission = DTLSHandshakeAdmission(perSource: 4, total: 64)
        let source = Self.address("203.0.113.7", 40000)
        var servers: [DTLSTransport] = []
        for _ in 0..<200 {
            let (client, server) = try DTLSTest.pair()
            client.start(now: 1)
            guard admission.admit(from: source) else { continue }
            DTLSTest.deliver(DTLSTest.outgoing(client), to: server, now: 1)
            #expect(server.state == .handshaking)
            servers.append(server)
        }
        #expect(servers.count == 4)
        #expect(admission.counters.refusedPerSource == 196)
        for server in servers {
            server.handleTimeout(now: DTLSTransport.defaultHandshakeTimeout + 1)
            #expect(!server.holdsSSL)
            admission.finished(from: source)
        }
        #expect(admission.counters.inFlight == 0)
    }
}
