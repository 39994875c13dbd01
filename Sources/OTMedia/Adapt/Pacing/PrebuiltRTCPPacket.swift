/// An RTCP packet already written elsewhere (say, by `TransportFeedbackRecorder`), to
/// append to a compound with `RTCPCompoundWriter` as it is.
///
/// The bytes must be one whole RTCP packet (header included, a multiple of 4 bytes) and
/// outlive the value. Cost: one copy when written; no allocation.
public struct PrebuiltRTCPPacket: RTCPPacketWriting {
    /// The packet's bytes.
    public let bytes: UnsafeRawBufferPointer

    /// Wraps `bytes` (one whole RTCP packet of at least 4 bytes).
    public init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The type byte of the header (byte 1).
    public var packetType: RTCPPacketType { RTCPPacketType(rawValue: bytes.count > 1 ? bytes[1] : 0) }

    /// The bytes' count.
    public var size: Int { bytes.count }

    /// Copies the bytes to the start of `buffer`; `.bufferTooSmall` when they do not fit.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        guard buffer.count >= bytes.count else { throw .bufferTooSmall(needed: bytes.count, available: buffer.count) }
        if let base = bytes.baseAddress, let target = buffer.baseAddress {
            target.copyMemory(from: base, byteCount: bytes.count)
        }
        return bytes.count
    }
}
