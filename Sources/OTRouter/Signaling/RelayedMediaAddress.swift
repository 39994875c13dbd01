#if canImport(Glibc)
import Glibc
#endif

/// The address a relayed publisher announces for its media (`WireMediaLeg.host` and
/// `port`): every subscriber's pipeline sends RTCP there and receives media from there, so
/// a client that could announce any address could aim its peers' packets at a third party.
/// Accepted: an IP literal that is plain unicast, and a port a media socket can have.
///
/// Refused (each with a reason for the error message):
/// - anything that is not an IPv4 or IPv6 literal (no names: resolving them is the peers'
///   business and would let the answer change after the check);
/// - unspecified (`0.0.0.0/8`, `::`), multicast (`224.0.0.0/4`, `ff00::/8`), the limited
///   broadcast `255.255.255.255` and the reserved `240.0.0.0/4` (IPv4-mapped IPv6 addresses
///   are judged by the IPv4 address inside);
/// - loopback (`127.0.0.0/8`, `::1`) unless the announcing client itself reached the router
///   over loopback (then it and its peers share this machine; from anywhere else it names
///   a service on each subscriber's own machine);
/// - ports outside 1024...65535: a media socket is ephemeral, and the privileged ports are
///   other services' (DNS 53, NTP 123, ...), as Chrome's ICE refuses them.
///
/// Cost: one `inet_pton`, at publish time only.
enum RelayedMediaAddress {
    /// Lowest port accepted (the first unprivileged one).
    static let lowestPort = 1024

    /// Why `host`:`port` cannot be a relayed media address for a client whose signaling
    /// comes from `announcer` (`WebSocketPeer.remoteAddress`, `127.0.0.1:53422` or
    /// `[::1]:53422`; nil: unknown, treated as not loopback), or nil when it can.
    static func problem(host: String, port: Int, announcer: String?) -> String? {
        guard let bytes = ipBytes(host) else { return "host \"\(host.prefix(64))\" is not an IP address" }
        guard (lowestPort...65535).contains(port) else {
            return "port \(port) is out of range (\(lowestPort)...65535)"
        }
        switch classify(bytes) {
        case .unicast: return nil
        case .loopback:
            if let announcer, let own = ipBytes(hostPart(of: announcer)), classify(own) == .loopback { return nil }
            return "host \(host) is a loopback address, and the client is not on the router's machine"
        case .unspecified: return "host \(host) is the unspecified address"
        case .multicast: return "host \(host) is a multicast address"
        case .broadcast: return "host \(host) is the broadcast address"
        case .reserved: return "host \(host) is in the reserved range 240.0.0.0/4"
        }
    }

    /// What kind of address a 4- or 16-byte address is.
    enum Kind: Equatable { case unicast, loopback, unspecified, multicast, broadcast, reserved }

    /// The kind of `bytes` (4 bytes IPv4, 16 bytes IPv6, network order).
    static func classify(_ bytes: [UInt8]) -> Kind {
        if bytes.count == 16 {
            // IPv4-mapped (::ffff:a.b.c.d): what the IPv4 address is.
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return classify(Array(bytes[12...])) }
            if bytes.allSatisfy({ $0 == 0 }) { return .unspecified }
            if bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] == 1 { return .loopback }
            if bytes[0] == 0xFF { return .multicast }
            return .unicast
        }
        if bytes.allSatisfy({ $0 == 0xFF }) { return .broadcast }
        switch bytes[0] {
        case 0: return .unspecified
        case 127: return .loopback
        case 224...239: return .multicast
        case 240...255: return .reserved
        default: return .unicast
        }
    }

    /// The address bytes of an IPv4 or IPv6 literal (`inet_pton`), nil for anything else.
    static func ipBytes(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        var v4 = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, text, &v4) == 1 { return v4 }
        var v6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET6, text, &v6) == 1 { return v6 }
        return nil
    }

    /// The host of `host:port` or `[v6]:port` (the text itself when it has no port).
    static func hostPart(of address: String) -> String {
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        if address.filter({ $0 == ":" }).count == 1, let colon = address.firstIndex(of: ":") { return String(address[..<colon]) }
        return address
    }
}
