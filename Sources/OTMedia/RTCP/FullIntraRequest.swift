/// Full Intra Request (FIR), RFC 5104 section 4.3.1: a command to send a decoder refresh
/// point. PSFB (PT 206) with FMT 4; the media SSRC field is 0 and the FCI lists entries.
///
/// ```
/// FCI entry (8 bytes):
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                              SSRC                             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | Seq nr.       |    Reserved                                   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// Entries are a view (parse) or the caller's buffer (write). Cost: O(1), no allocation.
public struct FullIntraRequest: RTCPPacketWriting, Equatable {
    /// FMT 4 in a PSFB packet.
    public static let format: UInt8 = 4

    /// One FIR entry: the target stream and the request's sequence number, which the
    /// requester increments for each new request (repeats keep the number).
    public struct Entry: RTCPListItem, Hashable {
        /// 8.
        public static let wireSize = 8
        /// The stream that should send a decoder refresh point.
        public var ssrc: UInt32
        /// The command sequence number (RFC 5104 4.3.1.1).
        public var sequenceNumber: UInt8

        /// Builds an entry.
        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }

        /// Decodes an entry at `offset` (reserved bits ignored).
        public init(wire bytes: UnsafeRawBufferPointer, at offset: Int) {
            ssrc = bytes.be32(offset)
            sequenceNumber = bytes[offset + 4]
        }

        /// Encodes an entry at `offset` with the reserved bits zero.
        public func write(wire bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
            bytes.storeBE32(ssrc, at: offset)
            bytes[offset + 4] = sequenceNumber
            bytes.storeBE24(0, at: offset + 5)
        }
    }

    /// Who asks.
    public var senderSSRC: UInt32
    /// Unused by FIR (RFC 5104 says 0); kept as parsed.
    public var mediaSSRC: UInt32
    /// The requests.
    public var entries: RTCPList<Entry>

    /// Builds a FIR. `entries` must outlive the value.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, entries: RTCPList<Entry>) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    /// Parses one FIR at the start of `bytes`; the FCI holds whole 8-byte entries (a
    /// trailing partial word is ignored). Never traps.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (sender, media, fci) = try FeedbackHeader.parse(bytes, type: .payloadFeedback, format: Self.format)
        senderSSRC = sender
        mediaSSRC = media
        let count = fci.count / Entry.wireSize
        entries = RTCPList(wire: fci.view(from: 0, count: count * Entry.wireSize), count: count)
    }

    /// `.payloadFeedback`.
    public var packetType: RTCPPacketType { .payloadFeedback }
    /// 12 + 8 per entry.
    public var size: Int { FeedbackHeader.size + entries.wireSize }

    /// Writes the FIR at the start of `buffer`; returns `size`.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        let size = self.size
        try FeedbackHeader.write(type: .payloadFeedback, format: Self.format, sender: senderSSRC, media: mediaSSRC,
                                 size: size, into: buffer)
        entries.write(wire: buffer, at: FeedbackHeader.size)
        return size
    }
}
