/// Why bytes are not a STUN message this implementation accepts, or why a message could
/// not be written.
///
/// Errors are values (typed throws): a hostile datagram costs no allocation and never
/// traps. `description` gives a sentence.
public enum STUNError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer than the 20 header bytes.
    case truncatedHeader(available: Int)
    /// The first two bits of the type are not zero: not STUN (RFC 8489 section 5).
    case notSTUN
    /// The magic cookie is not 0x2112A442 (an RFC 3489 message or not STUN at all).
    case badMagicCookie(UInt32)
    /// The length field is not a multiple of 4.
    case lengthNotMultipleOfFour(Int)
    /// The length field does not match the bytes after the header.
    case lengthMismatch(declared: Int, available: Int)
    /// The datagram is larger than `STUN.maximumMessageSize`.
    case tooLarge(Int)
    /// An attribute's value runs past the end of the message.
    case attributeOverrun(type: UInt16, offset: Int)
    /// More attributes than `STUN.maximumAttributes`.
    case tooManyAttributes
    /// A known attribute has a length or value its definition does not allow.
    case malformedAttribute(type: UInt16)
    /// An attribute follows FINGERPRINT, which must be last.
    case fingerprintNotLast
    /// The destination buffer is smaller than the message being written.
    case bufferTooSmall(needed: Int, available: Int)

    /// A sentence saying what was wrong.
    public var description: String {
        switch self {
        case let .truncatedHeader(available): "STUN header truncated: \(available) of 20 bytes"
        case .notSTUN: "the first two bits are not zero: not a STUN message"
        case let .badMagicCookie(cookie): "STUN magic cookie is \(cookie), expected 0x2112A442"
        case let .lengthNotMultipleOfFour(length): "STUN length \(length) is not a multiple of 4"
        case let .lengthMismatch(declared, available):
            "STUN length field says \(declared) bytes follow the header, the datagram has \(available)"
        case let .tooLarge(size): "STUN message of \(size) bytes is over the \(STUN.maximumMessageSize)-byte limit"
        case let .attributeOverrun(type, offset): "STUN attribute \(type) at offset \(offset) runs past the end"
        case .tooManyAttributes: "STUN message has more than \(STUN.maximumAttributes) attributes"
        case let .malformedAttribute(type): "STUN attribute \(type) has a length or value its definition forbids"
        case .fingerprintNotLast: "an attribute follows FINGERPRINT"
        case let .bufferTooSmall(needed, available): "STUN write needs \(needed) bytes, the buffer has \(available)"
        }
    }
}
