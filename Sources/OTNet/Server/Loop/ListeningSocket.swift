import Foundation
import Glibc

/// Opens the server's non-blocking listening socket: an IPv4 or IPv6 literal ("" and
/// "0.0.0.0" listen on every IPv4 interface; a name is resolved), SO_REUSEADDR, a backlog
/// of 1,024. Cost: one descriptor.
enum ListeningSocket {
    /// The descriptor and the bound port.
    static func open(host: String, port: Int) throws(WebError) -> (descriptor: Int32, port: Int) {
        guard (0...65535).contains(port) else { throw WebError("port \(port) is not between 0 and 65535") }
        let address = try self.address(host: host, port: port)
        let fd = socket(Int32(address.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var storage = address
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, SocketAddressText.length(address)) }
        }
        guard bound == 0, listen(fd, 1024) == 0 else {
            let code = errno
            close(fd)
            throw .system("cannot start the web server on \(host):\(port) (bind/listen)", code)
        }
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let boundPort = withUnsafeBytes(of: local) { raw -> Int in
            Int32(local.ss_family) == AF_INET6
                ? Int(UInt16(bigEndian: raw.loadUnaligned(as: sockaddr_in6.self).sin6_port))
                : Int(UInt16(bigEndian: raw.loadUnaligned(as: sockaddr_in.self).sin_port))
        }
        return (fd, boundPort)
    }

    private static func address(host: String, port: Int) throws(WebError) -> sockaddr_storage {
        let literal = host.trimmingCharacters(in: ["[", "]"])
        var storage = sockaddr_storage()
        if host.isEmpty || host == "0.0.0.0" || inet_pton(AF_INET, literal, &storage) == 1 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            if !(host.isEmpty || host == "0.0.0.0") { _ = inet_pton(AF_INET, literal, &address.sin_addr) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            return storage
        }
        var address6 = sockaddr_in6()
        if inet_pton(AF_INET6, literal, &address6.sin6_addr) == 1 {
            address6.sin6_family = sa_family_t(AF_INET6)
            address6.sin6_port = UInt16(port).bigEndian
            storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address6, as: sockaddr_in6.self) }
            return storage
        }
        guard let first = try SocketAddressText.resolve(host, port: port).first else { throw WebError("cannot resolve \(host)") }
        return first
    }
}
