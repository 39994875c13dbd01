import Testing
@testable import OTSignaling

@Suite struct SessionIDTests {
    @Test func createFollowsTheRecipe() throws {
        let id = try OpenTokSessionID.create(apiKey: "12345678", location: "", createTimeMilliseconds: 1_700_000_000_000,
                                             random: "0.123456")
        #expect(id.rawValue == "1_MX4xMjM0NTY3OH5-MTcwMDAwMDAwMDAwMH4wLjEyMzQ1Nn4")
        #expect(id.fields == ["1", "12345678", "", "1700000000000", "0.123456", ""])
    }

    @Test func createdIDsAreURLSafeUniqueAndParse() throws {
        var seen = Set<String>()
        for _ in 0..<50 {
            let id = try OpenTokSessionID.create(apiKey: "12345678", location: "10.1.2.3")
            #expect(id.rawValue.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            #expect(id.rawValue.count <= OpenTokSessionID.maximumLength)
            let parsed = try OpenTokSessionID(parsing: id.rawValue)
            #expect(parsed.apiKey == "12345678")
            #expect(parsed.location == "10.1.2.3")
            seen.insert(id.rawValue)
        }
        #expect(seen.count == 50)
    }

    /// Accepted rows of the reference table (§6) plus the fixture other server SDKs use.
    @Test(arguments: [
        ("1_MX4xMjM0NTY3OH5-MTcwMDAwMDAwMDAwMH4wLjEyMzQ1Nn4", "12345678", "1700000000000"),
        ("2_MX4xMjM0NTY3OH5-MTcwMDAwMDAwMDAwMH4wLjEyMzQ1Nn4", "12345678", "1700000000000"),
        ("1_MX4xMjM0NTY3OH5-eH4=", "12345678", "x"),
        ("1_MX4xMjM0NTZ-flNhdCBNYXIgMTUgMTQ6NDI6MjMgUERUIDIwMTR-MC40OTAxMzAyNX4", "123456", "Sat Mar 15 14:42:23 PDT 2014"),
    ])
    func parsesSDKStyleIDs(text: String, apiKey: String, createTime: String) throws {
        let id = try OpenTokSessionID(parsing: text)
        #expect(id.apiKey == apiKey)
        #expect(id.createTime == createTime)
        #expect(id.belongs(toAPIKey: apiKey))
        #expect(!id.belongs(toAPIKey: apiKey + "9"))
        #expect(!id.belongs(toAPIKey: ""))
    }

    @Test(arguments: [
        "", "MX4xMjM0NTY3OH5-MTcwMDAwMDAwMDAwMH4wLjEyMzQ1Nn4", "zzMX4xMjM0NTY3OH5-MTcwMDAwMDAwMDAwMH4wLjEyMzQ1Nn4",
        "1_AAAAA", "c8a5b0f2-1234-4cde-9f00-aaaaaaaaaaaa", "1___5-MTIzNDU2Nzh-", "1_MX4xMjM0NTY3OH5-MTcw.DAwMDAwMH4",
        "1_fjEyMzQ1Njc4X", "1_MTIzNDU2Nzg", "1_" + String(repeating: "A", count: 256),
    ])
    func rejectsMalformed(text: String) {
        #expect {
            try OpenTokSessionID(parsing: text)
        } throws: { error in
            guard case .malformed = error as? OTSignalingError else { return false }
            return true
        }
    }

    @Test(arguments: [("", ""), ("12~34", ""), ("12345678", "a~b")])
    func createRefusesFieldsThatBreakTheFormat(apiKey: String, location: String) {
        #expect {
            try OpenTokSessionID.create(apiKey: apiKey, location: location)
        } throws: { error in
            guard case .invalidArgument = error as? OTSignalingError else { return false }
            return true
        }
    }
}

@Suite struct Base64URLTests {
    @Test(arguments: [[UInt8](), [0], [0xFB, 0xFF], [0xFB, 0xFF, 0xBF], Array("hello world!?".utf8)])
    func roundTrips(bytes: [UInt8]) throws {
        let url = Base64URL.encode(bytes)
        #expect(!url.contains("=") && !url.contains("+") && !url.contains("/"))
        #expect(Base64URL.decode(url) == bytes)
        #expect(Base64URL.decodeStandard(Base64URL.encodeStandard(bytes)) == bytes)
    }

    @Test(arguments: ["A", "AB=C", "AB===", "ABC==", "A!BC", "AAAA="])
    func rejectsInvalid(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    /// One spelling per byte string: "QQ" is [65]; "QR" has non-zero unused bits and would
    /// decode to the same byte in a lenient decoder, so a JWT signature could be
    /// re-spelled into a second token that verifies.
    @Test func nonCanonicalSpellingsAndTheOtherAlphabetAreRefused() throws {
        #expect(Base64URL.decode("QQ") == [65])
        #expect(Base64URL.decode("QR") == nil)
        #expect(Base64URL.decodeStandard("QQ==") == [65])
        #expect(Base64URL.decodeStandard("QR==") == nil)
        #expect(Base64URL.decode("-_8") != nil && Base64URL.decode("+/8") == nil, "base64url only")
        #expect(Base64URL.decodeStandard("+/8=") != nil && Base64URL.decodeStandard("-_8=") == nil, "standard only")

        // A real token with its signature's last character bumped within the unused bits.
        let credentials = ProjectCredentials(apiKey: "123456", apiSecret: "secret")
        let jwt = ProjectJWT.sign(credentials: credentials, now: 1_700_000_000)
        _ = try ProjectJWT.verify(jwt, credentials: credentials, now: 1_700_000_000)
        let signature = jwt.split(separator: ".")[2]
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = try #require(alphabet.firstIndex(of: signature.last!))
        // 32 signature bytes → 43 characters; the last carries 2 unused bits.
        let respelled = String(jwt.dropLast()) + String(alphabet[last ^ 1])
        #expect(throws: OTSignalingError.self) { try ProjectJWT.verify(respelled, credentials: credentials, now: 1_700_000_000) }
    }
}
