/// The RTCP packet type (PT) field: one byte, 200–206 for the types OTKit speaks.
///
/// A struct rather than an enum because any byte may arrive; unknown values are kept and
/// skipped by the compound parser. Cost: a byte.
public struct RTCPPacketType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The PT byte.
    public var rawValue: UInt8
    /// Wraps a PT byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// SR, RFC 3550 section 6.4.1.
    public static let senderReport = RTCPPacketType(rawValue: 200)
    /// RR, RFC 3550 section 6.4.2.
    public static let receiverReport = RTCPPacketType(rawValue: 201)
    /// SDES, RFC 3550 section 6.5.
    public static let sourceDescription = RTCPPacketType(rawValue: 202)
    /// BYE, RFC 3550 section 6.6.
    public static let goodbye = RTCPPacketType(rawValue: 203)
    /// APP, RFC 3550 section 6.7 (not decoded; skipped).
    public static let applicationDefined = RTCPPacketType(rawValue: 204)
    /// RTPFB, transport-layer feedback, RFC 4585 section 6.2 (NACK, TWCC).
    public static let transportFeedback = RTCPPacketType(rawValue: 205)
    /// PSFB, payload-specific feedback, RFC 4585 section 6.3 (PLI, FIR, REMB).
    public static let payloadFeedback = RTCPPacketType(rawValue: 206)

    /// A short name ("SR", "RTPFB", …) or the number.
    public var description: String {
        switch rawValue {
        case 200: return "SR"
        case 201: return "RR"
        case 202: return "SDES"
        case 203: return "BYE"
        case 204: return "APP"
        case 205: return "RTPFB"
        case 206: return "PSFB"
        default: return "PT\(rawValue)"
        }
    }
}

/// A packet that can write itself into a caller's buffer: the RTCP equivalent of Pion's
/// `MarshalTo` / `MarshalSize` pair.
public protocol RTCPPacketWriting {
    /// The packet type written into the header; the compound writer uses it to keep
    /// RFC 3550 order.
    var packetType: RTCPPacketType { get }
    /// Bytes `write(into:)` produces, header included. Cost: arithmetic only.
    var size: Int { get }
    /// Writes the packet at the start of `buffer` and returns `size`.
    /// Throws `.bufferTooSmall` (writing nothing) if the buffer is shorter than `size`.
    func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int
}
