/// The fields of an RTP header (RFC 3550 section 5.1) to be written into a packet.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           timestamp                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           synchronization source (SSRC) identifier            |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |            contributing source (CSRC) identifiers             |
/// |                             ....                              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      defined by profile       |           length              |  (if X, section 5.3.1)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                        header extension                       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// CSRCs and extension elements live inline (`RTPCSRCList`, `RTPHeaderExtensions`), so
/// building, copying and writing a header allocates nothing. Cost: a ~340-byte value;
/// `write` stores 12 bytes plus CSRCs and copies the extension data.
public struct RTPHeader: Sendable, Equatable {
    /// The P bit: the packet ends with padding. `writePacket` sets it from its
    /// `paddingCount`; set it yourself only when you append padding with `writePadding`.
    public var hasPadding = false
    /// The M bit (for VP8: the last packet of a frame).
    public var marker = false
    /// The payload type, 0...127.
    public var payloadType: UInt8
    /// The sequence number (wraps at 65535).
    public var sequenceNumber: UInt16
    /// The media timestamp (90 kHz for video, 48 kHz for Opus).
    public var timestamp: UInt32
    /// The synchronization source.
    public var ssrc: UInt32
    /// Contributing sources, at most 15.
    public var csrcs = RTPCSRCList()
    /// The header extension, or nil for none (X bit clear).
    public var extensions: RTPHeaderExtensions?

    /// RFC 3550 section 5.1: the only version there is.
    public static let version: UInt8 = 2
    /// Bytes before the CSRC list.
    public static let fixedSize = 12
    /// Bytes per CSRC.
    static let csrcSize = 4
    static let versionShift: UInt8 = 6
    static let paddingBit: UInt8 = 0x20
    static let extensionBit: UInt8 = 0x10
    static let csrcCountMask: UInt8 = 0x0F
    static let markerBit: UInt8 = 0x80
    static let payloadTypeMask: UInt8 = 0x7F
    static let sequenceNumberOffset = 2
    static let timestampOffset = 4
    static let ssrcOffset = 8

    /// A header with no CSRCs, no extension, no padding.
    public init(payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, marker: Bool = false) {
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.marker = marker
    }

    /// Copies the header of a parsed packet (CSRCs and extension data included, padding
    /// flag as parsed). Throws `extensionStorageFull` when the packet's extension is
    /// longer than `RTPHeaderExtensions.capacity`.
    public init(_ packet: RTPPacket) throws(RTPError) {
        self.init(payloadType: packet.payloadType, sequenceNumber: packet.sequenceNumber,
                  timestamp: packet.timestamp, ssrc: packet.ssrc, marker: packet.marker)
        hasPadding = packet.hasPadding
        for i in 0..<packet.csrcCount { try csrcs.append(packet.csrc(at: i)) }
        if let elements = packet.extensions { extensions = try RTPHeaderExtensions(copying: elements) }
    }

    /// Bytes `write(into:)` writes: 12 + 4 per CSRC + the extension's size.
    /// (Must match `write(into:)`.)
    public var size: Int {
        Self.fixedSize + csrcs.count * Self.csrcSize + (extensions?.size ?? 0)
    }

    /// Writes the header at the start of `buffer`; returns the bytes written (`size`).
    /// Throws `bufferTooSmall` if `buffer` is shorter than `size`, `fieldOutOfRange` for a
    /// payload type above 127. Cost: `size` byte stores, nothing allocated.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        let size = self.size
        guard buffer.count >= size else { throw .bufferTooSmall(needed: size, available: buffer.count) }
        guard payloadType <= Self.payloadTypeMask else { throw .fieldOutOfRange(what: "payload type", value: Int(payloadType)) }
        var first = Self.version << Self.versionShift | UInt8(csrcs.count)
        if hasPadding { first |= Self.paddingBit }
        if extensions != nil { first |= Self.extensionBit }
        buffer[0] = first
        buffer[1] = (marker ? Self.markerBit : 0) | payloadType
        buffer.storeBE16(sequenceNumber, at: Self.sequenceNumberOffset)
        buffer.storeBE32(timestamp, at: Self.timestampOffset)
        buffer.storeBE32(ssrc, at: Self.ssrcOffset)
        var offset = Self.fixedSize
        for csrc in csrcs {
            buffer.storeBE32(csrc, at: offset)
            offset += Self.csrcSize
        }
        if let extensions { offset += extensions.write(into: buffer, at: offset) }
        return offset
    }

    /// Writes a whole packet: this header (with the P bit set when `paddingCount` > 0),
    /// `payload`, then `paddingCount` bytes of padding (zeros, the last one the count,
    /// RFC 3550 section 5.1). Returns the packet length. Throws `bufferTooSmall`, or
    /// `fieldOutOfRange` for a padding count outside 0...255. Cost: one payload copy.
    public func writePacket(payload: UnsafeRawBufferPointer, paddingCount: Int = 0,
                            into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        guard (0...255).contains(paddingCount) else { throw .fieldOutOfRange(what: "padding count", value: paddingCount) }
        let total = size + payload.count + paddingCount
        guard buffer.count >= total else { throw .bufferTooSmall(needed: total, available: buffer.count) }
        var header = self
        header.hasPadding = paddingCount > 0
        var offset = try header.write(into: buffer)
        buffer.copy(payload, to: offset)
        offset += payload.count
        offset += try Self.writePadding(paddingCount, into: buffer, at: offset)
        return offset
    }

    /// Writes `count` bytes of RTP padding at `offset` (count-1 zeros then the count
    /// byte); returns `count`. For a caller that wrote the payload in place after a
    /// header with `hasPadding` set.
    public static func writePadding(_ count: Int, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(RTPError) -> Int {
        guard (0...255).contains(count) else { throw .fieldOutOfRange(what: "padding count", value: count) }
        guard count > 0 else { return 0 }
        guard offset >= 0, buffer.count - offset >= count else {
            throw .bufferTooSmall(needed: offset + count, available: buffer.count)
        }
        for i in 0..<count - 1 { buffer[offset + i] = 0 }
        buffer[offset + count - 1] = UInt8(count)
        return count
    }
}
