import Testing
@testable import OTMedia

/// SRTP profiles and key material: lengths, RFC names, base64 as SDES carries it, redaction.
@Suite struct SRTPKeyMaterialTests {
    /// (profile, RFC name, key+salt bytes, salt bytes, RTP tag, RTCP tag)
    static let profiles: [(SRTPProfile, String, Int, Int, Int, Int)] = [
        (.aeadAES128GCM, "AEAD_AES_128_GCM", 28, 12, 16, 16),          // RFC 7714 sections 12, 14.2
        (.aesCM128HMACSHA1_80, "AES_CM_128_HMAC_SHA1_80", 30, 14, 10, 10), // RFC 4568 section 6.2.1
        (.aesCM128HMACSHA1_32, "AES_CM_128_HMAC_SHA1_32", 30, 14, 4, 10),  // SRTCP keeps 80 bits
    ]

    @Test(arguments: profiles)
    func profileConstants(_ row: (SRTPProfile, String, Int, Int, Int, Int)) {
        let (profile, name, material, salt, rtpTag, rtcpTag) = row
        #expect(profile.rfcName == name)
        #expect(SRTPProfile(rfcName: name) == profile)
        #expect(profile.keyMaterialLength == material)
        #expect(profile.masterSaltLength == salt)
        #expect(profile.rtpTagLength == rtpTag)
        #expect(profile.rtcpTagLength == rtcpTag)
        #expect(profile.rtcpTrailer == rtcpTag + 4)
        #expect(profile.rtpTrailer <= SRTPProfile.maxTrailer && profile.rtcpTrailer <= SRTPProfile.maxTrailer)
    }

    @Test func defaultIsGCMAndUnknownNamesAreNil() {
        #expect(SRTPProfile.default == .aeadAES128GCM)
        #expect(SRTPProfile(rfcName: "AES_CM_128_HMAC_SHA1_81") == nil)
        #expect(SRTPProfile(rfcName: "aead_aes_128_gcm") == nil)
    }

    /// interop.md's 30-byte key 00 01 … 1d is `inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd` for ffmpeg.
    @Test func interopKeyEncodesAsFFmpegTakesIt() throws {
        let keys = SRTPTestPackets.keys(.aesCM128HMACSHA1_80)
        #expect(keys.sdesKeyParameters == "inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd")
        let parsed = try SRTPKeyMaterial(profile: .aesCM128HMACSHA1_80, base64: "inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd")
        #expect(parsed == keys)
        #expect(parsed.masterKey == Array(0..<16))
        #expect(parsed.masterSalt == Array(16..<30))
    }

    @Test(arguments: SRTPProfile.allCases)
    func randomKeysRoundTripThroughBase64(_ profile: SRTPProfile) throws {
        let a = SRTPKeyMaterial.random(profile: profile), b = SRTPKeyMaterial.random(profile: profile)
        #expect(a != b) // 2^-224 chance of a false failure
        #expect(a.keyAndSalt.count == profile.keyMaterialLength)
        #expect(try SRTPKeyMaterial(profile: profile, base64: a.base64) == a)
        #expect(try SRTPKeyMaterial(profile: profile, base64: a.sdesKeyParameters) == a)
        // 28 bytes (GCM) encode with one '=' of padding; 30 bytes with none.
        #expect(a.base64.count == (profile.keyMaterialLength + 2) / 3 * 4)
    }

    @Test func base64MatchesRFC4648Vectors() {
        // RFC 4648 section 10.
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
        for bad in ["Zg=", "Zg=a", "Z===", "Zh==", "Zm9v!A==", "=Zm9", "Zm9vYg==Zm9v"] {
            #expect(Base64.decode(bad) == nil, "\(bad) must be rejected")
        }
    }

    @Test func wrongLengthsAreRejected() {
        // 30 bytes are AES-CM material, not GCM (28); and the other way round.
        let thirty = SRTPTestPackets.keys(.aesCM128HMACSHA1_80).base64
        let twentyEight = SRTPTestPackets.keys(.aeadAES128GCM).base64
        #expect(throws: SRTPError.self) { try SRTPKeyMaterial(profile: .aeadAES128GCM, base64: thirty) }
        #expect(throws: SRTPError.self) { try SRTPKeyMaterial(profile: .aesCM128HMACSHA1_80, base64: twentyEight) }
        #expect(throws: SRTPError.self) { try SRTPKeyMaterial(profile: .aesCM128HMACSHA1_32, base64: "inline:not base64!") }
        #expect(throws: SRTPError.self) { try SRTPKeyMaterial(profile: .aesCM128HMACSHA1_80, base64: "inline:\(thirty)|2^20|1:4") }
        #expect(throws: SRTPError.self) { try SRTPKeyMaterial(profile: .aeadAES128GCM, masterKey: [UInt8](repeating: 1, count: 15), masterSalt: [UInt8](repeating: 2, count: 12)) }
        #expect(throws: SRTPError.self) { try SRTPKeyMaterial(profile: .aeadAES128GCM, masterKey: [UInt8](repeating: 1, count: 16), masterSalt: [UInt8](repeating: 2, count: 14)) }
        #expect(throws: SRTPError.self) { try SRTPKeyMaterial(profile: .aesCM128HMACSHA1_80, keyAndSalt: []) }
    }

    @Test func descriptionsNeverShowTheKey() {
        let keys = SRTPTestPackets.keys(.aesCM128HMACSHA1_80, seed: 0x41)
        for text in [keys.description, String(reflecting: keys), "\(keys)", dumped(keys)] {
            #expect(text.contains("AES_CM_128_HMAC_SHA1_80"))
            #expect(!text.contains(keys.base64))
            #expect(!text.contains("65, 66")) // the key bytes 0x41, 0x42 as a list
            #expect(text.contains("redacted") || text.hasPrefix("▿"))
            // dump() lists stored properties one per line: the key's fields must not appear.
            #expect(!text.contains("masterKey") && !text.contains("masterSalt"), "\(text)")
        }
    }

    private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
