import Foundation
import OTNet
@testable import OTRouter
@testable import OTSignaling
import Testing

/// A REST credential is short-lived and single-use: `exp - iat` at most 5 minutes (the
/// router's `maxProjectJWTLifetimeSeconds`), each `jti` accepted once; every refusal is
/// counted in /metrics by reason.
@Suite struct ProjectJWTLimitsTests {
    var archives: String { "/v2/project/\(Fixture.project.apiKey)/archive" }

    @Test func aJWTValidForAYearIsRefusedAndCounted() throws {
        let h = try Harness()
        let yearLong = ProjectJWT.sign(credentials: Fixture.project, lifetime: 365 * 86_400)
        let response = h.http("GET", archives, auth: yearLong)
        #expect(response.status == 403)
        #expect(response.text.contains("the limit is 300 s"))
        #expect(h.service.metrics.restAuthRefused == ["lifetime_too_long": 1])
        let text = h.http("GET", "/metrics").text
        #expect(text.contains(#"otkit_rest_auth_refused_total{reason="lifetime_too_long"} 1"#))
        // The year-3000 credential of the issue, signed by hand so no default helps it.
        let year3000 = ProjectJWT.sign(credentials: Fixture.project, now: UnixTime.now(), lifetime: 32_503_680_000 - UnixTime.now())
        #expect(h.http("GET", archives, auth: year3000).status == 403)
    }

    @Test func aReplayedJTIIsRefusedAndAFreshFiveMinuteJWTWorks() throws {
        let h = try Harness()
        let jwt = ProjectJWT.sign(credentials: Fixture.project, lifetime: 300)
        #expect(h.http("GET", archives, auth: jwt).status == 200)
        let replay = h.http("GET", archives, auth: jwt)
        #expect(replay.status == 403)
        #expect(replay.text.contains("already used"))
        // A new JWT (new jti) per request, as the server SDKs send, keeps working.
        for _ in 0..<3 { #expect(h.http("GET", archives, auth: ProjectJWT.sign(credentials: Fixture.project, lifetime: 300)).status == 200) }
        #expect(h.service.metrics.restAuthRefused == ["replayed": 1])
    }

    @Test func theLifetimeLimitIsConfigurable() throws {
        var configuration = Fixture.configuration()
        configuration.maxProjectJWTLifetimeSeconds = 600  // the Python SDK's jwt_livetime = 10
        let service = RouterService(configuration: configuration, media: FakeMedia())
        defer { service.stop() }
        func status(_ lifetime: Int64) -> Int {
            service.handle(HTTPRequest(method: "GET", path: archives,
                                       headers: ["x-opentok-auth": ProjectJWT.sign(credentials: Fixture.project, lifetime: lifetime)])).status
        }
        #expect(status(600) == 200)
        #expect(status(601) == 403)
    }

    /// Numbers from the network: an `iat` of Int64.min must not trap in `exp - iat`.
    @Test func extremeClaimsAreRefusedWithoutTrapping() throws {
        let h = try Harness()
        let head = Base64URL.encode(#"{"alg":"HS256","typ":"JWT"}"#)
        let claims = Base64URL.encode(#"{"ist":"project","iat":-9223372036854775808,"exp":9223372036854775807,"iss":"12345678","jti":"x"}"#)
        let input = head + "." + claims
        let jwt = input + "." + Base64URL.encode(Crypto.hmacSHA256(key: Array(Fixture.project.apiSecret.utf8), message: Array(input.utf8)))
        #expect(h.http("GET", archives, auth: jwt).status == 401)
    }

    /// The answers for an API key the router does not serve are those of a bad signature:
    /// they do not tell which keys exist.
    @Test func refusalsDoNotRevealWhichAPIKeysAreServed() throws {
        let h = try Harness()
        let stranger = ProjectCredentials(apiKey: "555", apiSecret: "x")
        let unknown = h.http("GET", "/v2/project/555/archive", credentials: stranger)
        let badSecret = h.http("GET", archives, credentials: ProjectCredentials(apiKey: Fixture.project.apiKey, apiSecret: "wrong"))
        #expect(unknown.status == badSecret.status)
        #expect(unknown.text == badSecret.text)
        let create = h.service.handle(HTTPRequest(method: "POST", path: "/session/create",
                                                  headers: ["x-opentok-auth": ProjectJWT.sign(credentials: stranger)]))
        #expect(create.status == 403)
        for response in [unknown, badSecret, create] {
            #expect(!response.text.contains(Fixture.project.apiKey) && !response.text.contains(Fixture.other.apiKey))
        }
    }
}
