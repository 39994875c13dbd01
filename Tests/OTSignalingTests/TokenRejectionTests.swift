import Testing
@testable import OTSignaling

/// Each bad token is refused with its own error, and every refusal is OpenTok 1004.
@Suite struct TokenRejectionTests {
    static let good = TokenFields(sessionID: Fixtures.sessionID, role: "publisher", issuedAt: Fixtures.now,
                                  expireTime: Fixtures.now + 3600, nonce: 7, connectionData: "hi", layoutClassList: "")

    static func signed(_ format: TokenFormat, _ edit: (inout TokenFields) -> Void = { _ in },
                       credentials: ProjectCredentials = Fixtures.credentials) -> String {
        var fields = good
        edit(&fields)
        return OpenTokToken.sign(fields, format: format, credentials: credentials)
    }

    /// Replaces the last character of the signature part with a different one.
    static func forge(_ token: String) -> String {
        if token.hasPrefix("T1==") {
            var text = String(decoding: Base64URL.decodeStandard(String(token.dropFirst(4)))!, as: UTF8.self)
            let sigEnd = text.firstIndex(of: ":")!
            let last = text.index(before: sigEnd)
            text.replaceSubrange(last...last, with: text[last] == "0" ? "1" : "0")
            return "T1==" + Base64URL.encodeStandard(Array(text.utf8))
        }
        var parts = token.split(separator: ".").map(String.init)
        var signature = Base64URL.decode(parts[2])!
        signature[0] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        return parts.joined(separator: ".")
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var token: @Sendable (TokenFormat) -> String
        var expectedSession: String? = Fixtures.sessionID
        var now: Int64 = Fixtures.now + 10
        var check: @Sendable (OTSignalingError) -> Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "expired", token: { signed($0) }, now: Fixtures.now + 3600,
             check: { $0 == .expired(expireTime: Fixtures.now + 3600, now: Fixtures.now + 3600) }),
        Case(name: "forged signature", token: { forge(signed($0)) }, check: { $0 == .badSignature }),
        Case(name: "signed with another secret",
             token: { signed($0, credentials: ProjectCredentials(apiKey: "12345678", apiSecret: "not-the-secret")) },
             check: { $0 == .badSignature }),
        Case(name: "other session", token: { signed($0) }, expectedSession: try! Fixtures.session(random: "other"),
             check: { if case .wrongSession(_, Fixtures.sessionID) = $0 { return true } else { return false } }),
        Case(name: "other API key", token: { format in
                 signed(format, { $0.sessionID = try! Fixtures.session(for: Fixtures.otherProject) }, credentials: Fixtures.otherProject)
             }, expectedSession: nil,
             check: { $0 == .wrongAPIKey(expected: "12345678", actual: "87654321") }),
        Case(name: "our key, session of another key", token: { format in
                 signed(format, { $0.sessionID = try! Fixtures.session(for: Fixtures.otherProject) })
             }, expectedSession: nil,
             check: { $0 == .wrongAPIKey(expected: "12345678", actual: "87654321") }),
        Case(name: "connection data 1001 characters",
             token: { signed($0, { $0.connectionData = String(repeating: "é", count: 1001) }) },
             check: { $0 == .connectionDataTooLong(count: 1001) }),
        Case(name: "expiry beyond 30 days",
             token: { signed($0, { $0.expireTime = Fixtures.now + 2_592_001 }) },
             check: { $0 == .expiryTooFar(expireTime: Fixtures.now + 2_592_001, limit: Fixtures.now + 2_592_000) }),
        Case(name: "unknown role", token: { signed($0, { $0.role = "admin" }) }, check: { $0 == .unknownRole("admin") }),
        Case(name: "layout list 1001 characters",
             token: { signed($0, { $0.layoutClassList = String(repeating: "c", count: 1001) }) },
             check: { $0 == .layoutClassListTooLong(count: 1001) }),
        Case(name: "malformed session id inside", token: { signed($0, { $0.sessionID = "not-a-session" }) }, expectedSession: nil,
             check: { if case .malformed = $0 { return true } else { return false } }),
    ]

    @Test(arguments: TokenFormat.allCases, cases)
    func refused(format: TokenFormat, bad: Case) {
        let token = bad.token(format)
        #expect {
            try OpenTokToken.verify(token, credentials: Fixtures.credentials, sessionID: bad.expectedSession, now: bad.now)
        } throws: { error in
            guard let error = error as? OTSignalingError else { return false }
            return bad.check(error) && error.openTokCode == 1004
        }
    }

    static let malformed: [String] = [
        "", "T1==", "T1==!!!!", "T1==" + Base64URL.encodeStandard(Array("no colon here".utf8)),
        "T1==" + Base64URL.encodeStandard(Array("partner_id=12345678:session_id=x".utf8)),
        "T1==" + Base64URL.encodeStandard(Array("partner_id=12345678&sig=zz:session_id=x".utf8)),
        "a.b", "a.b.c.d", "eyJhbGciOiJub25lIn0.e30.",
        Base64URL.encode(#"{"alg":"none","typ":"JWT"}"#) + "." + Base64URL.encode(#"{"iss":"12345678"}"#) + ".AAAA",
        Base64URL.encode(#"{"alg":"HS256"}"#) + "." + Base64URL.encode(#"{"iss":12345678}"#) + ".AAAA",
        Base64URL.encode(#"{"alg":"HS256"}"#) + "." + Base64URL.encode("not json") + ".AAAA",
    ]

    @Test(arguments: malformed)
    func malformedIsMalformed(token: String) {
        #expect {
            try OpenTokToken.verify(token, credentials: Fixtures.credentials, sessionID: nil, now: Fixtures.now)
        } throws: { error in
            guard case .malformed = error as? OTSignalingError else { return false }
            return true
        }
    }

    /// A T1 whose data is missing a field, and one that repeats a field, both correctly signed.
    @Test(arguments: ["session_id=\(Fixtures.sessionID)&create_time=1&expire_time=2&role=publisher",
                      "session_id=\(Fixtures.sessionID)&create_time=1&expire_time=2&role=publisher&nonce=1&role=moderator"])
    func signedButIncompleteT1IsMalformed(data: String) {
        let sig = Crypto.hex(Crypto.hmacSHA1(key: Array(Fixtures.credentials.apiSecret.utf8), message: Array(data.utf8)))
        let token = "T1==" + Base64URL.encodeStandard(Array("partner_id=12345678&sig=\(sig):\(data)".utf8))
        // Malformed, not a signature failure: the signature is right, the data is not.
        #expect {
            try OpenTokToken.verify(token, credentials: Fixtures.credentials, sessionID: nil, now: 0)
        } throws: { error in
            if case .malformed = error as? OTSignalingError { return true }
            return false
        }
    }

    /// A project JWT (REST credential) is not a connection token.
    @Test func projectJWTIsNotAConnectionToken() {
        let jwt = ProjectJWT.sign(credentials: Fixtures.credentials, now: Fixtures.now)
        #expect {
            try OpenTokToken.verify(jwt, credentials: Fixtures.credentials, sessionID: nil, now: Fixtures.now)
        } throws: { error in
            guard case .malformed = error as? OTSignalingError else { return false }
            return true
        }
    }
}

/// The generator refuses what the Python SDK refuses, with the same errors the verifier uses.
@Suite struct TokenGenerationChecksTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var sessionID = Fixtures.sessionID
        var expireTime: Int64? = nil
        var data: String? = nil
        var layout: [String] = []
        var expected: OTSignalingError
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "empty session", sessionID: "", expected: .invalidArgument(reason: "the session id is empty")),
        Case(name: "past expiry", expireTime: Fixtures.now - 1, expected: .expired(expireTime: Fixtures.now - 1, now: Fixtures.now)),
        Case(name: "31 days", expireTime: Fixtures.now + 2_592_001,
             expected: .expiryTooFar(expireTime: Fixtures.now + 2_592_001, limit: Fixtures.now + 2_592_000)),
        Case(name: "data 1001", data: String(repeating: "x", count: 1001), expected: .connectionDataTooLong(count: 1001)),
        Case(name: "layout 1001", layout: [String(repeating: "a", count: 500), String(repeating: "b", count: 500)],
             expected: .layoutClassListTooLong(count: 1001)),
        Case(name: "other key's session", sessionID: "1_MX44NzY1NDMyMX5-MTcwMDAwMDAwMDAwMH5yfg",
             expected: .wrongAPIKey(expected: "12345678", actual: "87654321")),
    ]

    @Test(arguments: TokenFormat.allCases, cases)
    func refusesToGenerate(format: TokenFormat, bad: Case) {
        #expect(throws: bad.expected) {
            try OpenTokToken.generate(sessionID: bad.sessionID, credentials: Fixtures.credentials, expireTime: bad.expireTime,
                                      connectionData: bad.data, initialLayoutClassList: bad.layout, format: format,
                                      now: Fixtures.now)
        }
    }
}
