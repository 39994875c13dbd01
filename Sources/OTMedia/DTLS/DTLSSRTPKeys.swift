/// The SRTP keys a finished DTLS-SRTP handshake yields, already split per RFC 5764
/// section 4.2 for this side's role: `local` protects what this side sends (an
/// `SRTPSession` with direction `.sender`), `remote` unprotects what it receives
/// (direction `.receiver`).
///
/// The exporter output is `client key | server key | client salt | server salt`; the DTLS
/// client sends with the client half and the server with the server half.
/// Never printed: `description`, `debugDescription` and the mirror show the profile only.
/// Cost: two small arrays, made once per handshake.
public struct DTLSSRTPKeys: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The negotiated profile.
    public let profile: SRTPProfile
    /// Key and salt for what this side sends.
    public let local: SRTPKeyMaterial
    /// Key and salt for what the peer sends.
    public let remote: SRTPKeyMaterial

    /// Splits `exported` (exactly `2 * profile.keyMaterialLength` bytes from the
    /// "EXTRACTOR-dtls_srtp" exporter) for `role`; nil for any other length.
    public init?(profile: SRTPProfile, exported: [UInt8], role: DTLSRole) {
        let keyLength = profile.masterKeyLength, saltLength = profile.masterSaltLength
        guard exported.count == 2 * (keyLength + saltLength) else { return nil }
        let clientKey = Array(exported[0..<keyLength])
        let serverKey = Array(exported[keyLength..<(2 * keyLength)])
        let clientSalt = Array(exported[(2 * keyLength)..<(2 * keyLength + saltLength)])
        let serverSalt = Array(exported[(2 * keyLength + saltLength)...])
        guard let client = try? SRTPKeyMaterial(profile: profile, masterKey: clientKey, masterSalt: clientSalt),
              let server = try? SRTPKeyMaterial(profile: profile, masterKey: serverKey, masterSalt: serverSalt) else { return nil }
        self.profile = profile
        local = role == .client ? client : server
        remote = role == .client ? server : client
    }

    /// Bytes the exporter must produce for `profile`: 56 for AES-128-GCM, 60 for AES-CM.
    public static func exportLength(for profile: SRTPProfile) -> Int { 2 * profile.keyMaterialLength }

    /// The sending session (`local` keys). Throws what `SRTPSession.init` throws.
    public func makeSender() throws(SRTPError) -> SRTPSession { try SRTPSession(keys: local, direction: .sender) }

    /// The receiving session (`remote` keys). Throws what `SRTPSession.init` throws.
    public func makeReceiver() throws(SRTPError) -> SRTPSession { try SRTPSession(keys: remote, direction: .receiver) }

    /// "DTLSSRTPKeys(AEAD_AES_128_GCM, <redacted>)": never the key bytes.
    public var description: String { "DTLSSRTPKeys(\(profile), <redacted>)" }

    /// The same as `description`.
    public var debugDescription: String { description }

    /// The profile only, so `dump` and debuggers do not print keys.
    public var customMirror: Mirror { Mirror(self, children: ["profile": profile]) }
}
