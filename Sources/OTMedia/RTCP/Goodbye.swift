/// A goodbye (BYE), RFC 3550 section 6.6: these sources are leaving, optionally saying why.
///
/// ```
///        0                   1                   2                   3
///        0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///       +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///       |V=2|P|    SC   |   PT=BYE=203  |             length            |
///       +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///       |                           SSRC/CSRC                           |
///       +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///       :                              ...                              :
///       +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// (opt) |     length    |               reason for leaving            ...
///       +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// The SSRC list and the reason are views. Cost: O(1), no allocation.
public struct Goodbye: RTCPPacketWriting, Equatable {
    /// The leaving sources (at most 31).
    public var sources: RTCPList<UInt32>
    /// The reason text (UTF-8, at most 255 bytes), empty when absent.
    public var reason: UnsafeRawBufferPointer

    /// Builds a BYE. The views must outlive the value.
    public init(sources: RTCPList<UInt32>, reason: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) {
        self.sources = sources
        self.reason = reason
    }

    /// Parses one BYE at the start of `bytes`. Never traps.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.split(bytes, type: .goodbye)
        let listSize = Int(header.count) * 4
        guard body.count >= listSize else { throw .truncated(needed: listSize + RTCPHeader.size, available: body.count + RTCPHeader.size) }
        sources = RTCPList(wire: body.view(from: 0, count: listSize), count: Int(header.count))
        if body.count > listSize {
            let length = Int(body[listSize])
            guard listSize + 1 + length <= body.count else { throw .malformed(.goodbyeReasonOverrun) }
            reason = body.view(from: listSize + 1, count: length)
        } else {
            reason = RTCPWire.empty
        }
    }

    /// `.goodbye`.
    public var packetType: RTCPPacketType { .goodbye }

    /// 4 + 4 per SSRC + (reason: 1 + length, rounded up to a word).
    public var size: Int {
        let reasonSize = reason.count == 0 ? 0 : (1 + reason.count + 3) & ~3
        return RTCPHeader.size + sources.wireSize + reasonSize
    }

    /// Writes the BYE at the start of `buffer`; returns `size`.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        guard sources.count <= RTCPHeader.maxCount else { throw .tooManyItems(count: sources.count, limit: RTCPHeader.maxCount) }
        guard reason.count <= 255 else { throw .tooManyItems(count: reason.count, limit: 255) }
        let size = self.size
        try RTCPWire.require(buffer, size)
        RTCPHeader.write(count: sources.count, packetType: .goodbye, size: size, into: buffer)
        sources.write(wire: buffer, at: RTCPHeader.size)
        if reason.count > 0 {
            let offset = RTCPHeader.size + sources.wireSize
            buffer[offset] = UInt8(reason.count)
            buffer.copy(reason, to: offset + 1)
            buffer.zero(at: offset + 1 + reason.count, count: size - offset - 1 - reason.count)
        }
        return size
    }

    /// Same sources and same reason bytes.
    public static func == (lhs: Goodbye, rhs: Goodbye) -> Bool {
        lhs.sources == rhs.sources && RTCPWire.equal(lhs.reason, rhs.reason)
    }
}
