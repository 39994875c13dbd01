import Testing
@testable import OTSignaling

/// Byte-exact vectors: tokens and a project JWT that the opentok 3.15.0 Python SDK produced
/// (opentok-server-sdk.md §2, §5), regenerated from the same inputs.
@Suite struct ReferenceVectorTests {
    static let t1 = "T1==cGFydG5lcl9pZD0xMjM0NTY3OCZzaWc9YzdiODA5YjllZDAyYzI1MzRmYmE1ODEwMTYyZDJlOGIxYjBmNWRjMTpzZXNzaW9uX2lkPTFfTVg0eE1qTTBOVFkzT0g1LU1UY3dNREF3TURBd01EQXdNSDR3TGpFeU16UTFObjQmY3JlYXRlX3RpbWU9MTc5NTk3OTM2NCZleHBpcmVfdGltZT0xNzk1OTgyOTY0JnJvbGU9bW9kZXJhdG9yJm5vbmNlPTUzODAzNSZpbml0aWFsX2xheW91dF9jbGFzc19saXN0PWZvY3VzJmNvbm5lY3Rpb25fZGF0YT0lN0IlMjJuYW1lJTIyJTNBJTIyQWxpY2UlMjIlN0Q="
    static let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzZXNzaW9uX2lkIjoiMV9NWDR4TWpNME5UWTNPSDUtTVRjd01EQXdNREF3TURBd01INHdMakV5TXpRMU5uNCIsInJvbGUiOiJtb2RlcmF0b3IiLCJpYXQiOjE3OTU5NzkzNjQsImV4cCI6MTc5NTk4Mjk2NCwic2NvcGUiOiJzZXNzaW9uLmNvbm5lY3QiLCJpbml0aWFsX2xheW91dF9jbGFzc19saXN0IjoiZm9jdXMiLCJjb25uZWN0aW9uX2RhdGEiOiJ7XCJuYW1lXCI6XCJBbGljZVwifSIsImlzcyI6IjEyMzQ1Njc4IiwiaXN0IjoicHJvamVjdCIsIm5vbmNlIjo3NjczODd9.E-a_Emfrc01-yUVsHHWLHTFGIVVtRjZ4kD1vcvNYGfg"
    static let projectJWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3QiOiJwcm9qZWN0IiwiaWF0IjoxNzk1OTc5MjYxLCJleHAiOjE3OTU5Nzk0NDEsImlzcyI6IjEyMzQ1Njc4IiwianRpIjoiMC4zODcyMzI4NjEwODgwMzQyMyJ9.rSe-Lfn9upXOk2AOYWD2do6X3QtVgi9payYzo1qKQdw"

    static func generate(_ format: TokenFormat, nonce: Int64) throws -> String {
        try OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials, role: .moderator,
                                  expireTime: 1_795_982_964, connectionData: #"{"name":"Alice"}"#,
                                  initialLayoutClassList: ["focus"], format: format, now: Fixtures.now, nonce: nonce)
    }

    @Test func t1TokenMatchesTheSDKByteForByte() throws {
        #expect(try Self.generate(.t1, nonce: 538_035) == Self.t1)
    }

    @Test func jwtTokenMatchesTheSDKByteForByte() throws {
        #expect(try Self.generate(.jwt, nonce: 767_387) == Self.jwt)
    }

    @Test func projectJWTMatchesTheSDKByteForByte() {
        let made = ProjectJWT.sign(credentials: Fixtures.credentials, now: 1_795_979_261, jti: "0.38723286108803423")
        #expect(made == Self.projectJWT)
    }

    @Test(arguments: [(t1, TokenFormat.t1, Int64(538_035)), (jwt, .jwt, 767_387)])
    func sdkTokensVerify(token: String, format: TokenFormat, nonce: Int64) throws {
        let grant = try OpenTokToken.verify(token, credentials: Fixtures.credentials, sessionID: Fixtures.sessionID,
                                            now: Fixtures.now + 60)
        #expect(grant == VerifiedToken(format: format, apiKey: "12345678", sessionID: Fixtures.sessionID, role: .moderator,
                                       issuedAt: 1_795_979_364, expireTime: 1_795_982_964, nonce: nonce,
                                       connectionData: #"{"name":"Alice"}"#, initialLayoutClassList: ["focus"]))
    }

    @Test func sdkProjectJWTVerifies() throws {
        let claims = try ProjectJWT.verify(Self.projectJWT, credentials: Fixtures.credentials, now: 1_795_979_300)
        #expect(claims == ProjectJWT.Claims(apiKey: "12345678", issuedAt: 1_795_979_261, expireTime: 1_795_979_441,
                                            jti: "0.38723286108803423"))
    }

    /// The T1 defaults-only example: an empty layout list is still present, no connection data.
    @Test func t1DefaultsOmitConnectionDataButKeepEmptyLayout() throws {
        let token = try OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials,
                                              format: .t1, now: 1_795_979_285, nonce: 231_886)
        let decoded = try #require(Base64URL.decodeStandard(String(token.dropFirst(4))))
        #expect(String(decoding: decoded, as: UTF8.self) ==
            "partner_id=12345678&sig=32e174359dc19d26a3759bf7b2f3150fbf8887ad:session_id=\(Fixtures.sessionID)"
            + "&create_time=1795979285&expire_time=1796065685&role=publisher&nonce=231886&initial_layout_class_list=")
    }
}
