/// What the RTCP parsers and writers need besides the shared big-endian accessors
/// (`ByteOrder.swift`): the empty view, the writers' room check, and byte equality.
enum RTCPWire {
    /// An empty byte view, for optional payloads that are absent.
    static var empty: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

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
