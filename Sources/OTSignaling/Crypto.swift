import COpenSSL

/// libcrypto primitives behind tokens and JWTs. Each call allocates its result array;
/// an HMAC over token-sized input is one short OpenSSL call.
enum Crypto {
    /// HMAC-SHA1 of `message` keyed by `key` (T1 token signatures): 20 bytes.
    static func hmacSHA1(key: [UInt8], message: [UInt8]) -> [UInt8] { hmac(EVP_sha1(), key: key, message: message) }

    /// HMAC-SHA256 of `message` keyed by `key` (HS256 JWTs): 32 bytes.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] { hmac(EVP_sha256(), key: key, message: message) }

    private static func hmac(_ md: OpaquePointer?, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                out.withUnsafeMutableBytes { o in
                    // A non-null pointer even for empty inputs: OpenSSL rejects a NULL key.
                    let keyPointer = k.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
                    let messagePointer = m.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    return HMAC(md, keyPointer, Int32(k.count), messagePointer, m.count,
                                o.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        precondition(result != nil, "HMAC failed in libcrypto")
        return Array(out.prefix(Int(length)))
    }

    /// `count` bytes from OpenSSL's CSPRNG.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBytes { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count)) }
        precondition(ok == 1, "RAND_bytes failed")
        return bytes
    }

    /// A uniformly random integer in 0...999_999 (the OpenTok token nonce range).
    static func randomNonce() -> Int {
        let bytes = randomBytes(8)
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value % 1_000_000)  // bias below 1e-13: irrelevant for a nonce
    }

    /// Compares two byte strings in time that depends only on their lengths (CRYPTO_memcmp),
    /// so a forger learns nothing from how long a signature check takes.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 } }
    }

    /// Lowercase hex of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes of a hex string (either case); nil if it has an odd length or a non-hex digit.
    static func unhex(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = hexDigitValue(chars[i]), let lo = hexDigitValue(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}

/// The value of one ASCII hex digit (either case), or nil.
func hexDigitValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
}
