/// Big-endian loads and stores at fixed offsets of a packet, for rewriting RTP headers in
/// place (RFC 3550 5.1: sequence number at byte 2, SSRC at byte 8). Inlined; no checks:
/// callers have validated the header length.
enum WireBytes {
    @inline(__always)
    static func be16(_ p: UnsafeMutableRawPointer, _ offset: Int) -> UInt16 {
        UInt16(p.load(fromByteOffset: offset, as: UInt8.self)) << 8 | UInt16(p.load(fromByteOffset: offset + 1, as: UInt8.self))
    }

    @inline(__always)
    static func be32(_ p: UnsafeMutableRawPointer, _ offset: Int) -> UInt32 {
        UInt32(be16(p, offset)) << 16 | UInt32(be16(p, offset + 2))
    }

    @inline(__always)
    static func store16(_ value: UInt16, _ p: UnsafeMutableRawPointer, _ offset: Int) {
        p.storeBytes(of: UInt8(value >> 8), toByteOffset: offset, as: UInt8.self)
        p.storeBytes(of: UInt8(value & 0xFF), toByteOffset: offset + 1, as: UInt8.self)
    }

    @inline(__always)
    static func store32(_ value: UInt32, _ p: UnsafeMutableRawPointer, _ offset: Int) {
        store16(UInt16(value >> 16), p, offset)
        store16(UInt16(value & 0xFFFF), p, offset + 2)
    }
}
