extension STUNMessage {
    /// True when the message carries FINGERPRINT and it equals the CRC-32 of the bytes
    /// before it xor 0x5354554E (RFC 8489 section 14.7). `datagram` must be the bytes this
    /// message was parsed from. Cost: one CRC-32 pass, no allocation.
    public func verifyFingerprint(in datagram: UnsafeRawBufferPointer) -> Bool {
        guard let offset = fingerprintOffset, datagram.count == size, offset + 8 <= datagram.count else { return false }
        return STUNCRC32.fingerprint(datagram.view(0 ..< offset)) == datagram.be32(offset + 4)
    }

    /// True when the message carries MESSAGE-INTEGRITY and it is the HMAC-SHA1, keyed by
    /// `key` (the ICE password's bytes: short-term credentials), of the message up to the
    /// attribute with the header's length field set as if MESSAGE-INTEGRITY were the last
    /// attribute (RFC 8489 section 14.5: FINGERPRINT after it is not counted). Compared in
    /// constant time. `datagram` must be the bytes this message was parsed from. Cost: a
    /// copy of the covered bytes (≤ 1,500) into a temporary buffer, so the datagram is never
    /// written, and one HMAC-SHA1.
    public func verifyIntegrity(in datagram: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) -> Bool {
        guard let offset = integrityOffset, datagram.count == size,
              offset + 4 + STUN.integritySize <= datagram.count else { return false }
        return withUnsafeTemporaryAllocation(byteCount: offset + 2 * STUN.integritySize, alignment: 8) { scratch in
            let covered = UnsafeMutableRawBufferPointer(rebasing: scratch[0 ..< offset])
            covered.copyMemory(from: datagram.view(0 ..< offset))
            covered.storeBE16(UInt16(offset + 4 + STUN.integritySize - STUN.headerSize), at: 2)
            let computed = UnsafeMutableRawBufferPointer(rebasing: scratch[offset ..< offset + STUN.integritySize])
            STUNIntegrity.hmacSHA1(key: key, message: UnsafeRawBufferPointer(covered), into: computed)
            return STUNIntegrity.equalInConstantTime(UnsafeRawBufferPointer(computed),
                                                     datagram.view(from: offset + 4, count: STUN.integritySize))
        }
    }
}
