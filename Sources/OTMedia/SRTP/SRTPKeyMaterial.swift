/// An SRTP master key and master salt for one profile: what SDES (`a=crypto`, RFC 4568)
/// carries as `inline:<base64 of key || salt>`, what GStreamer's `srtp-key` takes as 28 or
/// 30 raw bytes, and what DTLS-SRTP (RFC 5764) will export later. Each direction of a
/// call has its own key material.
///
/// The bytes are secret: `description` and `debugDescription` redact them, so key
/// material can be logged by accident without leaking. Cost: two small arrays; all of it
/// is setup work, never per packet.
public struct SRTPKeyMaterial: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable {
    /// The profile these keys are for (it fixes the lengths).
    public let profile: SRTPProfile
    /// The master key (16 bytes).
    public let masterKey: [UInt8]
    /// The master salt (12 bytes for GCM, 14 for AES-CM).
    public let masterSalt: [UInt8]

    /// Key material from a separate key and salt; throws `invalidKeyMaterial` unless their
    /// lengths are the profile's.
    public init(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8]) throws(SRTPError) {
        guard masterKey.count == profile.masterKeyLength else {
            throw .invalidKeyMaterial("\(profile) needs a \(profile.masterKeyLength)-byte master key, got \(masterKey.count) bytes")
        }
        guard masterSalt.count == profile.masterSaltLength else {
            throw .invalidKeyMaterial("\(profile) needs a \(profile.masterSaltLength)-byte master salt, got \(masterSalt.count) bytes")
        }
        self.profile = profile
        self.masterKey = masterKey
        self.masterSalt = masterSalt
    }

    /// Key material from key || salt concatenated (GStreamer's `srtp-key`, pylibsrtp):
    /// exactly `profile.keyMaterialLength` bytes (28 for GCM, 30 for AES-CM).
    public init(profile: SRTPProfile, keyAndSalt: [UInt8]) throws(SRTPError) {
        guard keyAndSalt.count == profile.keyMaterialLength else {
            throw .invalidKeyMaterial("\(profile) needs \(profile.keyMaterialLength) bytes of key and salt, got \(keyAndSalt.count) bytes")
        }
        try self.init(profile: profile,
                      masterKey: Array(keyAndSalt[..<profile.masterKeyLength]),
                      masterSalt: Array(keyAndSalt[profile.masterKeyLength...]))
    }

    /// Key material from SDES key parameters: `inline:<base64>` (RFC 4568 section 6.1) or
    /// the bare base64. The optional lifetime and MKI fields (`|2^31|1:4`) are rejected:
    /// OTKit never uses an MKI, and a lifetime would be ignored silently otherwise.
    public init(profile: SRTPProfile, base64 text: String) throws(SRTPError) {
        var encoded = Substring(text)
        if encoded.hasPrefix("inline:") { encoded = encoded.dropFirst("inline:".count) }
        if encoded.contains("|") {
            throw .invalidKeyMaterial("lifetime and MKI fields after the key are not supported (got '|' in the key parameters)")
        }
        guard let bytes = Base64.decode(String(encoded)) else {
            throw .invalidKeyMaterial("the key parameters are not valid base64")
        }
        try self.init(profile: profile, keyAndSalt: bytes)
    }

    /// Fresh key material from the system's cryptographically secure generator
    /// (`SystemRandomNumberGenerator`: getrandom(2) on Linux).
    public static func random(profile: SRTPProfile = .default) -> SRTPKeyMaterial {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<profile.keyMaterialLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        // The lengths are the profile's by construction.
        return try! SRTPKeyMaterial(profile: profile, keyAndSalt: bytes)
    }

    /// Key || salt, as GStreamer's `srtp-key` and libsrtp's policy take it.
    public var keyAndSalt: [UInt8] { masterKey + masterSalt }

    /// The base64 of key || salt (no `inline:` prefix).
    public var base64: String { Base64.encode(keyAndSalt) }

    /// The SDES key parameters: `inline:<base64>`, as in `a=crypto:1 <profile> inline:…`.
    public var sdesKeyParameters: String { "inline:" + base64 }

    /// "SRTPKeyMaterial(AEAD_AES_128_GCM, <redacted>)": never the key bytes.
    public var description: String { "SRTPKeyMaterial(\(profile), <redacted>)" }

    /// The same as `description`: never the key bytes.
    public var debugDescription: String { description }

    /// A mirror with the profile only, so `dump` and debuggers do not print the key bytes.
    public var customMirror: Mirror { Mirror(self, children: ["profile": profile]) }
}
