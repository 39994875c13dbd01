import CTestCrypto
import OTMedia

/// A second SRTP implementation, written for the tests from RFC 3711 (AES-CM, HMAC-SHA1,
/// the key derivation) and RFC 7714 (AES-GCM), on OpenSSL's raw AES and HMAC. libsrtp2
/// (built on NSS in Debian) must produce byte-identical packets. Slow and allocating on
/// purpose: clarity over speed. ROC is always 0 here (sequence numbers below 65536).
enum SRTPReference {
    /// AES-128 of one block.
    static func aes(key: [UInt8], _ block: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        let status = test_aes128_block(key, block, &out)
        precondition(status == 0, "OpenSSL AES failed")
        return out
    }

    /// AES counter-mode keystream (RFC 3711 section 4.1.1): AES(key, iv + j) for j = 0, 1,
    /// …, where `iv` is 16 bytes whose low 16 bits are the block counter.
    static func keystream(key: [UInt8], iv: [UInt8], count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var counter = iv
        while out.count < count {
            out += aes(key: key, counter)
            // Increment the 128-bit big-endian counter.
            var index = 15
            while index >= 0 { counter[index] &+= 1; if counter[index] != 0 { break }; index -= 1 }
        }
        return Array(out[0..<count])
    }

    /// The SRTP key derivation (RFC 3711 section 4.3.1 with key_derivation_rate 0, PRF of
    /// section 4.3.3): x = (label || r) XOR master_salt, right-aligned in 112 bits, then
    /// the AES-CM keystream under the master key with IV x * 2^16. A 96-bit GCM master
    /// salt is padded with zeros to 112 bits on the right (RFC 7714 section 12).
    static func derive(masterKey: [UInt8], masterSalt: [UInt8], label: UInt8, length: Int) -> [UInt8] {
        var x = masterSalt + [UInt8](repeating: 0, count: 14 - masterSalt.count)
        x[7] ^= label // key_id = label || r (48 zero bits); its label byte lands on byte 7 of 14
        return keystream(key: masterKey, iv: x + [0, 0], count: length)
    }

    /// Session keys of one direction, RTP or RTCP.
    struct SessionKeys {
        var cipherKey: [UInt8]
        var authKey: [UInt8]
        var salt: [UInt8]
    }

    static func sessionKeys(_ keys: SRTPKeyMaterial, rtcp: Bool) -> SessionKeys {
        let base: UInt8 = rtcp ? 3 : 0
        func d(_ label: UInt8, _ length: Int) -> [UInt8] {
            derive(masterKey: keys.masterKey, masterSalt: keys.masterSalt, label: base + label, length: length)
        }
        return SessionKeys(cipherKey: d(0, 16), authKey: d(1, 20), salt: d(2, keys.profile.masterSaltLength))
    }

    static func hmacSHA1(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        let status = test_hmac_sha1(key, key.count, data, data.count, &out)
        precondition(status == 0, "OpenSSL HMAC failed")
        return out
    }

    static func gcm(key: [UInt8], iv: [UInt8], aad: [UInt8], plain: [UInt8]) -> (cipher: [UInt8], tag: [UInt8]) {
        var cipher = [UInt8](repeating: 0, count: plain.count)
        var tag = [UInt8](repeating: 0, count: 16)
        let status = test_aes128_gcm_encrypt(key, iv, aad, aad.count, plain, plain.count, &cipher, &tag)
        precondition(status == 0, "OpenSSL GCM failed")
        return (cipher, tag)
    }

    /// Protects an RTP packet whose header is `headerLength` bytes (ROC 0).
    static func protectRTP(_ packet: [UInt8], headerLength: Int, keys: SRTPKeyMaterial) -> [UInt8] {
        let session = sessionKeys(keys, rtcp: false)
        let header = Array(packet[0..<headerLength]), payload = Array(packet[headerLength...])
        let ssrc = Array(packet[8..<12]), sequence = Array(packet[2..<4])
        switch keys.profile {
        case .aeadAES128GCM:
            // RFC 7714 section 8.1: IV = (00 00 || SSRC || ROC || SEQ) XOR salt; AAD = header.
            let iv = zip([0, 0] + ssrc + [0, 0, 0, 0] + sequence, session.salt).map { $0 ^ $1 }
            let (cipher, tag) = gcm(key: session.cipherKey, iv: iv, aad: header, plain: payload)
            return header + cipher + tag
        case .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32:
            // RFC 3711 section 4.1.1: IV = salt*2^16 XOR SSRC*2^64 XOR index*2^16.
            var iv = session.salt + [0, 0]
            for i in 0..<4 { iv[4 + i] ^= ssrc[i] }
            iv[12] ^= sequence[0]; iv[13] ^= sequence[1] // index = ROC (0) || SEQ in bytes 8..13
            let stream = keystream(key: session.cipherKey, iv: iv, count: payload.count)
            let encrypted = header + zip(payload, stream).map { $0 ^ $1 }
            // Section 4.2: tag = HMAC-SHA1(k_a, packet || ROC), truncated.
            let tag = hmacSHA1(key: session.authKey, encrypted + [0, 0, 0, 0])
            return encrypted + tag[0..<keys.profile.rtpTagLength]
        }
    }

    /// Protects an RTCP packet with SRTCP index `index` (E flag set: encrypted).
    static func protectRTCP(_ packet: [UInt8], index: UInt32, keys: SRTPKeyMaterial) -> [UInt8] {
        let session = sessionKeys(keys, rtcp: true)
        let header = Array(packet[0..<8]), payload = Array(packet[8...])
        let ssrc = Array(packet[4..<8])
        let eIndex = withUnsafeBytes(of: (0x8000_0000 | index).bigEndian) { Array($0) }
        let plainIndex = withUnsafeBytes(of: index.bigEndian) { Array($0) }
        switch keys.profile {
        case .aeadAES128GCM:
            // RFC 7714 section 9.1: IV = (00 00 || SSRC || 00 00 || 0 || index) XOR salt;
            // AAD = header || E || index; the E||index word follows the tag.
            let iv = zip([0, 0] + ssrc + [0, 0] + plainIndex, session.salt).map { $0 ^ $1 }
            let (cipher, tag) = gcm(key: session.cipherKey, iv: iv, aad: header + eIndex, plain: payload)
            return header + cipher + tag + eIndex
        case .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32:
            // RFC 3711 sections 3.4 and 4.1.1: index in place of the RTP index; the tag covers E||index.
            var iv = session.salt + [0, 0]
            for i in 0..<4 { iv[4 + i] ^= ssrc[i] }
            for i in 0..<4 { iv[10 + i] ^= plainIndex[i] }
            let stream = keystream(key: session.cipherKey, iv: iv, count: payload.count)
            let encrypted = header + zip(payload, stream).map { $0 ^ $1 } + eIndex
            let tag = hmacSHA1(key: session.authKey, encrypted)
            return encrypted + tag[0..<keys.profile.rtcpTagLength]
        }
    }

    /// "0a1b…" → bytes.
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0..<$0 + 2]), radix: 16)! }
    }
}
