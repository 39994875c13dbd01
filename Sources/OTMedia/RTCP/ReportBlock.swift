/// One reception report block, RFC 3550 section 6.4.1, carried by SR and RR packets.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                 SSRC_1 (SSRC of first source)                 |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | fraction lost |       cumulative number of packets lost       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           extended highest sequence number received           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      interarrival jitter                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         last SR (LSR)                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                   delay since last SR (DLSR)                  |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// ```
/// A plain value (24 bytes on the wire); copying it costs nothing.
public struct ReportBlock: RTCPListItem, Hashable {
    /// Bytes on the wire.
    public static let wireSize = 24
    /// The largest and smallest values of the signed 24-bit cumulative-lost field.
    public static let cumulativeLostRange: ClosedRange<Int32> = -0x80_0000 ... 0x7F_FFFF

    static let ssrcOffset = 0
    static let fractionLostOffset = 4
    static let cumulativeLostOffset = 5
    static let highestSequenceOffset = 8
    static let jitterOffset = 12
    static let lastSenderReportOffset = 16
    static let delayOffset = 20

    /// The source this block reports on.
    public var ssrc: UInt32
    /// Packets lost since the last report, as a fixed-point fraction of 256.
    public var fractionLost: UInt8
    /// Packets lost since the start, signed 24 bits (duplicates can make it negative).
    /// Values outside `cumulativeLostRange` are clamped when written (RFC 3550 6.4.1).
    public var cumulativeLost: Int32
    /// Cycles count (high 16 bits) and highest sequence number received (low 16 bits).
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter in RTP timestamp units.
    public var jitter: UInt32
    /// The middle 32 bits of the NTP timestamp of the last SR received (0 if none).
    public var lastSenderReport: UInt32
    /// Delay since that SR was received, in 1/65536 s (0 if none).
    public var delaySinceLastSenderReport: UInt32

    /// Builds a block.
    public init(ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, extendedHighestSequence: UInt32 = 0,
                jitter: UInt32 = 0, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// Decodes a block at `offset` (the caller checked 24 bytes are there).
    public init(wire bytes: UnsafeRawBufferPointer, at offset: Int) {
        ssrc = bytes.be32(offset + Self.ssrcOffset)
        fractionLost = bytes[offset + Self.fractionLostOffset]
        // Sign-extend 24 bits: shift the field to the top of an Int32 and back.
        let raw = bytes.be24(offset + Self.cumulativeLostOffset)
        cumulativeLost = Int32(bitPattern: raw << 8) >> 8
        extendedHighestSequence = bytes.be32(offset + Self.highestSequenceOffset)
        jitter = bytes.be32(offset + Self.jitterOffset)
        lastSenderReport = bytes.be32(offset + Self.lastSenderReportOffset)
        delaySinceLastSenderReport = bytes.be32(offset + Self.delayOffset)
    }

    /// Parses a block from the first 24 bytes of `bytes`.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        guard bytes.count >= Self.wireSize else { throw .truncated(needed: Self.wireSize, available: bytes.count) }
        self.init(wire: bytes, at: 0)
    }

    /// Encodes the block at `offset` (the caller checked 24 bytes of room).
    public func write(wire bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        bytes.storeBE32(ssrc, at: offset + Self.ssrcOffset)
        bytes[offset + Self.fractionLostOffset] = fractionLost
        let clamped = min(max(cumulativeLost, Self.cumulativeLostRange.lowerBound), Self.cumulativeLostRange.upperBound)
        bytes.storeBE24(UInt32(bitPattern: clamped) & 0xFF_FFFF, at: offset + Self.cumulativeLostOffset)
        bytes.storeBE32(extendedHighestSequence, at: offset + Self.highestSequenceOffset)
        bytes.storeBE32(jitter, at: offset + Self.jitterOffset)
        bytes.storeBE32(lastSenderReport, at: offset + Self.lastSenderReportOffset)
        bytes.storeBE32(delaySinceLastSenderReport, at: offset + Self.delayOffset)
    }

    /// 24.
    public var size: Int { Self.wireSize }

    /// Writes the block at the start of `buffer`; returns 24.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        try RTCPWire.require(buffer, Self.wireSize)
        write(wire: buffer, at: 0)
        return Self.wireSize
    }
}
