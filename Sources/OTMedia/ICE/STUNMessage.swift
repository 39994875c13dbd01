/// A STUN message read from a datagram (RFC 8489): its header and the attributes an
/// ICE-lite server and an ICE client need, decoded and length-checked.
///
/// It holds no bytes: text values (USERNAME, SOFTWARE, the error reason) are byte ranges
/// into the datagram it was parsed from, and the integrity checks take that datagram
/// again, so reading a message allocates nothing. Never traps, whatever the input:
/// - header: first two bits zero, the magic cookie, a length that is a multiple of 4,
///   equals the rest of the datagram, and a datagram of at most `STUN.maximumMessageSize`;
/// - attributes: each header and padded value inside the message, at most
///   `STUN.maximumAttributes` of them, known ones at their defined sizes;
/// - after MESSAGE-INTEGRITY only FINGERPRINT is read (others are ignored, section 14.5);
///   nothing may follow FINGERPRINT;
/// - unknown comprehension-optional attributes (≥ 0x8000) are ignored; unknown
///   comprehension-required ones are counted in `unknownRequiredCount` (the first in
///   `firstUnknownRequired`) for the receiver to decide (the ICE-lite agent drops them).
/// Where an attribute appears twice the first counts (section 14).
public struct STUNMessage: Sendable, Equatable {
    /// Method and class.
    public var type: STUNMessageType
    /// The 96-bit transaction id.
    public var transactionID: STUNTransactionID
    /// The whole message's size in bytes (header included).
    public var size: Int
    /// USERNAME's value bytes in the datagram.
    public var username: Range<Int>?
    /// SOFTWARE's value bytes in the datagram.
    public var software: Range<Int>?
    /// PRIORITY (ICE).
    public var priority: UInt32?
    /// True when USE-CANDIDATE is present.
    public var useCandidate = false
    /// ICE-CONTROLLING's tie-breaker.
    public var iceControlling: UInt64?
    /// ICE-CONTROLLED's tie-breaker.
    public var iceControlled: UInt64?
    /// XOR-MAPPED-ADDRESS, decoded.
    public var xorMappedAddress: SocketAddress?
    /// ERROR-CODE as class × 100 + number (300–699).
    public var errorCode: Int?
    /// ERROR-CODE's reason phrase bytes in the datagram.
    public var errorReason: Range<Int>?
    /// Where the MESSAGE-INTEGRITY attribute (its 4-byte header) starts.
    public var integrityOffset: Int?
    /// Where the FINGERPRINT attribute (its 4-byte header) starts.
    public var fingerprintOffset: Int?
    /// Unknown comprehension-required attributes before MESSAGE-INTEGRITY.
    public var unknownRequiredCount = 0
    /// The first of them.
    public var firstUnknownRequired: STUNAttributeType?
    /// Attributes walked.
    public var attributeCount = 0

    /// Parses `datagram`, which must be exactly one STUN message. Cost: one pass over the
    /// attributes, no allocation; throws the first problem found.
    public init(parsing datagram: UnsafeRawBufferPointer) throws(STUNError) {
        switch Self.read(datagram) {
        case let .success(message): self = message
        case let .failure(error): throw error
        }
    }

    private init(type: STUNMessageType, transactionID: STUNTransactionID, size: Int) {
        self.type = type
        self.transactionID = transactionID
        self.size = size
    }

    /// The parser itself, returning its error instead of throwing it: the agent's drop path
    /// uses this form because a thrown error costs a heap allocation in debug builds.
    static func read(_ datagram: UnsafeRawBufferPointer) -> Result<STUNMessage, STUNError> {
        guard datagram.count >= STUN.headerSize else { return .failure(.truncatedHeader(available: datagram.count)) }
        guard datagram.count <= STUN.maximumMessageSize else { return .failure(.tooLarge(datagram.count)) }
        let typeField = datagram.be16(0)
        guard typeField & 0xC000 == 0 else { return .failure(.notSTUN) }
        let cookie = datagram.be32(4)
        guard cookie == STUN.magicCookie else { return .failure(.badMagicCookie(cookie)) }
        let length = Int(datagram.be16(2))
        guard length % 4 == 0 else { return .failure(.lengthNotMultipleOfFour(length)) }
        guard STUN.headerSize + length == datagram.count else {
            return .failure(.lengthMismatch(declared: length, available: datagram.count - STUN.headerSize))
        }
        var message = STUNMessage(type: STUNMessageType(wireValue: typeField),
                                  transactionID: STUNTransactionID(reading: datagram), size: datagram.count)
        if let error = message.walkAttributes(datagram) { return .failure(error) }
        return .success(message)
    }

    /// Walks every attribute; returns the first problem, or nil.
    private mutating func walkAttributes(_ datagram: UnsafeRawBufferPointer) -> STUNError? {
        var offset = STUN.headerSize
        let end = datagram.count
        // Both are multiples of 4, so a remaining gap is always at least an attribute header.
        while offset < end {
            guard fingerprintOffset == nil else { return .fingerprintNotLast }
            guard attributeCount < STUN.maximumAttributes else { return .tooManyAttributes }
            attributeCount += 1
            let type = STUNAttributeType(rawValue: datagram.be16(offset))
            let length = Int(datagram.be16(offset + 2))
            let valueStart = offset + 4
            let padded = (length + 3) & ~3
            guard padded <= end - valueStart else { return .attributeOverrun(type: type.rawValue, offset: offset) }
            let value = datagram.view(from: valueStart, count: length)
            if type == .fingerprint {
                guard length == 4 else { return .malformedAttribute(type: type.rawValue) }
                fingerprintOffset = offset
            } else if integrityOffset == nil {
                if type == .messageIntegrity {
                    guard length == STUN.integritySize else { return .malformedAttribute(type: type.rawValue) }
                    integrityOffset = offset
                } else if !decode(type, value, range: valueStart ..< valueStart + length) {
                    return .malformedAttribute(type: type.rawValue)
                }
            }
            offset = valueStart + padded
        }
        return nil
    }

    /// Decodes one attribute before MESSAGE-INTEGRITY (first occurrence wins); false when
    /// its length or value is not allowed.
    private mutating func decode(_ type: STUNAttributeType, _ value: UnsafeRawBufferPointer, range: Range<Int>) -> Bool {
        switch type {
        case .username:
            guard value.count <= STUN.maximumUsernameBytes else { return false }
            if username == nil { username = range }
        case .software:
            guard value.count <= STUN.maximumTextBytes else { return false }
            if software == nil { software = range }
        case .priority:
            guard value.count == 4 else { return false }
            if priority == nil { priority = value.be32(0) }
        case .useCandidate:
            guard value.isEmpty else { return false }
            useCandidate = true
        case .iceControlling:
            guard value.count == 8 else { return false }
            if iceControlling == nil { iceControlling = value.be64(0) }
        case .iceControlled:
            guard value.count == 8 else { return false }
            if iceControlled == nil { iceControlled = value.be64(0) }
        case .xorMappedAddress:
            guard let address = STUNXORAddress.decode(value, transactionID: transactionID) else { return false }
            if xorMappedAddress == nil { xorMappedAddress = address }
        case .errorCode:
            // 21 reserved bits, a 3-bit class (3–6), an 8-bit number (0–99), the reason.
            guard value.count >= 4, value.count - 4 <= STUN.maximumTextBytes,
                  value[0] == 0, value[1] == 0, (3 ... 6).contains(value[2] & 0x07), value[2] & 0xF8 == 0,
                  value[3] <= 99 else { return false }
            if errorCode == nil {
                errorCode = Int(value[2]) * 100 + Int(value[3])
                errorReason = range.lowerBound + 4 ..< range.upperBound
            }
        case .unknownAttributes:
            guard value.count % 2 == 0 else { return false }
        default:
            if type.isComprehensionRequired {
                if firstUnknownRequired == nil { firstUnknownRequired = type }
                unknownRequiredCount += 1
            }
        }
        return true
    }
}
