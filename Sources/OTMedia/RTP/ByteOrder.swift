/// Big-endian (network order) reads and writes on raw buffers, shared by the RTP and RTCP
/// parsers and writers.
///
/// These do not check bounds themselves: every caller has checked the length first (the
/// parsers compare against `count` before each read). Cost: a few byte loads, inlined.
extension UnsafeRawBufferPointer {
    /// The byte at `offset`.
    @inline(__always) func u8(_ offset: Int) -> UInt8 { self[offset] }

    /// The big-endian 16-bit value at `offset`.
    @inline(__always) func be16(_ offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    /// The big-endian 24-bit value at `offset`.
    @inline(__always) func be24(_ offset: Int) -> UInt32 {
        UInt32(self[offset]) << 16 | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2])
    }

    /// The big-endian 32-bit value at `offset`.
    @inline(__always) func be32(_ offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }

    /// The big-endian 64-bit value at `offset`.
    @inline(__always) func be64(_ offset: Int) -> UInt64 {
        UInt64(be32(offset)) << 32 | UInt64(be32(offset + 4))
    }

    /// The bytes in `range` as a view (no copy; `range` must lie inside the buffer).
    @inline(__always) func view(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: self[range])
    }

    /// `count` bytes from `offset` as a view; an empty view (nil base) when `count` is 0.
    @inline(__always) func view(from offset: Int, count: Int) -> UnsafeRawBufferPointer {
        count == 0 ? UnsafeRawBufferPointer(start: nil, count: 0) : view(offset..<(offset + count))
    }
}

extension UnsafeMutableRawBufferPointer {
    /// Stores `value` big-endian at `offset`.
    @inline(__always) func storeBE16(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 1] = UInt8(truncatingIfNeeded: value)
    }

    /// Stores `value` big-endian at `offset`.
    @inline(__always) func storeBE32(_ value: UInt32, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 24)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        self[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 3] = UInt8(truncatingIfNeeded: value)
    }

    /// Stores the low 24 bits of `value` big-endian at `offset`.
    @inline(__always) func storeBE24(_ value: UInt32, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 16)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 2] = UInt8(truncatingIfNeeded: value)
    }

    /// Stores `value` big-endian at `offset`.
    @inline(__always) func storeBE64(_ value: UInt64, at offset: Int) {
        storeBE32(UInt32(truncatingIfNeeded: value >> 32), at: offset)
        storeBE32(UInt32(truncatingIfNeeded: value), at: offset + 4)
    }

    /// Writes `count` zero bytes at `offset` (the caller checked that they fit).
    @inline(__always) func zero(at offset: Int, count: Int) {
        guard count > 0, let base = baseAddress else { return }
        (base + offset).initializeMemory(as: UInt8.self, repeating: 0, count: count)
    }

    /// Copies `bytes` to `offset` (the caller checked that they fit).
    @inline(__always) func copy(_ bytes: UnsafeRawBufferPointer, to offset: Int) {
        guard let source = bytes.baseAddress, let base = baseAddress, bytes.count > 0 else { return }
        (base + offset).copyMemory(from: source, byteCount: bytes.count)
    }
}
