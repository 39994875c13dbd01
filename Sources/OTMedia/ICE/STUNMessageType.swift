/// The class of a STUN message (RFC 8489 section 5): the two C bits of the message type.
public enum STUNMessageClass: UInt8, Sendable, Equatable {
    /// A request: expects a response.
    case request = 0
    /// An indication: no response.
    case indication = 1
    /// A success response.
    case successResponse = 2
    /// An error response (carries ERROR-CODE).
    case errorResponse = 3
}

/// A STUN message type: a 12-bit method and a class, interleaved in the 14-bit field
/// `M11..M7 C1 M6..M4 C0 M3..M0` (RFC 8489 section 5). Cost: a few shifts.
public struct STUNMessageType: Sendable, Hashable {
    /// The method (0x001 is Binding).
    public var method: UInt16
    /// Request, indication, success or error response.
    public var messageClass: STUNMessageClass

    /// The Binding method (RFC 8489 section 18.2).
    public static let bindingMethod: UInt16 = 0x001
    /// A Binding request (0x0001 on the wire).
    public static let bindingRequest = STUNMessageType(method: bindingMethod, messageClass: .request)
    /// A Binding success response (0x0101 on the wire).
    public static let bindingSuccess = STUNMessageType(method: bindingMethod, messageClass: .successResponse)
    /// A Binding error response (0x0111 on the wire).
    public static let bindingError = STUNMessageType(method: bindingMethod, messageClass: .errorResponse)

    /// A type from its parts; `method` is cut to 12 bits.
    public init(method: UInt16, messageClass: STUNMessageClass) {
        self.method = method & 0x0FFF
        self.messageClass = messageClass
    }

    /// Splits the 16-bit wire value (its top two bits must be zero; the reader checked that).
    public init(wireValue: UInt16) {
        method = (wireValue & 0x000F) | ((wireValue & 0x00E0) >> 1) | ((wireValue & 0x3E00) >> 2)
        let bits = ((wireValue & 0x0010) >> 4) | ((wireValue & 0x0100) >> 7)
        messageClass = STUNMessageClass(rawValue: UInt8(bits)) ?? .request
    }

    /// The 16-bit value written on the wire.
    public var wireValue: UInt16 {
        let c = UInt16(messageClass.rawValue)
        return (method & 0x000F) | ((method & 0x0070) << 1) | ((method & 0x0F80) << 2)
            | ((c & 1) << 4) | ((c & 2) << 7)
    }
}
