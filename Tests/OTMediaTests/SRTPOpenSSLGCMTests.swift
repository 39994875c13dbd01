import CSRTPCipher
import Testing
@testable import OTMedia

/// libsrtp2's AES-GCM on OpenSSL (CModules/CSRTPCipher): installed when OTKit initialises
/// libsrtp2, used by every GCM session, and byte-exact against the known answer libsrtp's
/// own test driver validates its GCM with (srtp_validate_gcm, libsrtp 2.5.0). The
/// round-trip, tampering, replay and reference tests in the other SRTP suites run on it too.
@Suite struct SRTPOpenSSLGCMTests {
    typealias R = SRTPReference

    static let keyAndSalt = R.bytes("000102030405060708090a0b0c0d0e0f a0a1a2a3a4a5a6a7a8a9aaab")

    static func pair() throws -> (sender: SRTPSession, receiver: SRTPSession) {
        let keys = try SRTPKeyMaterial(profile: .aeadAES128GCM, keyAndSalt: keyAndSalt)
        return (try SRTPSession(keys: keys, direction: .sender), try SRTPSession(keys: keys, direction: .receiver))
    }

    @Test func installedAndUsedBySessions() throws {
        #expect(SRTPLibrary.openSSLGCMStatus == 0, "libsrtp refused the OpenSSL AES-GCM (status \(SRTPLibrary.openSSLGCMStatus))")
        let before = otk_srtp_openssl_aes_gcm_ciphers_allocated()
        _ = try Self.pair()
        // The RTP and RTCP ciphers of each session's stream template at least. (Were the
        // types not installed, no session in the process would allocate through them.)
        #expect(otk_srtp_openssl_aes_gcm_ciphers_allocated() >= before + 4)
    }

    @Test func rtpMatchesTheKnownAnswer() throws {
        let (sender, receiver) = try Self.pair()
        let clear = R.bytes("800f1234decafbadcafebabe abababababababababababababababab")
        let expected = R.bytes("800f1234decafbadcafebabe c5002ede04cfdd2eb91159e0880aa06e d2976826f796b201df3131a127e8a392")
        let sealed = try sender.protect(clear)
        #expect(sealed == expected)
        #expect(try receiver.unprotect(expected) == clear)
    }

    @Test func rtcpMatchesTheKnownAnswer() throws {
        let (sender, receiver) = try Self.pair()
        let clear = R.bytes("81c8000bcafebabe abababababababababababababababab")
        let expected = R.bytes("81c8000bcafebabe c98b8b5df0392a55852b6c21ac8e7025 c52c6fbea2b3b446ea31123ba88ce61e 80000001")
        #expect(try sender.protectRTCP(clear) == expected)
        #expect(try receiver.unprotectRTCP(expected) == clear)
        var forged = expected
        forged[30] ^= 0x01 // inside the tag (bytes 24-39)
        #expect(throws: SRTPError.authenticationFailed) { try Self.pair().receiver.unprotectRTCP(forged) }
    }
}
