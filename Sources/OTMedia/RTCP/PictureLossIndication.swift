/// Picture Loss Indication (PLI), RFC 4585 section 6.3.1: "I lost part of a picture,
/// send me a keyframe". PSFB (PT 206) with FMT 1 and no FCI.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=1  |    PT=206     |          length=2             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// A plain 12-byte value.
public struct PictureLossIndication: RTCPPacketWriting, Hashable, Sendable {
    /// FMT 1 in a PSFB packet.
    public static let format: UInt8 = 1

    /// Who asks.
    public var senderSSRC: UInt32
    /// The video stream that needs a keyframe.
    public var mediaSSRC: UInt32

    /// Builds a PLI.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    /// Parses one PLI at the start of `bytes`; any FCI bytes are ignored. Never traps.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (sender, media, _) = try FeedbackHeader.parse(bytes, type: .payloadFeedback, format: Self.format)
        senderSSRC = sender
        mediaSSRC = media
    }

    /// `.payloadFeedback`.
    public var packetType: RTCPPacketType { .payloadFeedback }
    /// 12.
    public var size: Int { FeedbackHeader.size }

    /// Writes the PLI at the start of `buffer`; returns 12.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        try FeedbackHeader.write(type: .payloadFeedback, format: Self.format, sender: senderSSRC, media: mediaSSRC,
                                 size: size, into: buffer)
        return size
    }
}
