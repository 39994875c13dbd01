import Glibc

/// XOR-MAPPED-ADDRESS (RFC 8489 section 14.2): the address is xored with the magic
/// cookie (and, for IPv6, the transaction id) so NATs that rewrite addresses in payloads
/// leave it alone. Value: 0, family (1 IPv4, 2 IPv6), x-port, x-address (4 or 16 bytes).
enum STUNXORAddress {
    /// The value's size for `family`: 8 (IPv4) or 20 (IPv6).
    static func valueSize(_ family: SocketAddress.Family) -> Int { family == .ipv6 ? 20 : 8 }

    /// Decodes a value, or nil when its length or family is not allowed. Cost: no allocation.
    static func decode(_ value: UnsafeRawBufferPointer, transactionID: STUNTransactionID) -> SocketAddress? {
        guard value.count >= 4 else { return nil }
        let port = value.be16(2) ^ UInt16(STUN.magicCookie >> 16)
        switch value[1] {
        case 1:
            guard value.count == 8 else { return nil }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = (value.be32(4) ^ STUN.magicCookie).bigEndian
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            return SocketAddress(storage: storage, length: socklen_t(MemoryLayout<sockaddr_in>.size))
        case 2:
            guard value.count == 20 else { return nil }
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) { bytes in
                for index in 0 ..< 16 { bytes[index] = value[4 + index] ^ maskByte(index, transactionID) }
            }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            return SocketAddress(storage: storage, length: socklen_t(MemoryLayout<sockaddr_in6>.size))
        default:
            return nil
        }
    }

    /// Writes the value for `address` at `offset` of `buffer` (the caller made room for
    /// `valueSize`).
    static func encode(_ address: SocketAddress, transactionID: STUNTransactionID,
                       into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        buffer[offset] = 0
        buffer.storeBE16(address.port ^ UInt16(STUN.magicCookie >> 16), at: offset + 2)
        withUnsafeBytes(of: address.storage) { raw in
            if address.family == .ipv6 {
                buffer[offset + 1] = 2
                let bytes = raw.load(as: sockaddr_in6.self).sin6_addr
                withUnsafeBytes(of: bytes) { ip in
                    for index in 0 ..< 16 { buffer[offset + 4 + index] = ip[index] ^ maskByte(index, transactionID) }
                }
            } else {
                buffer[offset + 1] = 1
                let ip = UInt32(bigEndian: raw.load(as: sockaddr_in.self).sin_addr.s_addr)
                buffer.storeBE32(ip ^ STUN.magicCookie, at: offset + 4)
            }
        }
    }

    /// Byte `index` of cookie ‖ transaction id, the IPv6 mask.
    private static func maskByte(_ index: Int, _ id: STUNTransactionID) -> UInt8 {
        switch index {
        case 0 ..< 4: UInt8(truncatingIfNeeded: STUN.magicCookie >> (24 - 8 * index))
        case 4 ..< 8: UInt8(truncatingIfNeeded: id.head >> (24 - 8 * (index - 4)))
        default: UInt8(truncatingIfNeeded: id.tail >> (56 - 8 * (index - 8)))
        }
    }
}
