import Glibc

/// Formats and resolves socket addresses as text (`127.0.0.1`, `[::1]:443`).
enum SocketAddressText {
    /// `ip` or `ip:port` (`[ip]:port` for IPv6) for an IPv4 or IPv6 socket address.
    static func format(_ storage: sockaddr_storage, withPort: Bool) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        var port: UInt16 = 0
        let family = Int32(storage.ss_family)
        withUnsafeBytes(of: storage) { raw in
            if family == AF_INET {
                var address = raw.loadUnaligned(as: sockaddr_in.self)
                _ = inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
                port = UInt16(bigEndian: address.sin_port)
            } else if family == AF_INET6 {
                var address = raw.loadUnaligned(as: sockaddr_in6.self)
                _ = inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count))
                port = UInt16(bigEndian: address.sin6_port)
            }
        }
        let ip = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard withPort else { return ip }
        return family == AF_INET6 ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }

    /// Resolves `host` (a name or an IP literal) to socket addresses for TCP, with
    /// blocking `getaddrinfo`; IPv4 first.
    static func resolve(_ host: String, port: Int) throws(WebError) -> [sockaddr_storage] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw WebError("cannot resolve host \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var v4: [sockaddr_storage] = []
        var v6: [sockaddr_storage] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen)))
                }
                if current.pointee.ai_family == AF_INET { v4.append(storage) } else if current.pointee.ai_family == AF_INET6 { v6.append(storage) }
            }
            entry = current.pointee.ai_next
        }
        guard !(v4.isEmpty && v6.isEmpty) else { throw WebError("cannot resolve host \(host): no addresses") }
        return v4 + v6
    }

    /// The byte length of the socket address in `storage`.
    static func length(_ storage: sockaddr_storage) -> socklen_t {
        Int32(storage.ss_family) == AF_INET6 ? socklen_t(MemoryLayout<sockaddr_in6>.size) : socklen_t(MemoryLayout<sockaddr_in>.size)
    }
}
