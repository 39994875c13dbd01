/// Writes one STUN message into a caller's buffer, attribute by attribute, keeping the
/// header's length field current after each one (RFC 8489 sections 5, 14).
///
/// MESSAGE-INTEGRITY and FINGERPRINT are computed over what is already written, so
/// append them last (integrity, then fingerprint). Nothing is allocated: the buffer is the
/// caller's (a worker's response buffer). Padding bytes are `paddingByte` (0 normally;
/// RFC 5769's vectors pad with spaces, which receivers must accept, so tests can set 0x20).
/// A write that does not fit throws `bufferTooSmall` and leaves the message as it was.
public struct STUNWriter {
    /// The destination.
    public let buffer: UnsafeMutableRawBufferPointer
    /// Bytes written so far (header included): the message's size once finished.
    public private(set) var count: Int
    /// The transaction id written in the header (XOR-MAPPED-ADDRESS uses it for IPv6).
    public let transactionID: STUNTransactionID
    /// The value written into padding.
    public let paddingByte: UInt8

    /// Starts a message: writes the 20-byte header with length 0. Cost: 20 byte stores.
    public init(into buffer: UnsafeMutableRawBufferPointer, type: STUNMessageType,
                transactionID: STUNTransactionID, paddingByte: UInt8 = 0) throws(STUNError) {
        guard buffer.count >= STUN.headerSize else { throw .bufferTooSmall(needed: STUN.headerSize, available: buffer.count) }
        self.buffer = buffer
        self.transactionID = transactionID
        self.paddingByte = paddingByte
        count = STUN.headerSize
        buffer.storeBE16(type.wireValue, at: 0)
        buffer.storeBE16(0, at: 2)
        buffer.storeBE32(STUN.magicCookie, at: 4)
        transactionID.write(into: buffer)
    }

    /// The written message.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[0 ..< count]) }

    /// Reserves an attribute of `length` value bytes, writes its header and padding, and
    /// returns the value's offset for the caller to fill.
    private mutating func reserve(_ type: STUNAttributeType, length: Int) throws(STUNError) -> Int {
        let padded = (length + 3) & ~3
        let needed = count + 4 + padded
        guard length <= 0xFFFF, needed - STUN.headerSize <= 0xFFFF, needed <= buffer.count else {
            throw .bufferTooSmall(needed: needed, available: buffer.count)
        }
        buffer.storeBE16(type.rawValue, at: count)
        buffer.storeBE16(UInt16(length), at: count + 2)
        for index in count + 4 + length ..< needed { buffer[index] = paddingByte }
        let value = count + 4
        count = needed
        buffer.storeBE16(UInt16(count - STUN.headerSize), at: 2)
        return value
    }

    /// Appends an attribute with `value` as its bytes. Cost: a copy of `value`.
    public mutating func append(_ type: STUNAttributeType, bytes value: UnsafeRawBufferPointer) throws(STUNError) {
        let offset = try reserve(type, length: value.count)
        if !value.isEmpty {
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset ..< offset + value.count]).copyMemory(from: value)
        }
    }

    /// Appends an attribute whose value is the UTF-8 of `text` (USERNAME, SOFTWARE).
    /// Cost: a copy of the UTF-8 (a native string's storage: no allocation).
    public mutating func append(_ type: STUNAttributeType, text: String) throws(STUNError) {
        var text = text
        let offset = try reserve(type, length: text.utf8.count)
        let buffer = buffer
        text.withUTF8 { utf8 in
            guard !utf8.isEmpty else { return }
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset ..< offset + utf8.count])
                .copyMemory(from: UnsafeRawBufferPointer(utf8))
        }
    }

    /// Appends a 4-byte big-endian value (PRIORITY).
    public mutating func append(_ type: STUNAttributeType, uint32 value: UInt32) throws(STUNError) {
        let offset = try reserve(type, length: 4)
        buffer.storeBE32(value, at: offset)
    }

    /// Appends an 8-byte big-endian value (ICE-CONTROLLING / ICE-CONTROLLED).
    public mutating func append(_ type: STUNAttributeType, uint64 value: UInt64) throws(STUNError) {
        let offset = try reserve(type, length: 8)
        buffer.storeBE32(UInt32(truncatingIfNeeded: value >> 32), at: offset)
        buffer.storeBE32(UInt32(truncatingIfNeeded: value), at: offset + 4)
    }

    /// Appends an attribute with no value (USE-CANDIDATE).
    public mutating func appendFlag(_ type: STUNAttributeType) throws(STUNError) {
        _ = try reserve(type, length: 0)
    }

    /// Appends XOR-MAPPED-ADDRESS for `address` (IPv4: 8 value bytes, IPv6: 20).
    public mutating func appendXORMappedAddress(_ address: SocketAddress) throws(STUNError) {
        let offset = try reserve(.xorMappedAddress, length: STUNXORAddress.valueSize(address.family))
        STUNXORAddress.encode(address, transactionID: transactionID, into: buffer, at: offset)
    }

    /// Appends ERROR-CODE `code` (300–699) with an ASCII `reason`.
    public mutating func appendErrorCode(_ code: Int, reason: StaticString) throws(STUNError) {
        guard (300 ... 699).contains(code) else { throw .malformedAttribute(type: STUNAttributeType.errorCode.rawValue) }
        let text = UnsafeRawBufferPointer(start: reason.utf8Start, count: reason.utf8CodeUnitCount)
        let offset = try reserve(.errorCode, length: 4 + text.count)
        buffer.storeBE16(0, at: offset)
        buffer[offset + 2] = UInt8(code / 100)
        buffer[offset + 3] = UInt8(code % 100)
        if !text.isEmpty {
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset + 4 ..< offset + 4 + text.count]).copyMemory(from: text)
        }
    }

    /// Appends MESSAGE-INTEGRITY: HMAC-SHA1 keyed by `key` over the message so far, with
    /// the length field already counting this attribute. Cost: one HMAC-SHA1.
    public mutating func appendMessageIntegrity(key: UnsafeRawBufferPointer) throws(STUNError) {
        let offset = try reserve(.messageIntegrity, length: STUN.integritySize)
        STUNIntegrity.hmacSHA1(key: key, message: UnsafeRawBufferPointer(rebasing: buffer[0 ..< offset - 4]),
                               into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset ..< offset + STUN.integritySize]))
    }

    /// Appends FINGERPRINT: CRC-32 of the message so far (length counting this attribute)
    /// xor 0x5354554E. Must be the last attribute. Cost: one CRC-32 pass.
    public mutating func appendFingerprint() throws(STUNError) {
        let offset = try reserve(.fingerprint, length: 4)
        buffer.storeBE32(STUNCRC32.fingerprint(UnsafeRawBufferPointer(rebasing: buffer[0 ..< offset - 4])), at: offset)
    }
}
