import Testing
@testable import OTMedia

@Suite struct SocketAddressTests {
    @Test("Addresses parse and print back the same", arguments: [
        ("127.0.0.1:5004", SocketAddress.Family.ipv4, UInt16(5004)),
        ("0.0.0.0:0", .ipv4, 0),
        ("255.255.255.255:65535", .ipv4, 65535),
        ("[::1]:5004", .ipv6, 5004),
        ("[::]:0", .ipv6, 0),
        ("[2001:db8::1]:443", .ipv6, 443),
        ("[::ffff:10.0.0.1]:9", .ipv6, 9),
    ])
    func roundTrip(text: String, family: SocketAddress.Family, port: UInt16) throws {
        let address = try SocketAddress(parsing: text)
        #expect(address.description == text)
        #expect(address.family == family)
        #expect(address.port == port)
    }

    @Test("Malformed addresses are rejected with a message", arguments: [
        "", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1: 80",
        "256.0.0.1:1", "localhost:80", "::1:5004", "[::1]5004", "[::1]:", "[::1", "[127.0.0.1]:5",
        "1.2.3.4:5:6", "[::1]:5004x", "1.2.3.4:٣",
    ])
    func rejects(text: String) {
        #expect(throws: TransportError.self) { try SocketAddress(parsing: text) }
        do { _ = try SocketAddress(parsing: text) } catch {
            #expect(error.code == .invalidAddress)
            #expect(error.message.contains("is not an address"))
        }
    }

    @Test("Equality and hashing look at family, address and port")
    func equality() throws {
        let a = try SocketAddress(parsing: "127.0.0.1:5004")
        #expect(a == SocketAddress.ipv4Loopback(port: 5004))
        #expect(a != a.with(port: 5005))
        #expect(a != (try SocketAddress(parsing: "127.0.0.2:5004")))
        #expect(SocketAddress.ipv6Loopback(port: 1) != (try SocketAddress(parsing: "[::2]:1")))
        #expect(Set([a, a.with(port: 5004), .ipv6Loopback(port: 5004)]).count == 2)
        var b = a
        b.port = 9
        #expect(b.description == "127.0.0.1:9")
    }
}
