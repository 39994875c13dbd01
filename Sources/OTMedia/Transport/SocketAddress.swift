import Glibc

/// An IPv4 or IPv6 address with a UDP port, stored inline as a `sockaddr_storage`
/// (128 bytes) so it can be copied, compared and handed to the kernel without allocating.
///
/// Text forms: "127.0.0.1:5004" and "[::1]:5004" (brackets required for IPv6), as
/// `init(parsing:)` reads and `description` writes them. Comparing and hashing look at the
/// family, address and port only (and the scope id for IPv6), never at padding.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// Which IP version an address belongs to.
    public enum Family: Sendable, Equatable {
        /// `AF_INET`.
        case ipv4
        /// `AF_INET6`.
        case ipv6
    }

    var storage: sockaddr_storage
    var length: socklen_t

    /// Wraps an address the kernel wrote. `length` is what it reported.
    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// Parses "a.b.c.d:port" or "[v6]:port" (numeric addresses only, no DNS).
    /// Cost: a few small string operations; not for per-packet use.
    public init(parsing text: String) throws(TransportError) {
        let invalid = TransportError(.invalidAddress, "'\(text)' is not an address: use 127.0.0.1:5004 or [::1]:5004")
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw invalid }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw invalid }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon else { throw invalid }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = UInt16(portText) else { throw invalid }
        if text.hasPrefix("[") {
            guard let address = SocketAddress(ipv6: String(host), port: port) else { throw invalid }
            self = address
        } else {
            guard let address = SocketAddress(ipv4: String(host), port: port) else { throw invalid }
            self = address
        }
    }

    /// An IPv4 address from dotted text ("127.0.0.1") and a port, or nil if the text is not one.
    public init?(ipv4 host: String, port: UInt16) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        self.init(ipv4: address)
    }

    /// An IPv6 address from text without brackets ("::1") and a port, or nil if the text is not one.
    public init?(ipv6 host: String, port: UInt16) {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return nil }
        self.init(ipv6: address)
    }

    private init(ipv4 address: sockaddr_in) {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { raw in
            raw.storeBytes(of: address, as: sockaddr_in.self)
        }
        self.init(storage: storage, length: socklen_t(MemoryLayout<sockaddr_in>.size))
    }

    private init(ipv6 address: sockaddr_in6) {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { raw in
            raw.storeBytes(of: address, as: sockaddr_in6.self)
        }
        self.init(storage: storage, length: socklen_t(MemoryLayout<sockaddr_in6>.size))
    }

    /// 127.0.0.1 with `port` (0 asks `bind` for an ephemeral port).
    public static func ipv4Loopback(port: UInt16 = 0) -> SocketAddress { SocketAddress(ipv4: "127.0.0.1", port: port)! }
    /// ::1 with `port`.
    public static func ipv6Loopback(port: UInt16 = 0) -> SocketAddress { SocketAddress(ipv6: "::1", port: port)! }
    /// 0.0.0.0 with `port`: every IPv4 interface.
    public static func ipv4Any(port: UInt16 = 0) -> SocketAddress { SocketAddress(ipv4: "0.0.0.0", port: port)! }
    /// :: with `port`: every IPv6 interface.
    public static func ipv6Any(port: UInt16 = 0) -> SocketAddress { SocketAddress(ipv6: "::", port: port)! }

    /// IPv4 or IPv6. Cost: one load.
    public var family: Family { storage.ss_family == sa_family_t(AF_INET6) ? .ipv6 : .ipv4 }

    /// The port in host byte order.
    public var port: UInt16 {
        get {
            withUnsafeBytes(of: storage) { raw in
                family == .ipv6
                    ? UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
                    : UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
            }
        }
        set {
            let isIPv6 = family == .ipv6
            withUnsafeMutableBytes(of: &storage) { raw in
                let offset = isIPv6
                    ? MemoryLayout<sockaddr_in6>.offset(of: \.sin6_port)!
                    : MemoryLayout<sockaddr_in>.offset(of: \.sin_port)!
                raw.storeBytes(of: newValue.bigEndian, toByteOffset: offset, as: UInt16.self)
            }
        }
    }

    /// The same address with another port.
    public func with(port: UInt16) -> SocketAddress {
        var copy = self
        copy.port = port
        return copy
    }

    /// "127.0.0.1:5004" or "[::1]:5004". Allocates a string.
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok = withUnsafeBytes(of: storage) { raw -> Bool in
            if family == .ipv6 {
                var address = raw.load(as: sockaddr_in6.self).sin6_addr
                return inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil
            }
            var address = raw.load(as: sockaddr_in.self).sin_addr
            return inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil
        }
        let host = ok ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        return family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Compares family, port and address bytes (and the IPv6 scope id). No allocation.
    public static func == (lhs: SocketAddress, rhs: SocketAddress) -> Bool {
        guard lhs.storage.ss_family == rhs.storage.ss_family else { return false }
        return withUnsafeBytes(of: lhs.storage) { l in
            withUnsafeBytes(of: rhs.storage) { r in
                if lhs.family == .ipv6 {
                    let a = l.load(as: sockaddr_in6.self), b = r.load(as: sockaddr_in6.self)
                    return a.sin6_port == b.sin6_port && a.sin6_scope_id == b.sin6_scope_id
                        && withUnsafeBytes(of: a.sin6_addr) { x in withUnsafeBytes(of: b.sin6_addr) { y in x.elementsEqual(y) } }
                }
                let a = l.load(as: sockaddr_in.self), b = r.load(as: sockaddr_in.self)
                return a.sin_port == b.sin_port && a.sin_addr.s_addr == b.sin_addr.s_addr
            }
        }
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: storage) { raw in
            if family == .ipv6 {
                let a = raw.load(as: sockaddr_in6.self)
                hasher.combine(a.sin6_port)
                hasher.combine(a.sin6_scope_id)
                withUnsafeBytes(of: a.sin6_addr) { hasher.combine(bytes: $0) }
            } else {
                let a = raw.load(as: sockaddr_in.self)
                hasher.combine(a.sin_port)
                hasher.combine(a.sin_addr.s_addr)
            }
        }
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length, for bind/connect.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }
}
