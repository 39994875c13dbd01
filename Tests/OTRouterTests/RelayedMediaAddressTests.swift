import Testing
@testable import OTRouter

/// The relayed media address rule where it depends on where the announcing client is:
/// loopback is accepted only from a client that itself signals over loopback (IPv4 or
/// IPv6), whatever form the announcer's address text takes; the end-to-end refusals
/// (multicast, broadcast, ports) are in `RelayedSignalingTests`.
struct RelayedMediaAddressTests {
    @Test(arguments: ["127.0.0.1:53422", "[::1]:53422", "127.8.9.10:1", "::1", "[::ffff:127.0.0.1]:4000"])
    func loopbackIsAcceptedFromALoopbackClient(announcer: String) {
        #expect(RelayedMediaAddress.problem(host: "127.0.0.1", port: 40_000, announcer: announcer) == nil)
        #expect(RelayedMediaAddress.problem(host: "::1", port: 40_000, announcer: announcer) == nil)
    }

    @Test(arguments: ["203.0.113.5:4000", "[2001:db8::7]:4000", "10.1.2.3:80", "", "not an address"])
    func loopbackFromAnywhereElseIsRefused(announcer: String) {
        for host in ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            let problem = RelayedMediaAddress.problem(host: host, port: 40_000, announcer: announcer)
            #expect(problem?.contains("loopback") == true, "\(host) from \(announcer): \(problem ?? "accepted")")
        }
        #expect(RelayedMediaAddress.problem(host: "127.0.0.1", port: 40_000, announcer: nil) != nil)
        // A unicast address is fine from anywhere.
        #expect(RelayedMediaAddress.problem(host: "198.51.100.20", port: 40_000, announcer: announcer) == nil)
    }

    @Test func classifiesTheEdgesOfEachRange() {
        let cases: [(String, RelayedMediaAddress.Kind)] = [
            ("0.1.2.3", .unspecified), ("1.0.0.0", .unicast), ("126.255.255.255", .unicast), ("127.0.0.0", .loopback),
            ("223.255.255.255", .unicast), ("224.0.0.0", .multicast), ("239.255.255.255", .multicast),
            ("240.0.0.0", .reserved), ("255.255.255.254", .reserved), ("255.255.255.255", .broadcast),
            ("::", .unspecified), ("::1", .loopback), ("::2", .unicast), ("fe80::1", .unicast), ("ff00::", .multicast),
            ("::ffff:0.0.0.0", .unspecified), ("::ffff:192.0.2.1", .unicast),
        ]
        for (text, kind) in cases {
            let bytes = RelayedMediaAddress.ipBytes(text)
            #expect(bytes.map(RelayedMediaAddress.classify) == kind, "\(text)")
        }
    }
}
