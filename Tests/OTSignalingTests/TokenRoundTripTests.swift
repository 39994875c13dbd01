import Testing
@testable import OTSignaling

@Suite struct TokenRoundTripTests {
    static let connectionData: [String?] = [nil, "", "plain", "name=Alice&id=42", #"{"name":"Zoë","emoji":"🎥"}"#,
                                             "a+b c%20d:e", String(repeating: "é", count: 1000)]

    @Test(arguments: TokenFormat.allCases, Role.allCases)
    func everyRoleRoundTrips(format: TokenFormat, role: Role) throws {
        let token = try OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials, role: role,
                                              expireTime: Fixtures.now + 3600, format: format, now: Fixtures.now)
        let grant = try OpenTokToken.verify(token, credentials: Fixtures.credentials, sessionID: Fixtures.sessionID,
                                            now: Fixtures.now + 1)
        #expect(grant.role == role)
        #expect(grant.format == format)
        #expect(grant.expireTime == Fixtures.now + 3600)
        #expect(grant.issuedAt == Fixtures.now)
        #expect((0...999_999).contains(grant.nonce))
        #expect(format == .t1 ? token.hasPrefix("T1==") : token.split(separator: ".").count == 3)
    }

    @Test(arguments: TokenFormat.allCases, connectionData)
    func connectionDataRoundTripsExactly(format: TokenFormat, data: String?) throws {
        let token = try OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials,
                                              connectionData: data, initialLayoutClassList: ["focus", "big"],
                                              format: format, now: Fixtures.now)
        let grant = try OpenTokToken.verify(token, credentials: Fixtures.credentials, sessionID: nil, now: Fixtures.now)
        #expect(grant.connectionData == ((data?.isEmpty ?? true) ? nil : data))
        #expect(grant.initialLayoutClassList == ["focus", "big"])
        #expect(grant.sessionID == Fixtures.sessionID)
    }

    @Test(arguments: TokenFormat.allCases)
    func defaultsAreOneDayPublisher(format: TokenFormat) throws {
        let token = try OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials,
                                              format: format, now: Fixtures.now)
        let grant = try OpenTokToken.verify(token, credentials: Fixtures.credentials, sessionID: nil, now: Fixtures.now)
        #expect(grant.role == .publisher)
        #expect(grant.expireTime - grant.issuedAt == 86_400)
        #expect(grant.connectionData == nil)
        #expect(grant.initialLayoutClassList.isEmpty)
        #expect(OpenTokToken.unverifiedAPIKey(of: token) == "12345678")
    }

    @Test(arguments: TokenFormat.allCases)
    func exactlyThirtyDaysIsAccepted(format: TokenFormat) throws {
        let token = try OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials,
                                              expireTime: Fixtures.now + 2_592_000, format: format, now: Fixtures.now)
        let grant = try OpenTokToken.verify(token, credentials: Fixtures.credentials, sessionID: nil, now: Fixtures.now)
        #expect(grant.expireTime == Fixtures.now + 2_592_000)
    }

    /// A server whose clock runs 60 s fast issues a 30-day token: still accepted.
    @Test(arguments: TokenFormat.allCases)
    func thirtyDaysFromASlightlyFastClockIsAccepted(format: TokenFormat) throws {
        let issuer = Fixtures.now + 60
        let token = try OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials,
                                              expireTime: issuer + 2_592_000, format: format, now: issuer)
        let grant = try OpenTokToken.verify(token, credentials: Fixtures.credentials, sessionID: nil, now: Fixtures.now)
        #expect(grant.expireTime == issuer + 2_592_000)
        // Issued 460 s ahead (beyond the 300 s allowance): its 30 days count from our now.
        #expect {
            try OpenTokToken.verify(try OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials,
                                                              expireTime: issuer + 2_592_000 + 400, format: format,
                                                              now: issuer + 400),
                                    credentials: Fixtures.credentials, sessionID: nil, now: Fixtures.now)
        } throws: { error in
            if case .expiryTooFar = error as? OTSignalingError { return true }
            return false
        }
    }

    @Test func noncesAreRandom() throws {
        let nonces = try (0..<20).map { _ in
            try OpenTokToken.verify(try OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials,
                                                              now: Fixtures.now),
                                    credentials: Fixtures.credentials, sessionID: nil, now: Fixtures.now).nonce
        }
        #expect(Set(nonces).count > 15)
    }
}
