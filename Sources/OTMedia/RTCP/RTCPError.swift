/// Why an RTCP packet could not be parsed or written.
///
/// Errors are values: parsers throw them (typed throws, so a failure allocates nothing)
/// instead of trapping, whatever the input. `description` gives a readable sentence.
public enum RTCPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ends before a field that the packet says is there.
    case truncated(needed: Int, available: Int)
    /// The version field is not 2 (RFC 3550 section 6.4.1).
    case unsupportedVersion(UInt8)
    /// The header's length field points past the end of the datagram.
    case invalidLength(declaredBytes: Int, availableBytes: Int)
    /// The padding bit is set on a packet that is not the last of its compound, or the
    /// padding count is zero or longer than the packet.
    case invalidPadding
    /// The packet is not of the type (PT) or feedback format (FMT) the parser reads.
    case unexpectedType(packetType: UInt8, format: UInt8)
    /// A field holds a value the format does not allow.
    case malformed(Reason)
    /// The destination buffer is smaller than `size`.
    case bufferTooSmall(needed: Int, available: Int)
    /// More items than the 5-bit count field (or a length field) can carry.
    case tooManyItems(count: Int, limit: Int)

    /// What exactly is malformed; each case's raw value is its message. Raw values are
    /// static text, so building one allocates nothing.
    public enum Reason: String, Sendable, Equatable {
        case rembIdentifier = "the application-layer feedback is not 'REMB'"
        case sdesItemOverrun = "an SDES item runs past the end of the packet"
        case sdesTrailingBytes = "bytes follow the last SDES chunk"
        case goodbyeReasonOverrun = "the BYE reason runs past the end of the packet"
        case twccReservedSymbol = "a TWCC status chunk uses the reserved symbol 11"
        case twccEmptyRun = "a TWCC run-length chunk has length 0"
        case twccChunkOverrun = "the TWCC status chunks run past the end of the packet"
        case twccDeltaOverrun = "the TWCC receive deltas run past the end of the packet"
        case extensionNotWordAligned = "a profile-specific extension is not a multiple of 4 bytes"
        case cnameTooLong = "a CNAME is longer than 255 bytes"
        case compoundOrder = "the compound packet breaks RFC 3550 6.1 order (report first, then SDES, then feedback, BYE last)"
        case compoundWithoutCNAME = "a full compound packet must carry an SDES CNAME"
        case emptyCompound = "a compound packet holds no RTCP packet"
        case noRecords = "the TWCC builder was given no received packets"
    }

    /// A sentence saying what was wrong with the bytes.
    public var description: String {
        switch self {
        case let .truncated(needed, available):
            return "RTCP packet truncated: needs \(needed) bytes, has \(available)"
        case let .unsupportedVersion(version):
            return "RTCP version \(version), expected 2"
        case let .invalidLength(declared, available):
            return "RTCP length field says \(declared) bytes but only \(available) remain"
        case .invalidPadding:
            return "RTCP padding is invalid (only the last packet may pad, by 1 to its body size)"
        case let .unexpectedType(packetType, format):
            return "RTCP packet type \(packetType) format \(format) is not the expected one"
        case let .malformed(reason):
            return "RTCP malformed: \(reason.rawValue)"
        case let .bufferTooSmall(needed, available):
            return "RTCP write needs \(needed) bytes, the buffer has \(available)"
        case let .tooManyItems(count, limit):
            return "RTCP packet cannot carry \(count) items (limit \(limit))"
        }
    }
}
