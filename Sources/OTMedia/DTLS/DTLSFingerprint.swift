/// A certificate fingerprint as SDP carries it (`a=fingerprint:sha-256 AB:CD:…`, RFC 8122):
/// the hash algorithm and the 32 bytes of the certificate's SHA-256 digest.
///
/// Only SHA-256 is accepted: every browser and OTKit itself send it, and a peer's SDP
/// that names anything else is refused rather than checked weakly. The text is read by
/// the SDP parser (`SDPFingerprint`, fuzzed with the rest of SDP) and converted where the
/// two meet, in the router (`DTLSFingerprint(sdp:)`). Fingerprints are
/// public (they travel in the SDP), so `description` prints them. Cost: a 32-byte array.
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The SDP name of the only hash accepted.
    public static let sha256 = "sha-256"
    /// Bytes of a SHA-256 digest.
    public static let length = 32
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

}
