/// A STUN attribute type (RFC 8489 section 14, RFC 8445 section 16.1). Types below
/// 0x8000 are comprehension-required: a receiver that does not know one must not act on
/// the message; those at or above 0x8000 are comprehension-optional and ignored when
/// unknown. Cost: a 16-bit value.
public struct STUNAttributeType: RawRepresentable, Sendable, Hashable {
    /// The 16-bit type on the wire.
    public var rawValue: UInt16

    /// Wraps a wire value.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// True for 0x0000–0x7FFF: a receiver must understand it (RFC 8489 section 14).
    public var isComprehensionRequired: Bool { rawValue < 0x8000 }

    /// USERNAME (0x0006): "<receiver ufrag>:<sender ufrag>" in ICE, at most 513 bytes.
    public static let username = STUNAttributeType(rawValue: 0x0006)
    /// MESSAGE-INTEGRITY (0x0008): HMAC-SHA1, 20 bytes.
    public static let messageIntegrity = STUNAttributeType(rawValue: 0x0008)
    /// ERROR-CODE (0x0009): class, number, reason phrase.
    public static let errorCode = STUNAttributeType(rawValue: 0x0009)
    /// UNKNOWN-ATTRIBUTES (0x000A): the types a 420 response did not understand.
    public static let unknownAttributes = STUNAttributeType(rawValue: 0x000A)
    /// XOR-MAPPED-ADDRESS (0x0020): the request's source address, xored.
    public static let xorMappedAddress = STUNAttributeType(rawValue: 0x0020)
    /// PRIORITY (0x0024): the ICE candidate priority, 4 bytes.
    public static let priority = STUNAttributeType(rawValue: 0x0024)
    /// USE-CANDIDATE (0x0025): the controlling agent nominates this pair; no value.
    public static let useCandidate = STUNAttributeType(rawValue: 0x0025)
    /// SOFTWARE (0x8022): a free-text agent description, at most 763 bytes.
    public static let software = STUNAttributeType(rawValue: 0x8022)
    /// FINGERPRINT (0x8028): CRC-32 of the message xor 0x5354554E, 4 bytes, always last.
    public static let fingerprint = STUNAttributeType(rawValue: 0x8028)
    /// ICE-CONTROLLED (0x8029): the sender is controlled; an 8-byte tie-breaker.
    public static let iceControlled = STUNAttributeType(rawValue: 0x8029)
    /// ICE-CONTROLLING (0x802A): the sender is controlling; an 8-byte tie-breaker.
    public static let iceControlling = STUNAttributeType(rawValue: 0x802A)
}

/// Protocol constants and the limits this implementation enforces on STUN messages.
public enum STUN {
    /// The magic cookie every RFC 5389/8489 message carries at bytes 4–7.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// The fixed header: type, length, cookie, 96-bit transaction id.
    public static let headerSize = 20
    /// The largest datagram read as STUN. RFC 8489 section 6.1 keeps messages under the
    /// path MTU; ICE checks are ~100–200 bytes, so 1,500 leaves room and bounds the work.
    public static let maximumMessageSize = 1_500
    /// The most attributes walked in one message; a Chrome check carries about 7.
    public static let maximumAttributes = 32
    /// The longest USERNAME value (RFC 8489 section 14.3: < 513 bytes).
    public static let maximumUsernameBytes = 513
    /// The longest SOFTWARE value or ERROR-CODE reason (fewer than 128 characters, 763 bytes).
    public static let maximumTextBytes = 763
    /// The value FINGERPRINT's CRC-32 is xored with (RFC 8489 section 14.7).
    public static let fingerprintXOR: UInt32 = 0x5354_554E
    /// MESSAGE-INTEGRITY's value size: an HMAC-SHA1.
    public static let integritySize = 20
}
