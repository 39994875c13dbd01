import Testing
@testable import OTMedia

/// RFC 9605 §4.4.2's key schedule against Appendix C.4 (AES_128_GCM_SHA256_128), and
/// the base key from a secret.
struct SFrameKeyScheduleTests {
    typealias V = RFC9605AES128GCMVector

    /// Labels, sframe_secret, sframe_key and sframe_salt equal the RFC's bytes.
    @Test func rfc9605KeyScheduleVector() throws {
        #expect(SFrameCipherSuite.aes128GCMSHA256.rawValue == 0x0004)
        #expect(SFrameTest.hex(SFrameKeySchedule.keyLabel(keyID: V.kid, suite: .aes128GCMSHA256)) == V.sframeKeyLabel)
        #expect(SFrameTest.hex(SFrameKeySchedule.saltLabel(keyID: V.kid, suite: .aes128GCMSHA256)) == V.sframeSaltLabel)
        let schedule = try SFrameKeySchedule(baseKey: SFrameTest.bytes(V.baseKey), keyID: V.kid)
        #expect(SFrameTest.hex(schedule.secret) == V.sframeSecret)
        #expect(SFrameTest.hex(schedule.key) == V.sframeKey)
        #expect(SFrameTest.hex(schedule.salt) == V.sframeSalt)
    }

    /// Another KID under the same base key gets another key and salt (what keeps senders
    /// sharing a secret apart).
    @Test func keyIDsSeparateKeys() throws {
        let base = SFrameTest.bytes(V.baseKey)
        let a = try SFrameKeySchedule(baseKey: base, keyID: 1), b = try SFrameKeySchedule(baseKey: base, keyID: 2)
        #expect(a.secret == b.secret)
        #expect(a.key != b.key)
        #expect(a.salt != b.salt)
    }

    /// The base key of a secret at the documented 600,000 rounds, pinned (computed
    /// independently with Python's hashlib.pbkdf2_hmac): what a browser client must match.
    @Test func baseKeyFromSecretIsPinned() throws {
        #expect(SFrameBaseKey.iterations == 600_000)
        let key = try SFrameBaseKey(secret: "correct horse battery", sessionID: "1_MX4xMjM0NX4")
        #expect(SFrameTest.hex(key.bytes) == PinnedBaseKey.hex)
        #expect(SFrameTest.hex(SFrameBaseKey.salt(sessionID: "1_s")) == SFrameTest.hex(Array("OTKit SFrame 1.0 base key 1_s".utf8)))
    }

    /// The secret and the session both change the key.
    @Test func secretAndSessionBothMatter() throws {
        let a = try SFrameTest.key("secret-one", session: "s1")
        #expect(try SFrameTest.key("secret-two", session: "s1").bytes != a.bytes)
        #expect(try SFrameTest.key("secret-one", session: "s2").bytes != a.bytes)
        #expect(try SFrameTest.key("secret-one", session: "s1").bytes == a.bytes)
        #expect(a.bytes.count == 32)
    }

    /// 8 and 256 characters are accepted, 7 and 257 are 6004; counted in Characters.
    @Test func secretLengthBounds() throws {
        for length in [8, 256] { _ = try SFrameBaseKey(secret: String(repeating: "x", count: length), sessionID: "s", iterations: 1) }
        _ = try SFrameBaseKey(secret: String(repeating: "é", count: 8), sessionID: "s", iterations: 1)
        for length in [0, 7, 257] {
            let error = SFrameTest.error { () throws in
                try SFrameBaseKey(secret: String(repeating: "x", count: length), sessionID: "s", iterations: 1)
            }
            #expect(error == .invalidSecret(length: length))
            #expect(error?.openTokCode == 6004)
        }
    }

    /// Raw base keys: 1–1024 bytes.
    @Test func rawBaseKeyBounds() {
        #expect(SFrameTest.error { () throws in try SFrameBaseKey(bytes: []) } == .invalidBaseKey(length: 0))
        #expect(SFrameTest.error { () throws in try SFrameBaseKey(bytes: [UInt8](repeating: 1, count: 1025)) } == .invalidBaseKey(length: 1025))
        #expect(SFrameTest.error { () throws in try SFrameBaseKey(bytes: [UInt8](repeating: 1, count: 1024)) } == nil)
    }
}

/// PBKDF2-HMAC-SHA256("correct horse battery", "OTKit SFrame 1.0 base key 1_MX4xMjM0NX4", 600000, 32).
enum PinnedBaseKey {
    static let hex = "7f7e85f38bb23ec9d6ec9fbaf442e021177f87a90092b7b029e51991a6e26fa5"
}
