import COpenSSL

/// RFC 9605 §4.4.2: the frame key and salt of one KID, from a base key, with HKDF-SHA256
/// (RFC 5869) for `AES_128_GCM_SHA256_128`:
///
///     sframe_secret = HKDF-Extract(salt = "", base_key)
///     sframe_key    = HKDF-Expand(sframe_secret, "SFrame 1.0 Secret key "  ‖ KID ‖ suite, Nk)
///     sframe_salt   = HKDF-Expand(sframe_secret, "SFrame 1.0 Secret salt " ‖ KID ‖ suite, Nn)
///
/// with KID as 8 bytes and the suite as 2 bytes, big-endian. Checked byte for byte against
/// RFC 9605 Appendix C.4 in the tests. Cost: three HMAC-SHA256 and a few small arrays,
/// about 5 µs; done once per KID, never per frame.
public struct SFrameKeySchedule: Sendable {
    /// HKDF-Extract's output (`sframe_secret`), 32 bytes.
    public let secret: [UInt8]
    /// The AES-GCM key (`sframe_key`), `suite.keyLength` bytes.
    public let key: [UInt8]
    /// XORed with the counter to form each nonce (`sframe_salt`), `suite.nonceLength` bytes.
    public let salt: [UInt8]

    /// Derives the key and salt of `keyID` from `baseKey` (1–1024 bytes, else `invalidBaseKey`).
    public init(baseKey: [UInt8], keyID: UInt64, suite: SFrameCipherSuite = .aes128GCMSHA256) throws(SFrameError) {
        guard (1...1024).contains(baseKey.count) else { throw .invalidBaseKey(length: baseKey.count) }
        // An empty HMAC key is padded with zeros to the block size, as is HashLen zeros:
        // the two are the same key, and OpenSSL takes the latter without a special case.
        let secret = try Self.hmac(key: [UInt8](repeating: 0, count: 32), message: baseKey)
        self.secret = secret
        key = Array(try Self.hmac(key: secret, message: Self.keyLabel(keyID: keyID, suite: suite) + [1]).prefix(suite.keyLength))
        salt = Array(try Self.hmac(key: secret, message: Self.saltLabel(keyID: keyID, suite: suite) + [1]).prefix(suite.nonceLength))
    }

    /// `sframe_key_label`: "SFrame 1.0 Secret key " ‖ KID (8 bytes) ‖ suite (2 bytes).
    public static func keyLabel(keyID: UInt64, suite: SFrameCipherSuite) -> [UInt8] {
        Array("SFrame 1.0 Secret key ".utf8) + bigEndian(keyID, suite: suite)
    }

    /// `sframe_salt_label`: "SFrame 1.0 Secret salt " ‖ KID (8 bytes) ‖ suite (2 bytes).
    public static func saltLabel(keyID: UInt64, suite: SFrameCipherSuite) -> [UInt8] {
        Array("SFrame 1.0 Secret salt ".utf8) + bigEndian(keyID, suite: suite)
    }

    private static func bigEndian(_ keyID: UInt64, suite: SFrameCipherSuite) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: keyID >> (56 - 8 * UInt64($0))) }
            + [UInt8(suite.rawValue >> 8), UInt8(suite.rawValue & 0xFF)]
    }

    /// HMAC-SHA256 (OpenSSL's one-shot `HMAC`): 32 bytes. HKDF-Expand to at most 32 bytes
    /// is one HMAC over info ‖ 0x01, which is how `init` uses it.
    private static func hmac(key: [UInt8], message: [UInt8]) throws(SFrameError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                out.withUnsafeMutableBytes { o in
                    HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count,
                         o.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        guard result != nil, length == 32 else { throw .cryptoFailure(side: .receiver, "HMAC-SHA256 in the SFrame key schedule") }
        return out
    }
}
