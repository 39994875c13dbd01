import CSRTPCipher
import Testing
@testable import OTMedia

/// libsrtp2's primitives on OpenSSL (CModules/CSRTPCipher: AES-GCM, AES-128 counter mode,
/// HMAC-SHA1): installed when OTKit initialises libsrtp2, used by every session, and
/// byte-exact against the known answers libsrtp's own test driver validates its SRTP with
/// (srtp_validate_gcm and srtp_validate, libsrtp 2.5.0). The round-trip, tampering,
/// replay and reference tests in the other SRTP suites run on them too.
@Suite struct SRTPOpenSSLCryptoTests {
    typealias R = SRTPReference

    struct Vector: Sendable, CustomStringConvertible {
        let profile: SRTPProfile
        let keyAndSalt: String
        let rtp: String
        let srtp: String
        let rtcp: String
        let srtcp: String
        var description: String { "\(profile)" }
    }

    static let vectors = [
        Vector(profile: .aeadAES128GCM,
               keyAndSalt: "000102030405060708090a0b0c0d0e0f a0a1a2a3a4a5a6a7a8a9aaab",
               rtp: "800f1234decafbadcafebabe abababababababababababababababab",
               srtp: "800f1234decafbadcafebabe c5002ede04cfdd2eb91159e0880aa06e d2976826f796b201df3131a127e8a392",
               rtcp: "81c8000bcafebabe abababababababababababababababab",
               srtcp: "81c8000bcafebabe c98b8b5df0392a55852b6c21ac8e7025 c52c6fbea2b3b446ea31123ba88ce61e 80000001"),
        Vector(profile: .aesCM128HMACSHA1_80,
               keyAndSalt: "e1f97a0d3e018be0d64fa32c06de4139 0ec675ad498afeebb6960b3aabe6",
               rtp: "800f1234decafbadcafebabe abababababababababababababababab",
               srtp: "800f1234decafbadcafebabe 4e55dc4ce79978d88ca4d215949d2402 b78d6acc99ea179b8dbb",
               rtcp: "81c8000bcafebabe abababababababababababababababab",
               srtcp: "81c8000bcafebabe 7128035be487b9bdbef89041f977a5a8 80000001 993e08cd54d6c1230798"),
    ]

    static func pair(_ vector: Vector) throws -> (sender: SRTPSession, receiver: SRTPSession) {
        let keys = try SRTPKeyMaterial(profile: vector.profile, keyAndSalt: R.bytes(vector.keyAndSalt))
        return (try SRTPSession(keys: keys, direction: .sender), try SRTPSession(keys: keys, direction: .receiver))
    }

    @Test func installedAndUsedBySessions() throws {
        #expect(SRTPLibrary.openSSLCryptoStatus == 0, "libsrtp refused an OpenSSL primitive (status \(SRTPLibrary.openSSLCryptoStatus))")
        let gcm = otk_srtp_openssl_aes_gcm_ciphers_allocated(), icm = otk_srtp_openssl_aes_icm_ciphers_allocated()
        let hmac = otk_srtp_openssl_hmac_sha1_allocated()
        _ = try Self.pair(Self.vectors[0])
        // The RTP and RTCP ciphers of each session's stream template at least, and its key
        // derivation. (Were a type not installed, no session in the process would
        // allocate through it, so these cannot pass by the other tests' sessions alone.)
        #expect(otk_srtp_openssl_aes_gcm_ciphers_allocated() >= gcm + 4)
        #expect(otk_srtp_openssl_aes_icm_ciphers_allocated() >= icm + 2)
        _ = try Self.pair(Self.vectors[1])
        #expect(otk_srtp_openssl_aes_icm_ciphers_allocated() >= icm + 4 + 4)
        #expect(otk_srtp_openssl_hmac_sha1_allocated() >= hmac + 4)
    }

    @Test(arguments: vectors)
    func rtpMatchesTheKnownAnswer(_ vector: Vector) throws {
        let (sender, receiver) = try Self.pair(vector)
        #expect(try sender.protect(R.bytes(vector.rtp)) == R.bytes(vector.srtp))
        #expect(try receiver.unprotect(R.bytes(vector.srtp)) == R.bytes(vector.rtp))
    }

    @Test(arguments: vectors)
    func rtcpMatchesTheKnownAnswer(_ vector: Vector) throws {
        let (sender, receiver) = try Self.pair(vector)
        let srtcp = R.bytes(vector.srtcp)
        #expect(try sender.protectRTCP(R.bytes(vector.rtcp)) == srtcp)
        #expect(try receiver.unprotectRTCP(srtcp) == R.bytes(vector.rtcp))
        var forged = srtcp
        forged[forged.count - 5] ^= 0x01  // inside the tag (GCM: its last byte; AES-CM: its sixth)
        #expect(throws: SRTPError.authenticationFailed) { try Self.pair(vector).receiver.unprotectRTCP(forged) }
    }
}
