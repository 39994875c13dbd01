/// The "defined by profile" field of an RTP header extension (RFC 3550 section 5.3.1),
/// sorted into RFC 8285's two element formats and everything else.
///
/// Cost: a plain value.
public enum RTPExtensionProfile: Sendable, Equatable, Hashable {
    /// RFC 8285 section 4.2, profile 0xBEDE: elements of 1...16 bytes, ids 1...14.
    case oneByte
    /// RFC 8285 section 4.3, profile 0x100X (X = `appBits`, 4 bits the application may
    /// use): elements of 0...255 bytes, ids 1...255.
    case twoByte(appBits: UInt8)
    /// Any other profile: the extension data is opaque (no elements).
    case other(UInt16)

    /// RFC 8285 section 4.2: the one-byte profile value.
    static let oneByteValue: UInt16 = 0xBEDE
    /// RFC 8285 section 4.3: the two-byte profile is 0x100 in the top 12 bits.
    static let twoByteValue: UInt16 = 0x1000
    /// Mask selecting the top 12 bits of the two-byte profile value.
    static let twoByteMask: UInt16 = 0xFFF0
    /// Mask selecting the application bits of the two-byte profile value.
    static let appBitsMask: UInt16 = 0x000F

    /// Sorts a 16-bit profile field.
    public init(rawValue: UInt16) {
        if rawValue == Self.oneByteValue {
            self = .oneByte
        } else if rawValue & Self.twoByteMask == Self.twoByteValue {
            self = .twoByte(appBits: UInt8(rawValue & Self.appBitsMask))
        } else {
            self = .other(rawValue)
        }
    }

    /// The 16-bit value written on the wire.
    public var rawValue: UInt16 {
        switch self {
        case .oneByte: return Self.oneByteValue
        case let .twoByte(appBits): return Self.twoByteValue | (UInt16(appBits) & Self.appBitsMask)
        case let .other(value): return value
        }
    }

    /// True for the two RFC 8285 formats, whose data is a list of id/length elements.
    public var hasElements: Bool {
        if case .other = self { return false }
        return true
    }

    /// The ids an element may use in this profile.
    public var validIDs: ClosedRange<UInt8> {
        switch self {
        case .oneByte: return 1...14
        case .twoByte: return 1...255
        case .other: return 1...0xFF
        }
    }

    /// The data lengths an element may have in this profile.
    public var validLengths: ClosedRange<Int> {
        switch self {
        case .oneByte: return 1...16
        case .twoByte, .other: return 0...255
        }
    }
}
