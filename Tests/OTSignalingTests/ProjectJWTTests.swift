import Testing
@testable import OTSignaling

@Suite struct ProjectJWTTests {
    @Test(arguments: [Int64(60), 180, 600])
    func roundTrips(lifetime: Int64) throws {
        let jwt = ProjectJWT.sign(credentials: Fixtures.credentials, now: Fixtures.now, lifetime: lifetime)
        let claims = try ProjectJWT.verify(jwt, credentials: Fixtures.credentials, now: Fixtures.now + lifetime - 1,
                                           maximumLifetime: max(lifetime, ProjectJWT.defaultMaximumLifetime))
        #expect(claims.apiKey == "12345678")
        #expect(claims.issuedAt == Fixtures.now)
        #expect(claims.expireTime == Fixtures.now + lifetime)
        #expect(claims.jti?.count == 32)
    }

    /// `exp - iat` above the limit (5 minutes by default) is refused with 403, whatever the clock says.
    @Test func aLongLifetimeIsRefused() {
        let jwt = ProjectJWT.sign(credentials: Fixtures.credentials, now: Fixtures.now, lifetime: 301)
        #expect(throws: OTSignalingError.lifetimeTooLong(lifetime: 301, limit: 300)) {
            try ProjectJWT.verify(jwt, credentials: Fixtures.credentials, now: Fixtures.now)
        }
        #expect(OTSignalingError.lifetimeTooLong(lifetime: 301, limit: 300).httpStatus == 403)
        #expect(throws: Never.self) {
            try ProjectJWT.verify(jwt, credentials: Fixtures.credentials, now: Fixtures.now, maximumLifetime: 301)
        }
    }

    @Test func jtisDiffer() {
        let a = ProjectJWT.sign(credentials: Fixtures.credentials, now: Fixtures.now)
        let b = ProjectJWT.sign(credentials: Fixtures.credentials, now: Fixtures.now)
        #expect(a != b)
    }

    /// The clock decides expiry: valid until exp + leeway, refused after; an iat from the
    /// future beyond the leeway is refused too.
    @Test(arguments: [(Fixtures.now + 180 + 29, true), (Fixtures.now + 180 + 30, false),
                      (Fixtures.now - 29, true), (Fixtures.now - 31, false)])
    func clockDecidesExpiry(now: Int64, accepted: Bool) {
        let jwt = ProjectJWT.sign(credentials: Fixtures.credentials, now: Fixtures.now)
        let result = Result { () throws(OTSignalingError) in try ProjectJWT.verify(jwt, credentials: Fixtures.credentials, now: now) }
        switch result {
        case .success: #expect(accepted)
        case .failure(let error):
            #expect(!accepted)
            let expected: OTSignalingError = now < Fixtures.now
                ? .notYetValid(issuedAt: Fixtures.now, now: now) : .expired(expireTime: Fixtures.now + 180, now: now)
            #expect(error == expected)
            #expect(error.httpStatus == 403)
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var header: String?
        var expected: OTSignalingError?
        var status: Int
        var testDescription: String { name }
    }

    static let claimsHead = Base64URL.encode(#"{"alg":"HS256","typ":"JWT"}"#)
    static func hs256(_ claims: String, secret: String = Fixtures.credentials.apiSecret) -> String {
        let input = claimsHead + "." + Base64URL.encode(claims)
        return input + "." + Base64URL.encode(Crypto.hmacSHA256(key: Array(secret.utf8), message: Array(input.utf8)))
    }

    static let cases: [Case] = [
        Case(name: "missing", header: nil, expected: .missingAuthentication, status: 401),
        Case(name: "empty", header: "", expected: .missingAuthentication, status: 401),
        Case(name: "garbage", header: "Bearer xyz", expected: nil, status: 401),
        Case(name: "no exp", header: hs256(#"{"ist":"project","iat":1795979364,"iss":"12345678"}"#), expected: nil, status: 401),
        Case(name: "other secret",
             header: ProjectJWT.sign(credentials: ProjectCredentials(apiKey: "12345678", apiSecret: "wrong"), now: Fixtures.now),
             expected: .badSignature, status: 403),
        Case(name: "other project", header: ProjectJWT.sign(credentials: Fixtures.otherProject, now: Fixtures.now),
             expected: .wrongAPIKey(expected: "12345678", actual: "87654321"), status: 403),
        Case(name: "ist account", header: hs256(#"{"ist":"account","iat":1795979364,"exp":1795979544,"iss":"12345678"}"#),
             expected: .notProjectToken(ist: "account"), status: 403),
        Case(name: "connection token",
             header: try! OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials, now: Fixtures.now),
             expected: .connectionTokenNotAccepted, status: 403),
    ]

    @Test(arguments: cases)
    func refused(bad: Case) {
        #expect {
            try ProjectJWT.verify(bad.header, credentials: Fixtures.credentials, now: Fixtures.now + 1)
        } throws: { error in
            guard let error = error as? OTSignalingError else { return false }
            if let expected = bad.expected, error != expected { return false }
            if bad.expected == nil, case .malformed = error {} else if bad.expected == nil { return false }
            return error.httpStatus == bad.status && error.openTokCode == 1004
        }
    }

    @Test func errorsReadWell() {
        #expect(OTSignalingError.connectionDataTooLong(count: 1001).description.contains("1000"))
        #expect(OTSignalingError.missingAuthentication.description.contains("X-OPENTOK-AUTH"))
        #expect(OTSignalingError.invalidArgument(reason: "x").openTokCode == nil)
        #expect(OTSignalingError.authorizationFailureCode == 1004)
    }
}
