/// The common part of every feedback message, RFC 4585 section 6.1.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|   FMT   |       PT      |          length               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// :            Feedback Control Information (FCI)                 :
/// ```
enum FeedbackHeader {
    /// Bytes of header plus the two SSRCs.
    static let size = 12

    /// Splits a feedback packet of type `type`/`format` into its SSRCs and FCI (a view).
    static func parse(_ bytes: UnsafeRawBufferPointer, type: RTCPPacketType, format: UInt8)
        throws(RTCPError) -> (sender: UInt32, media: UInt32, fci: UnsafeRawBufferPointer)
    {
        let (_, body) = try RTCPHeader.split(bytes, type: type, format: format)
        guard body.count >= 8 else { throw .truncated(needed: size, available: body.count + RTCPHeader.size) }
        return (body.be32(0), body.be32(4), body.view(from: 8, count: body.count - 8))
    }

    /// Checks room for `size` bytes and writes the header and both SSRCs.
    static func write(type: RTCPPacketType, format: UInt8, sender: UInt32, media: UInt32, size: Int,
                      into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) {
        try RTCPHeader.checkSize(size)
        try RTCPWire.require(buffer, size)
        RTCPHeader.write(count: Int(format), packetType: type, size: size, into: buffer)
        buffer.storeBE32(sender, at: 4)
        buffer.storeBE32(media, at: 8)
    }
}
