/// Header checks done before libsrtp sees a buffer, so a short or inconsistent packet is
/// rejected in Swift with `badParameter` and libsrtp only ever reads inside `length`.
/// A few loads and compares per packet; never traps on any input.
enum SRTPPacketCheck {
    /// RTP fixed header (RFC 3550 section 5.1):
    /// ```
    ///  0                   1                   2                   3
    ///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
    /// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    /// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
    /// |                           timestamp                           |
    /// |           synchronization source (SSRC) identifier            |
    /// |            contributing source (CSRC) identifiers (CC × 32)   |
    /// |  defined by profile (16)      |        length (16, words)     |  if X
    /// |                        header extension                       |  if X
    /// ```
    /// (Field positions are `RTPHeader`'s; only the extension header's size is new here.)
    static let extensionHeaderLength = 4

    /// RTCP common header plus sender SSRC (RFC 3550 section 6.4.1): the least SRTCP protects.
    /// ```
    /// |V=2|P|    RC   |   PT=SR=200   |             length            |
    /// |                         SSRC of sender                        |
    /// ```
    static let rtcpMinimumLength = 8

    /// The RTP header length (fixed header, CSRCs, extension) of the packet in the first
    /// `length` bytes, or nil if it is not version 2 or the header runs past `length`.
    @inline(__always)
    static func rtpHeaderLength(_ packet: UnsafeRawPointer, length: Int) -> Int? {
        guard length >= RTPHeader.fixedSize else { return nil }
        let first = packet.load(as: UInt8.self)
        guard first >> RTPHeader.versionShift == RTPHeader.version else { return nil }
        var header = RTPHeader.fixedSize + RTPHeader.csrcSize * Int(first & RTPHeader.csrcCountMask)
        if first & RTPHeader.extensionBit != 0 {
            guard length >= header + extensionHeaderLength else { return nil }
            let words = Int(packet.load(fromByteOffset: header + 2, as: UInt8.self)) << 8
                | Int(packet.load(fromByteOffset: header + 3, as: UInt8.self))
            header += extensionHeaderLength + 4 * words
        }
        return header <= length ? header : nil
    }

    /// Whether the first `length` bytes can be an RTCP packet: version 2, at least 8 bytes.
    @inline(__always)
    static func isRTCP(_ packet: UnsafeRawPointer, length: Int) -> Bool {
        length >= rtcpMinimumLength && packet.load(as: UInt8.self) >> RTPHeader.versionShift == RTPHeader.version
    }
}
