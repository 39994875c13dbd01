/// Big-endian reads and writes at byte offsets, shared by the RTCP parsers and writers.
///
/// Callers check bounds first (every parser compares lengths before it reads); these
/// helpers only do the unaligned, byte-swapped access. Cost: one load or store each.
enum RTCPWire {
    /// An empty byte view, for optional payloads that are absent.
    static var empty: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    @inline(__always)
    static func u8(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt8 {
        bytes[offset]
    }

    @inline(__always)
    static func u16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
        UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inline(__always)
    static func u24(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    @inline(__always)
    static func u32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always)
    static func u64(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    static func put8(_ bytes: UnsafeMutableRawBufferPointer, _ offset: Int, _ value: UInt8) {
        bytes[offset] = value
    }

    @inline(__always)
    static func put16(_ bytes: UnsafeMutableRawBufferPointer, _ offset: Int, _ value: UInt16) {
        bytes.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt16.self)
    }

    @inline(__always)
    static func put24(_ bytes: UnsafeMutableRawBufferPointer, _ offset: Int, _ value: UInt32) {
        bytes[offset] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: value)
    }

    @inline(__always)
    static func put32(_ bytes: UnsafeMutableRawBufferPointer, _ offset: Int, _ value: UInt32) {
        bytes.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }

    @inline(__always)
    static func put64(_ bytes: UnsafeMutableRawBufferPointer, _ offset: Int, _ value: UInt64) {
        bytes.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt64.self)
    }

    /// `count` bytes of `bytes` from `offset`, as a view (no copy). Caller checked bounds.
    @inline(__always)
    static func slice(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ count: Int) -> UnsafeRawBufferPointer {
        count == 0 ? empty : UnsafeRawBufferPointer(rebasing: bytes[offset ..< offset + count])
    }

    /// Copies `source` into `destination` at `offset`. Caller checked bounds.
    @inline(__always)
    static func copy(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer, at offset: Int) {
        guard source.count > 0, let from = source.baseAddress, let to = destination.baseAddress else { return }
        (to + offset).copyMemory(from: from, byteCount: source.count)
    }

    /// Writes `count` zero bytes at `offset`. Caller checked bounds.
    @inline(__always)
    static func zero(_ destination: UnsafeMutableRawBufferPointer, at offset: Int, count: Int) {
        guard count > 0, let to = destination.baseAddress else { return }
        (to + offset).initializeMemory(as: UInt8.self, repeating: 0, count: count)
    }

    /// Throws `.bufferTooSmall` unless `buffer` holds `needed` bytes.
    @inline(__always)
    static func require(_ buffer: UnsafeMutableRawBufferPointer, _ needed: Int) throws(RTCPError) {
        guard buffer.count >= needed else { throw .bufferTooSmall(needed: needed, available: buffer.count) }
    }

    /// Two byte views hold the same bytes.
    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && a.elementsEqual(b)
    }
}
