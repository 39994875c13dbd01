/// An SFrame cipher suite (RFC 9605 §4.5, the IANA "SFrame Cipher Suites" registry).
///
/// OTKit implements the one RFC 9605 recommends for video and audio alike:
/// `AES_128_GCM_SHA256_128` (value 0x0004): AES-128-GCM with a full 16-byte tag, keys
/// derived with HKDF-SHA256. The AES-CTR + HMAC suites with short tags (0x0001–0x0003)
/// are not offered: they save 12 bytes per audio frame and cost a second primitive.
public enum SFrameCipherSuite: UInt16, Sendable, Hashable, CaseIterable {
    /// AES_128_GCM_SHA256_128: Nk 16, Nn 12, Nt 16, HKDF-SHA256.
    case aes128GCMSHA256 = 0x0004

    /// `AEAD.Nk`: bytes of the frame key. Free.
    public var keyLength: Int { 16 }
    /// `AEAD.Nn`: bytes of the nonce (and of the salt). Free.
    public var nonceLength: Int { 12 }
    /// `AEAD.Nt`: bytes of the authentication tag after the ciphertext. Free.
    public var tagLength: Int { 16 }
}
