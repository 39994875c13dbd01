/// A parsed RTP packet (RFC 3550 section 5.1): a view over the packet's bytes with the
/// header fields read on demand and the payload as a slice of the same bytes.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           timestamp                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           synchronization source (SSRC) identifier            |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |            contributing source (CSRC) identifiers             |
/// |                             ....                              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      defined by profile       |           length              |  (if X)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                        header extension (length words)        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                            payload ...                        |
/// |                               +-------------------------------+
/// |                               | padding ...   | padding count |  (if P)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// Parsing checks every length once (`init(parsing:)`); afterwards the accessors read
/// fixed offsets that are known to be in range.
///
/// Lifetime: `RTPPacket` holds an `UnsafeRawBufferPointer`, not the bytes. It, its
/// `payload`, `extensions` and every element view are valid only while the buffer it
/// was parsed from is alive and unchanged (e.g. inside the receive callback for a pooled
/// datagram). Copy what must outlive it (`RTPHeader(packet)` copies the header).
///
/// Cost: parsing reads the first byte, the CC/X fields, the extension block (RFC 8285
/// elements are walked once to validate them) and the last byte; nothing is copied or
/// allocated.
public struct RTPPacket {
    /// The whole packet as given to the parser.
    public let bytes: UnsafeRawBufferPointer
    /// Offset of the payload (= the header's length, CSRCs and extension included).
    public let headerLength: Int
    /// Bytes of padding at the end (0 when the P bit is clear).
    public let paddingLength: Int
    /// Offset of the extension's profile/length word, or -1 when the X bit is clear.
    private let extensionOffset: Int

    /// Parses `bytes` as an RTP packet. Throws `truncated` (shorter than 12 bytes, or an
    /// extension word or padding count missing), `unsupportedVersion`, `csrcBeyondPacket`,
    /// `extensionBeyondPacket`, `extensionElementBeyondBlock`, `paddingCountZero` or
    /// `paddingBeyondPayload`. Never traps, whatever the bytes.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        guard bytes.count >= RTPHeader.fixedSize else {
            throw .truncated(what: "RTP fixed header", needed: RTPHeader.fixedSize, available: bytes.count)
        }
        let first = bytes[0]
        let version = first >> RTPHeader.versionShift
        guard version == RTPHeader.version else { throw .unsupportedVersion(version) }

        let csrcCount = Int(first & RTPHeader.csrcCountMask)
        var offset = RTPHeader.fixedSize
        guard csrcCount * RTPHeader.csrcSize <= bytes.count - offset else {
            throw .csrcBeyondPacket(count: csrcCount, available: bytes.count - offset)
        }
        offset += csrcCount * RTPHeader.csrcSize

        // RFC 3550 section 5.3.1: a 16-bit profile, a 16-bit length in 32-bit words.
        if first & RTPHeader.extensionBit != 0 {
            guard bytes.count - offset >= 4 else {
                throw .truncated(what: "header extension word", needed: 4, available: bytes.count - offset)
            }
            let profile = RTPExtensionProfile(rawValue: bytes.be16(offset))
            let length = Int(bytes.be16(offset + 2)) * 4
            guard length <= bytes.count - offset - 4 else {
                throw .extensionBeyondPacket(declared: length, available: bytes.count - offset - 4)
            }
            try RTPHeaderExtensionElements(profile: profile, data: bytes.view(offset + 4..<offset + 4 + length)).validate()
            extensionOffset = offset
            offset += 4 + length
        } else {
            extensionOffset = -1
        }

        // RFC 3550 section 5.1: the last octet counts the padding, itself included.
        if first & RTPHeader.paddingBit != 0 {
            let available = bytes.count - offset
            guard available > 0 else { throw .truncated(what: "padding count", needed: 1, available: 0) }
            let count = Int(bytes[bytes.count - 1])
            guard count > 0 else { throw .paddingCountZero }
            guard count <= available else { throw .paddingBeyondPayload(count: count, available: available) }
            paddingLength = count
        } else {
            paddingLength = 0
        }
        self.bytes = bytes
        headerLength = offset
    }

    /// The version field (always 2 once parsed).
    public var version: UInt8 { bytes[0] >> RTPHeader.versionShift }
    /// The P bit.
    public var hasPadding: Bool { bytes[0] & RTPHeader.paddingBit != 0 }
    /// The X bit.
    public var hasExtension: Bool { bytes[0] & RTPHeader.extensionBit != 0 }
    /// The CC field: how many CSRCs follow the fixed header.
    public var csrcCount: Int { Int(bytes[0] & RTPHeader.csrcCountMask) }
    /// The M bit.
    public var marker: Bool { bytes[1] & RTPHeader.markerBit != 0 }
    /// The payload type (7 bits).
    public var payloadType: UInt8 { bytes[1] & RTPHeader.payloadTypeMask }
    /// The sequence number.
    public var sequenceNumber: UInt16 { bytes.be16(RTPHeader.sequenceNumberOffset) }
    /// The timestamp.
    public var timestamp: UInt32 { bytes.be32(RTPHeader.timestampOffset) }
    /// The SSRC.
    public var ssrc: UInt32 { bytes.be32(RTPHeader.ssrcOffset) }

    /// The CSRC at `index` (0..<csrcCount).
    public func csrc(at index: Int) -> UInt32 {
        precondition(index >= 0 && index < csrcCount, "CSRC index out of range")
        return bytes.be32(RTPHeader.fixedSize + index * RTPHeader.csrcSize)
    }

    /// The extension's profile, or nil when the X bit is clear.
    public var extensionProfile: RTPExtensionProfile? {
        extensionOffset < 0 ? nil : RTPExtensionProfile(rawValue: bytes.be16(extensionOffset))
    }

    /// The extension block as a view (elements for RFC 8285 profiles), or nil.
    public var extensions: RTPHeaderExtensionElements? {
        guard extensionOffset >= 0 else { return nil }
        let length = Int(bytes.be16(extensionOffset + 2)) * 4
        return RTPHeaderExtensionElements(profile: RTPExtensionProfile(rawValue: bytes.be16(extensionOffset)),
                                          data: bytes.view(extensionOffset + 4..<extensionOffset + 4 + length))
    }

    /// The data of the first extension element with `id`, or nil. Cost: a walk of the block.
    public func extensionElement(id: UInt8) -> UnsafeRawBufferPointer? {
        extensions?.element(id: id)
    }

    /// The payload between the header and the padding, as a view (no copy).
    public var payload: UnsafeRawBufferPointer {
        bytes.view(headerLength..<bytes.count - paddingLength)
    }
}
