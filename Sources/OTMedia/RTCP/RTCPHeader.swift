/// The four bytes that start every RTCP packet (RFC 3550 section 6.4.1; RFC 4585 6.1
/// reuses the count field as FMT).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  count  |      PT       |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// `length` is the packet's size in 32-bit words minus one, header and padding included.
public struct RTCPHeader: Sendable, Equatable {
    /// The header's size in bytes.
    public static let size = 4
    /// The only RTP/RTCP version (bits 0–1).
    public static let version: UInt8 = 2

    static let versionShift: UInt8 = 6
    static let paddingBit: UInt8 = 0x20
    static let countMask: UInt8 = 0x1F
    /// The largest value the 5-bit count field holds.
    public static let maxCount = 31

    /// P: the packet ends with padding whose last byte is the padding length.
    public var padding: Bool
    /// RC (SR/RR), SC (SDES/BYE) or FMT (feedback): 5 bits.
    public var count: UInt8
    /// PT.
    public var packetType: RTCPPacketType
    /// Length in 32-bit words minus one.
    public var length: UInt16

    /// Builds a header. `count` must be below 32; `length` is words minus one.
    public init(padding: Bool = false, count: UInt8, packetType: RTCPPacketType, length: UInt16) {
        self.padding = padding
        self.count = count & Self.countMask
        self.packetType = packetType
        self.length = length
    }

    /// The whole packet's size in bytes, from `length`.
    public var packetSize: Int { (Int(length) + 1) * 4 }

    /// Reads a header from the first 4 bytes. Checks the version, nothing else.
    /// Cost: 4 byte reads.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        guard bytes.count >= Self.size else { throw .truncated(needed: Self.size, available: bytes.count) }
        let first = bytes[0]
        let version = first >> Self.versionShift
        guard version == Self.version else { throw .unsupportedVersion(version) }
        padding = first & Self.paddingBit != 0
        count = first & Self.countMask
        packetType = RTCPPacketType(rawValue: bytes[1])
        length = bytes.be16(2)
    }

    /// Writes the header into the first 4 bytes of `buffer`; returns 4.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        try RTCPWire.require(buffer, Self.size)
        buffer[0] = Self.version << Self.versionShift | (padding ? Self.paddingBit : 0) | (count & Self.countMask)
        buffer[1] = packetType.rawValue
        buffer.storeBE16(length, at: 2)
        return Self.size
    }

    /// Writes a header for a packet of `size` bytes (a multiple of 4) without padding.
    static func write(count: Int, packetType: RTCPPacketType, size: Int, into buffer: UnsafeMutableRawBufferPointer) {
        buffer[0] = version << versionShift | UInt8(truncatingIfNeeded: count) & countMask
        buffer[1] = packetType.rawValue
        buffer.storeBE16(UInt16(truncatingIfNeeded: size / 4 - 1), at: 2)
    }

    /// Checks that a packet of `size` bytes fits the 16-bit length field.
    static func checkSize(_ size: Int) throws(RTCPError) {
        guard size <= 65536 * 4 else { throw .tooManyItems(count: size, limit: 65536 * 4) }
    }

    /// Splits one packet (header first) into its header and its body: the bytes after the
    /// header, padding removed. Validates the length field and the padding: the last byte
    /// counts the padding bytes, itself included, and must be non-zero and inside the
    /// packet. RFC 3550 6.4.1 expects a multiple of 4, but libwebrtc pads TWCC feedback by
    /// 1–3 bytes with the P bit, so any count is accepted. Bytes after the packet's end are
    /// ignored. Cost: a few comparisons; the body is a view.
    static func split(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> (RTCPHeader, UnsafeRawBufferPointer) {
        let header = try RTCPHeader(parsing: bytes)
        let size = header.packetSize
        guard size <= bytes.count else { throw .invalidLength(declaredBytes: size, availableBytes: bytes.count) }
        var end = size
        if header.padding {
            let pad = Int(bytes[size - 1])
            guard pad > 0, pad <= size - Self.size else { throw .invalidPadding }
            end -= pad
        }
        return (header, bytes.view(from: Self.size, count: end - Self.size))
    }

    /// `split`, then checks PT (and FMT when given).
    static func split(_ bytes: UnsafeRawBufferPointer, type: RTCPPacketType, format: UInt8? = nil)
        throws(RTCPError) -> (RTCPHeader, UnsafeRawBufferPointer)
    {
        let (header, body) = try split(bytes)
        guard header.packetType == type, format.map({ $0 == header.count }) ?? true else {
            throw .unexpectedType(packetType: header.packetType.rawValue, format: header.count)
        }
        return (header, body)
    }
}
