import COpenSSL

/// The SFrame `base_key` every client of an end-to-end encrypted session shares: derived
/// from the encryption secret the application sets (OpenTok's `setEncryptionSecret`) and
/// the session ID, so clients that agree on the secret out of band agree on the key and
/// the router, which knows the session ID but not the secret, does not.
///
/// Derivation: PBKDF2-HMAC-SHA256 (RFC 8018) of the secret's UTF-8 bytes, salt =
/// "OTKit SFrame 1.0 base key " ‖ the session ID's UTF-8 bytes, `iterations` rounds
/// (600,000), 32 bytes out. The salt ties the key to the session, so one dictionary
/// attack does not serve every session; the iteration count is OWASP's 2023 figure for
/// PBKDF2-HMAC-SHA256 (LiveKit uses 100,000 with a fixed salt; OpenTok does not publish
/// its own). A secret is 8 characters or more and a router operator sees ciphertext,
/// so the count is what slows an offline guess; it is paid once per secret change.
///
/// Each sender then encrypts under its own KID, and RFC 9605's key schedule mixes the KID
/// into the frame key and salt (`SFrameKeySchedule`), so senders sharing this base key
/// never share a (key, nonce) pair as long as their KIDs differ.
///
/// Cost: `init(secret:sessionID:)` runs 600,000 PBKDF2 rounds: 0.15–0.8 s of one core on
/// the shared 2-core VM, depending on load; call it off the media threads.
public struct SFrameBaseKey: Sendable {
    /// PBKDF2 rounds: OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256.
    public static let iterations = 600_000
    /// Characters a secret may have (OpenTok's ENCRYPTION_SECRET_MINIMUM/MAXIMUM_LENGTH).
    public static let secretLengths = 8...256
    /// Bytes of a derived base key (SHA-256's output).
    public static let length = 32

    /// The key bytes (32 from a secret; any 1–1024 from `init(bytes:)`).
    public let bytes: [UInt8]

    /// Derives the base key of `secret` in session `sessionID`. A secret of fewer than 8
    /// or more than 256 characters (Swift `Character`s) throws `invalidSecret` (6004).
    /// `iterations` other than the default exist for tests only: every client of a
    /// session must use the same count.
    public init(secret: String, sessionID: String, iterations: Int = SFrameBaseKey.iterations) throws(SFrameError) {
        guard Self.secretLengths.contains(secret.count) else { throw .invalidSecret(length: secret.count) }
        let password = Array(secret.utf8)
        let salt = Self.salt(sessionID: sessionID)
        var out = [UInt8](repeating: 0, count: Self.length)
        let status = password.withUnsafeBufferPointer { p in
            salt.withUnsafeBufferPointer { s in
                out.withUnsafeMutableBufferPointer { o in
                    p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { chars in
                        PKCS5_PBKDF2_HMAC(chars, Int32(p.count), s.baseAddress, Int32(s.count), Int32(max(1, iterations)),
                                          EVP_sha256(), Int32(o.count), o.baseAddress)
                    }
                }
            }
        }
        guard status == 1 else { throw .cryptoFailure(side: .sender, "PKCS5_PBKDF2_HMAC") }
        bytes = out
    }

    /// A base key given as bytes (RFC 9605's test vectors, keys from elsewhere): 1–1024
    /// bytes, else `invalidBaseKey`.
    public init(bytes: [UInt8]) throws(SFrameError) {
        guard (1...1024).contains(bytes.count) else { throw .invalidBaseKey(length: bytes.count) }
        self.bytes = bytes
    }

    /// PBKDF2's salt for a session: "OTKit SFrame 1.0 base key " ‖ UTF-8 session ID.
    public static func salt(sessionID: String) -> [UInt8] {
        Array("OTKit SFrame 1.0 base key ".utf8) + Array(sessionID.utf8)
    }
}
