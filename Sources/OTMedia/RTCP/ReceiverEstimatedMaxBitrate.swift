/// Receiver Estimated Maximum Bitrate (REMB), draft-alvestrand-rmcat-remb-03 section 2.2:
/// the receiver's bandwidth estimate for a set of streams. An application-layer feedback
/// message: PSFB (PT 206) with FMT 15 and the identifier 'REMB'.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P| FMT=15  |   PT=206      |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source (always 0)              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Unique identifier 'R' 'E' 'M' 'B'                            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Num SSRC     | BR Exp    |  BR Mantissa                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |   SSRC feedback                                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ...                                                          |
/// ```
/// The bitrate is mantissa × 2^exponent bits per second (18-bit mantissa, 6-bit exponent).
/// The value keeps the exponent and mantissa as sent, so a parsed REMB writes back
/// bit-exactly. Cost: O(1), no allocation; the SSRC list is a view.
public struct ReceiverEstimatedMaxBitrate: RTCPPacketWriting, Equatable {
    /// FMT 15 (application layer feedback) in a PSFB packet.
    public static let format: UInt8 = 15
    /// 'R' 'E' 'M' 'B' as a big-endian word.
    public static let identifier: UInt32 = 0x5245_4D42
    /// The largest 18-bit mantissa.
    public static let maxMantissa: UInt32 = (1 << 18) - 1

    static let identifierOffset = 0
    static let countOffset = 4
    static let fixedFCISize = 8
    static let exponentShift: UInt32 = 18

    /// Who estimates.
    public var senderSSRC: UInt32
    /// Always 0 for REMB; kept as parsed.
    public var mediaSSRC: UInt32
    /// BR Exp: 6 bits.
    public var exponent: UInt8
    /// BR Mantissa: 18 bits.
    public var mantissa: UInt32
    /// The streams the estimate applies to (at most 255).
    public var ssrcs: RTCPList<UInt32>

    /// Builds a REMB for `bitrate` bits per second, rounded down to what 18 bits of
    /// mantissa can say (never overstating the estimate). `ssrcs` must outlive the value.
    public init(senderSSRC: UInt32, bitrate: UInt64, ssrcs: RTCPList<UInt32>) {
        self.senderSSRC = senderSSRC
        mediaSSRC = 0
        (exponent, mantissa) = Self.encode(bitrate: bitrate)
        self.ssrcs = ssrcs
    }

    /// The estimate in bits per second; saturates at `UInt64.max` for exponents that overflow.
    public var bitrate: UInt64 { Self.decode(exponent: exponent, mantissa: mantissa) }

    /// The smallest exponent whose mantissa fits 18 bits; the mantissa is rounded down.
    public static func encode(bitrate: UInt64) -> (exponent: UInt8, mantissa: UInt32) {
        var exponent: UInt8 = 0
        var mantissa = bitrate
        while mantissa > UInt64(maxMantissa) {
            mantissa >>= 1
            exponent += 1
        }
        return (exponent, UInt32(mantissa))
    }

    /// mantissa × 2^exponent, saturating at `UInt64.max`.
    public static func decode(exponent: UInt8, mantissa: UInt32) -> UInt64 {
        let value = UInt64(mantissa)
        guard value != 0 else { return 0 }
        guard exponent < 64, value.leadingZeroBitCount >= Int(exponent) else { return .max }
        return value << UInt64(exponent)
    }

    /// Parses one REMB at the start of `bytes`: PSFB/FMT 15 with the 'REMB' identifier and
    /// room for Num SSRC entries (bytes after them are ignored). Never traps.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (sender, media, fci) = try FeedbackHeader.parse(bytes, type: .payloadFeedback, format: Self.format)
        guard fci.count >= Self.fixedFCISize else {
            throw .truncated(needed: FeedbackHeader.size + Self.fixedFCISize, available: FeedbackHeader.size + fci.count)
        }
        guard fci.be32(Self.identifierOffset) == Self.identifier else { throw .malformed(.rembIdentifier) }
        let word = fci.be32(Self.countOffset)
        let count = Int(word >> 24)
        let listSize = count * 4
        guard fci.count >= Self.fixedFCISize + listSize else {
            throw .truncated(needed: FeedbackHeader.size + Self.fixedFCISize + listSize, available: FeedbackHeader.size + fci.count)
        }
        senderSSRC = sender
        mediaSSRC = media
        exponent = UInt8((word >> Self.exponentShift) & 0x3F)
        mantissa = word & Self.maxMantissa
        ssrcs = RTCPList(wire: fci.view(from: Self.fixedFCISize, count: listSize), count: count)
    }

    /// `.payloadFeedback`.
    public var packetType: RTCPPacketType { .payloadFeedback }
    /// 20 + 4 per SSRC.
    public var size: Int { FeedbackHeader.size + Self.fixedFCISize + ssrcs.wireSize }

    /// Writes the REMB at the start of `buffer`; returns `size`. Throws if there are more
    /// than 255 SSRCs or the exponent/mantissa do not fit their fields.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        guard ssrcs.count <= 255 else { throw .tooManyItems(count: ssrcs.count, limit: 255) }
        guard exponent < 64, mantissa <= Self.maxMantissa else { throw .tooManyItems(count: Int(mantissa), limit: Int(Self.maxMantissa)) }
        let size = self.size
        try FeedbackHeader.write(type: .payloadFeedback, format: Self.format, sender: senderSSRC, media: mediaSSRC,
                                 size: size, into: buffer)
        let fci = FeedbackHeader.size
        buffer.storeBE32(Self.identifier, at: fci + Self.identifierOffset)
        buffer.storeBE32(UInt32(ssrcs.count) << 24 | UInt32(exponent) << Self.exponentShift | mantissa, at: fci + Self.countOffset)
        ssrcs.write(wire: buffer, at: fci + Self.fixedFCISize)
        return size
    }
}
