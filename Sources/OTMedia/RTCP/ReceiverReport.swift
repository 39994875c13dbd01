/// A receiver report (RR), RFC 3550 section 6.4.2: reception statistics from a
/// participant that is not sending (or reports beyond the 31 an SR holds).
///
/// ```
///         0                   1                   2                   3
///         0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// header |V=2|P|    RC   |   PT=RR=201   |             length            |
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                     SSRC of packet sender                     |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///        |                 report blocks (RC x 24 bytes)                 |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///        |                  profile-specific extensions                  |
/// ```
/// Blocks and extension are views into the input. Cost: O(1), no allocation.
public struct ReceiverReport: RTCPPacketWriting, Equatable {
    static let fixedBodySize = 4

    /// The reporter's SSRC.
    public var ssrc: UInt32
    /// Reports on the sources this participant receives (at most 31).
    public var reportBlocks: RTCPList<ReportBlock>
    /// Profile-specific extension bytes (a multiple of 4; usually empty).
    public var profileExtension: UnsafeRawBufferPointer

    /// Builds an RR. The views must outlive the value.
    public init(ssrc: UInt32, reportBlocks: RTCPList<ReportBlock> = .empty,
                profileExtension: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    /// Parses one RR packet at the start of `bytes` (RFC 3550 6.4.2). Never traps.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.split(bytes, type: .receiverReport)
        let blocksSize = Int(header.count) * ReportBlock.wireSize
        let needed = Self.fixedBodySize + blocksSize
        guard body.count >= needed else { throw .truncated(needed: needed + RTCPHeader.size, available: body.count + RTCPHeader.size) }
        ssrc = body.be32(0)
        reportBlocks = RTCPList(wire: body.view(from: Self.fixedBodySize, count: blocksSize), count: Int(header.count))
        profileExtension = body.view(from: needed, count: body.count - needed)
    }

    /// `.receiverReport`.
    public var packetType: RTCPPacketType { .receiverReport }

    /// 8 + 24 per report block + the extension.
    public var size: Int { RTCPHeader.size + Self.fixedBodySize + reportBlocks.wireSize + profileExtension.count }

    /// Writes the RR at the start of `buffer`; returns `size`.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        guard reportBlocks.count <= RTCPHeader.maxCount else { throw .tooManyItems(count: reportBlocks.count, limit: RTCPHeader.maxCount) }
        guard profileExtension.count % 4 == 0 else { throw .malformed(.extensionNotWordAligned) }
        let size = self.size
        try RTCPHeader.checkSize(size)
        try RTCPWire.require(buffer, size)
        RTCPHeader.write(count: reportBlocks.count, packetType: .receiverReport, size: size, into: buffer)
        buffer.storeBE32(ssrc, at: RTCPHeader.size)
        reportBlocks.write(wire: buffer, at: RTCPHeader.size + Self.fixedBodySize)
        buffer.copy(profileExtension, to: RTCPHeader.size + Self.fixedBodySize + reportBlocks.wireSize)
        return size
    }

    /// Same SSRC, blocks and extension bytes.
    public static func == (lhs: ReceiverReport, rhs: ReceiverReport) -> Bool {
        lhs.ssrc == rhs.ssrc && lhs.reportBlocks == rhs.reportBlocks && RTCPWire.equal(lhs.profileExtension, rhs.profileExtension)
    }
}
