import Foundation
@testable import OTRouter
@testable import OTSignaling
import Testing

/// Token numbers at the edges of `Int64`, correctly signed (a careless server SDK can
/// sign anything): verification and the router's resume path refuse them with 1004
/// instead of trapping. A resuming connect with an expired token is verified again one
/// second before its expiry, which for `Int64.min` used to overflow.
@Suite struct SignalingTokenNumberTests {
    /// A T1 token over `data`, signed with the project's secret.
    static func t1(_ data: String) -> String {
        let signature = Crypto.hex(Crypto.hmacSHA1(key: Array(Fixture.project.apiSecret.utf8), message: Array(data.utf8)))
        return "T1==" + Base64URL.encodeStandard(Array("partner_id=\(Fixture.project.apiKey)&sig=\(signature):\(data)".utf8))
    }

    static let edges: [(created: Int64, expires: Int64)] = [
        (.min, .min), (0, .min), (.max, .min), (.min, .max), (.max, .max), (0, .max),
    ]

    @Test(arguments: edges)
    func resumingWithTokenNumbersAtTheEdgesIsRefused(_ created: Int64, _ expires: Int64) throws {
        let harness = try Harness()
        let token = Self.t1("session_id=\(harness.sessionId)&create_time=\(created)&expire_time=\(expires)&role=publisher&nonce=\(Int64.min)")
        #expect(throws: OTSignalingError.self) {
            try OpenTokToken.verify(token, credentials: Fixture.project, sessionID: harness.sessionId)
        }
        for resume in [nil, "gone-connection"] {
            let peer = harness.open()
            let reply = harness.request(peer, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token,
                                                                      resumeConnectionId: resume, resumeSecret: "s")))
            guard case .error(let error)? = reply else { Issue.record("accepted: \(String(describing: reply))"); continue }
            #expect(error.code == 1004, "created \(created), expires \(expires), resume \(resume ?? "-")")
        }
        // The router still takes a good client.
        _ = try harness.join()
    }
}
