/// CRC-32 (ISO-HDLC / IEEE 802.3: reflected polynomial 0xEDB88320, initial value and final
/// xor 0xFFFFFFFF), the checksum STUN's FINGERPRINT uses (RFC 8489 section 14.7).
///
/// A 256-entry table built once on first use, then one table lookup per byte. Written
/// here rather than taken from zlib so OTMedia needs no extra library for 4 bytes.
enum STUNCRC32 {
    /// The byte-at-a-time table: entry n is the CRC of the single byte n.
    static let table: [UInt32] = (0 ..< 256).map { index in
        var value = UInt32(index)
        for _ in 0 ..< 8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    /// The CRC-32 of `bytes`. "123456789" gives 0xCBF43926. Cost: one lookup per byte.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The FINGERPRINT value for a message whose first `bytes.count` bytes precede the
    /// FINGERPRINT attribute (with the length field already counting it).
    static func fingerprint(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        checksum(bytes) ^ STUN.fingerprintXOR
    }
}
