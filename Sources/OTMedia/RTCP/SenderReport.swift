/// A sender report (SR), RFC 3550 section 6.4.1: what a sender sent, the wall-clock time
/// of its RTP clock (for lip sync and RTT) and reports on what it received.
///
/// ```
///         0                   1                   2                   3
///         0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// header |V=2|P|    RC   |   PT=SR=200   |             length            |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                         SSRC of sender                        |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// sender |              NTP timestamp, most significant word             |
/// info   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |             NTP timestamp, least significant word             |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                         RTP timestamp                         |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                     sender's packet count                     |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                      sender's octet count                     |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///        |                 report blocks (RC x 24 bytes)                 |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///        |                  profile-specific extensions                  |
/// ```
/// Parsing copies the fixed fields and keeps the report blocks and extension as views into
/// the input (which must outlive the value). Cost: O(1), no allocation.
public struct SenderReport: RTCPPacketWriting, Equatable {
    static let ssrcOffset = 0
    static let ntpOffset = 4
    static let rtpTimestampOffset = 12
    static let packetCountOffset = 16
    static let octetCountOffset = 20
    /// Bytes of SSRC plus sender info, after the header.
    static let fixedBodySize = 24

    /// The sender's SSRC.
    public var ssrc: UInt32
    /// Wall-clock time when this report was sent.
    public var ntpTimestamp: NTPTimestamp
    /// The same instant in the RTP clock of this sender's stream.
    public var rtpTimestamp: UInt32
    /// RTP data packets sent since the start.
    public var packetCount: UInt32
    /// RTP payload octets sent since the start.
    public var octetCount: UInt32
    /// Reports on the sources this sender receives (at most 31).
    public var reportBlocks: RTCPList<ReportBlock>
    /// Profile-specific extension bytes (a multiple of 4; usually empty).
    public var profileExtension: UnsafeRawBufferPointer

    /// Builds an SR. `reportBlocks` and `profileExtension` are views the caller keeps alive.
    public init(ssrc: UInt32, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
                reportBlocks: RTCPList<ReportBlock> = .empty,
                profileExtension: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    /// Parses one SR packet at the start of `bytes` (RFC 3550 6.4.1): checks PT, length,
    /// padding, and that RC report blocks fit. Never traps.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.split(bytes, type: .senderReport)
        let blocksSize = Int(header.count) * ReportBlock.wireSize
        let needed = Self.fixedBodySize + blocksSize
        guard body.count >= needed else { throw .truncated(needed: needed + RTCPHeader.size, available: body.count + RTCPHeader.size) }
        ssrc = body.be32(Self.ssrcOffset)
        ntpTimestamp = NTPTimestamp(rawValue: body.be64(Self.ntpOffset))
        rtpTimestamp = body.be32(Self.rtpTimestampOffset)
        packetCount = body.be32(Self.packetCountOffset)
        octetCount = body.be32(Self.octetCountOffset)
        reportBlocks = RTCPList(wire: body.view(from: Self.fixedBodySize, count: blocksSize), count: Int(header.count))
        profileExtension = body.view(from: needed, count: body.count - needed)
    }

    /// `.senderReport`.
    public var packetType: RTCPPacketType { .senderReport }

    /// 28 + 24 per report block + the extension.
    public var size: Int { RTCPHeader.size + Self.fixedBodySize + reportBlocks.wireSize + profileExtension.count }

    /// Writes the SR (header included) at the start of `buffer`; returns `size`. Throws if
    /// there are more than 31 blocks, the extension is not word-aligned or the buffer is short.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        guard reportBlocks.count <= RTCPHeader.maxCount else { throw .tooManyItems(count: reportBlocks.count, limit: RTCPHeader.maxCount) }
        guard profileExtension.count % 4 == 0 else { throw .malformed(.extensionNotWordAligned) }
        let size = self.size
        try RTCPHeader.checkSize(size)
        try RTCPWire.require(buffer, size)
        RTCPHeader.write(count: reportBlocks.count, packetType: .senderReport, size: size, into: buffer)
        let body = RTCPHeader.size
        buffer.storeBE32(ssrc, at: body + Self.ssrcOffset)
        buffer.storeBE64(ntpTimestamp.rawValue, at: body + Self.ntpOffset)
        buffer.storeBE32(rtpTimestamp, at: body + Self.rtpTimestampOffset)
        buffer.storeBE32(packetCount, at: body + Self.packetCountOffset)
        buffer.storeBE32(octetCount, at: body + Self.octetCountOffset)
        reportBlocks.write(wire: buffer, at: body + Self.fixedBodySize)
        buffer.copy(profileExtension, to: body + Self.fixedBodySize + reportBlocks.wireSize)
        return size
    }

    /// Same fields, same blocks, same extension bytes.
    public static func == (lhs: SenderReport, rhs: SenderReport) -> Bool {
        lhs.ssrc == rhs.ssrc && lhs.ntpTimestamp == rhs.ntpTimestamp && lhs.rtpTimestamp == rhs.rtpTimestamp
            && lhs.packetCount == rhs.packetCount && lhs.octetCount == rhs.octetCount
            && lhs.reportBlocks == rhs.reportBlocks && RTCPWire.equal(lhs.profileExtension, rhs.profileExtension)
    }
}
