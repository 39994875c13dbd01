import COpenSSL

/// MESSAGE-INTEGRITY's HMAC-SHA1 (RFC 8489 section 14.5) on OpenSSL's libcrypto, and the
/// constant-time comparison a verifier needs so timing does not leak how many bytes of a
/// forged HMAC were right.
enum STUNIntegrity {
    /// HMAC-SHA1 of `message` keyed by `key`, written to `output` (20 bytes). Cost: one
    /// OpenSSL `HMAC` call (it builds a context internally: a few allocations, ~1–2 µs
    /// for a 100-byte check); STUN checks arrive every few seconds per leg, not per packet.
    static func hmacSHA1(key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer,
                         into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= STUN.integritySize)
        var length: UInt32 = 0
        // OpenSSL wants non-null pointers even for empty inputs.
        var empty: UInt8 = 0
        let result = withUnsafeMutablePointer(to: &empty) { placeholder in
            HMAC(EVP_sha1(),
                 key.baseAddress ?? UnsafeRawPointer(placeholder), Int32(key.count),
                 message.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(placeholder), message.count,
                 output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
        }
        precondition(result != nil && length == 20, "HMAC-SHA1 failed in libcrypto")
    }

    /// True when the first 20 bytes of `a` and `b` are equal, in time independent of
    /// where they differ (`CRYPTO_memcmp`).
    static func equalInConstantTime(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count >= STUN.integritySize, b.count >= STUN.integritySize else { return false }
        return CRYPTO_memcmp(a.baseAddress!, b.baseAddress!, STUN.integritySize) == 0
    }
}
