import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The local IPv4 address this machine uses toward a host: what a relayed publisher
/// advertises so its subscribers reach its media socket (loopback toward a local router,
/// the LAN address toward a router on the LAN). Asks the kernel's routing table by
/// connecting a UDP socket (nothing is sent).
enum LocalRoute {
    /// The source address toward `host` (an IPv4 literal or a name), or nil when there is
    /// no route or the name does not resolve to IPv4.
    static func address(toward host: String) -> String? {
        guard let target = resolve(host) else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = UInt16(9).bigEndian
        remote.sin_addr = target
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        return text(local.sin_addr)
    }

    /// The host part of an `http(s)://` or `ws(s)://` URL (without brackets or port).
    static func host(ofURL url: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else { return nil }
        return host
    }

    private static func resolve(_ host: String) -> in_addr? {
        var address = in_addr()
        if inet_pton(AF_INET, host, &address) == 1 { return address }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result, let sockaddrPointer = first.pointee.ai_addr else { return nil }
        defer { freeaddrinfo(result) }
        return sockaddrPointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
    }

    private static func text(_ address: in_addr) -> String? {
        var address = address
        var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        guard inet_ntop(AF_INET, &address, &buffer, socklen_t(INET_ADDRSTRLEN)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
