/// What a datagram arriving on a shared UDP port is.
public enum PacketClass: Sendable, Equatable, CustomStringConvertible {
    /// STUN (first byte 0–3).
    case stun
    /// ZRTP (first byte 16–19).
    case zrtp
    /// DTLS (first byte 20–63).
    case dtls
    /// TURN ChannelData (first byte 64–79).
    case turnChannel
    /// RTP (first byte 128–191, second byte outside 192–223).
    case rtp
    /// RTCP (first byte 128–191, second byte 192–223).
    case rtcp
    /// Anything else, including empty and too-short datagrams: drop it.
    case unknown

    /// A short lowercase name.
    public var description: String {
        switch self {
        case .stun: return "stun"
        case .zrtp: return "zrtp"
        case .dtls: return "dtls"
        case .turnChannel: return "turn-channel"
        case .rtp: return "rtp"
        case .rtcp: return "rtcp"
        case .unknown: return "unknown"
        }
    }
}

/// Sorts datagrams on one port by their first bytes, so STUN, DTLS, RTP and RTCP can share
/// it.
///
/// RFC 7983 section 7 (updating RFC 5764 5.1.2), first byte B:
/// ```
///               +----------------+
///               |        [0..3] -+--> forward to STUN
///               |                |
///               |      [16..19] -+--> forward to ZRTP
///               |                |
///   packet -->  |      [20..63] -+--> forward to DTLS
///               |                |
///               |      [64..79] -+--> forward to TURN Channel
///               |                |
///               |    [128..191] -+--> forward to RTP/RTCP
///               +----------------+
/// ```
/// RTP against RTCP on one port, RFC 5761 section 4: RTCP packet types 200–204 (and the
/// feedback types up to 223) put 192–223 in the second byte, which for RTP would be the
/// marker bit plus payload types 64–95, a range RTP payload types avoid for this reason.
/// Cost: two byte reads; never traps, whatever the input.
public enum PacketClassifier {
    static let rtcpSecondByte: ClosedRange<UInt8> = 192 ... 223

    /// Classifies `datagram` by its first (and for RTP/RTCP, second) byte. Plain
    /// comparisons, not range patterns or `first`: unspecialised generics allocate in
    /// debug builds, and this runs for every datagram.
    public static func classify(_ datagram: UnsafeRawBufferPointer) -> PacketClass {
        guard datagram.count > 0 else { return .unknown }
        let first = datagram[0]
        if first <= 3 { return .stun }
        if first >= 16 && first <= 19 { return .zrtp }
        if first >= 20 && first <= 63 { return .dtls }
        if first >= 64 && first <= 79 { return .turnChannel }
        guard first >= 128 && first <= 191 else { return .unknown }
        guard datagram.count >= 2 else { return .unknown }
        let second = datagram[1]
        return second >= rtcpSecondByte.lowerBound && second <= rtcpSecondByte.upperBound ? .rtcp : .rtp
    }
}
