/// Why an RTP packet, a header extension, a VP8 payload or an Opus payload was
/// rejected, or why one could not be written.
///
/// Parse errors are values, never traps (the `String`s they carry are literals, so
/// making one allocates nothing): every parser in this folder checks each length
/// before it reads and reports the first rule the input breaks. Cost: a small enum, its
/// `description` builds a String only when asked.
public enum RTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ends before a field that must be there (`needed` bytes, `available` given).
    case truncated(what: String, needed: Int, available: Int)
    /// The RTP version field is not 2 (RFC 3550 section 5.1).
    case unsupportedVersion(UInt8)
    /// The CSRC count says more identifiers than the packet holds.
    case csrcBeyondPacket(count: Int, available: Int)
    /// The header extension's length runs past the end of the packet.
    case extensionBeyondPacket(declared: Int, available: Int)
    /// An RFC 8285 element inside the extension block runs past the block.
    case extensionElementBeyondBlock(id: UInt8, length: Int, available: Int)
    /// The P bit is set but the last byte (the padding count) is 0 (RFC 3550 section 5.1
    /// counts the count byte itself, so the smallest valid count is 1).
    case paddingCountZero
    /// The padding count is larger than what follows the header.
    case paddingBeyondPayload(count: Int, available: Int)
    /// The destination buffer is smaller than what must be written.
    case bufferTooSmall(needed: Int, available: Int)
    /// More than 15 CSRCs (the CC field has four bits).
    case tooManyCSRCs(Int)
    /// An extension element id outside the profile's range (one-byte: 1...14, two-byte: 1...255).
    case invalidExtensionID(UInt8)
    /// An extension element's data is longer (or shorter) than the profile allows
    /// (one-byte: 1...16 bytes, two-byte: 0...255 bytes).
    case invalidExtensionLength(id: UInt8, length: Int)
    /// Elements were added to a header whose extension profile is not an RFC 8285 one.
    case notAnElementProfile(UInt16)
    /// The extension data does not fit the header's inline storage.
    case extensionStorageFull(needed: Int, capacity: Int)
    /// A field value does not fit its bits (e.g. a 15-bit PictureID above 32767).
    case fieldOutOfRange(what: String, value: Int)
    /// An Opus packet breaks one of RFC 6716 section 3.4's rules.
    case malformedOpusPacket(String)

    /// A sentence naming the broken rule and the numbers involved.
    public var description: String {
        switch self {
        case let .truncated(what, needed, available):
            return "RTP: \(what) needs \(needed) bytes but only \(available) are left"
        case let .unsupportedVersion(version):
            return "RTP: version \(version) is not 2"
        case let .csrcBeyondPacket(count, available):
            return "RTP: CSRC count \(count) needs \(count * 4) bytes but \(available) follow the fixed header"
        case let .extensionBeyondPacket(declared, available):
            return "RTP: header extension declares \(declared) bytes but \(available) are left"
        case let .extensionElementBeyondBlock(id, length, available):
            return "RTP: extension element \(id) of \(length) bytes runs past its block (\(available) left)"
        case .paddingCountZero:
            return "RTP: the P bit is set but the padding count is 0"
        case let .paddingBeyondPayload(count, available):
            return "RTP: padding count \(count) exceeds the \(available) bytes after the header"
        case let .bufferTooSmall(needed, available):
            return "RTP: writing needs \(needed) bytes but the buffer has \(available)"
        case let .tooManyCSRCs(count):
            return "RTP: \(count) CSRCs do not fit the 4-bit CSRC count (at most 15)"
        case let .invalidExtensionID(id):
            return "RTP: extension id \(id) is outside the profile's range"
        case let .invalidExtensionLength(id, length):
            return "RTP: extension element \(id) cannot carry \(length) bytes in this profile"
        case let .notAnElementProfile(profile):
            return "RTP: extension profile 0x\(String(profile, radix: 16)) is not RFC 8285's one-byte or two-byte profile"
        case let .extensionStorageFull(needed, capacity):
            return "RTP: header extensions need \(needed) bytes but a header holds at most \(capacity)"
        case let .fieldOutOfRange(what, value):
            return "RTP: \(what) \(value) does not fit its field"
        case let .malformedOpusPacket(rule):
            return "Opus: \(rule)"
        }
    }
}
