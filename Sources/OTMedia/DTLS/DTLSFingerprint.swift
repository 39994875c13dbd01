/// A certificate fingerprint as SDP carries it (`a=fingerprint:sha-256 AB:CD:…`, RFC 8122):
/// the hash algorithm and the 32 bytes of the certificate's SHA-256 digest.
///
/// Only SHA-256 is accepted: every browser and OTKit itself send it, and a peer's SDP
/// that names anything else is refused rather than checked weakly. Fingerprints are
/// public (they travel in the SDP), so `description` prints them. Cost: a 32-byte array.
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The SDP name of the only hash accepted.
    public static let sha256 = "sha-256"
    /// Bytes of a SHA-256 digest.
    public static let length = 32
    /// The longest `a=fingerprint` value `init(sdpValue:)` looks at: longer text is
    /// refused before any parsing (it cannot be a SHA-256 fingerprint).
    public static let maxSDPValueLength = 256

    /// The hash algorithm's SDP name, lower case ("sha-256").
    public let algorithm: String
    /// The digest of the DER certificate (32 bytes).
    public let bytes: [UInt8]

    /// A SHA-256 fingerprint from its 32 digest bytes; nil for any other length.
    public init?(sha256 bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        algorithm = Self.sha256
        self.bytes = bytes
    }

    /// Parses the value of a peer's `a=fingerprint` attribute, "sha-256 AB:CD:…" (the
    /// algorithm name in any case, 32 two-digit hex bytes separated by colons, in any case,
    /// surrounding blanks ignored). Throws `DTLSError.malformedFingerprint` with the reason
    /// for anything else; the caller counts it. Cost: one pass over at most 256 characters.
    public init(sdpValue text: String) throws(DTLSError) {
        guard text.utf8.count <= Self.maxSDPValueLength else {
            throw .malformedFingerprint("longer than \(Self.maxSDPValueLength) bytes")
        }
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 2 else { throw .malformedFingerprint("expected '<hash> <hex bytes>', got \(parts.count) fields") }
        guard parts[0].lowercased() == Self.sha256 else {
            throw .malformedFingerprint("unsupported hash '\(parts[0].prefix(16))' (only sha-256)")
        }
        let groups = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard groups.count == Self.length else {
            throw .malformedFingerprint("expected \(Self.length) colon-separated bytes, got \(groups.count)")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.length)
        for group in groups {
            guard group.utf8.count == 2, let high = Self.hexValue(group.utf8.first!),
                  let low = Self.hexValue(group.utf8.last!) else {
                throw .malformedFingerprint("'\(group.prefix(8))' is not a two-digit hex byte")
            }
            bytes.append(high << 4 | low)
        }
        algorithm = Self.sha256
        self.bytes = bytes
    }

    /// The SDP attribute value, "sha-256 AB:CD:…" (upper-case hex, as browsers write it).
    public var sdpValue: String { algorithm + " " + hexText }

    /// The digest as upper-case hex pairs joined by colons.
    public var hexText: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 3)
        for (index, byte) in bytes.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ":")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The SDP value (fingerprints are public).
    public var description: String { sdpValue }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
