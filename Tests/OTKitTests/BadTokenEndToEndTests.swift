import Foundation
import OTNet
import OTRouter
@testable import OTSignaling
import Testing
@testable import OTKit

/// Bad tokens through `OTSession.connect` against the real router: each gets exactly
/// `didFail 1004` (OTAuthorizationFailure) and no connection, an already-connected client
/// hears nothing of it, and `/metrics` counts it under its reason.
@Suite(.serialized)
struct BadTokenEndToEndTests {
    static let project = ProjectCredentials(apiKey: "4713", apiSecret: "0123456789abcdef0123456789abcdef01234567")
    static let other = ProjectCredentials(apiKey: "4714", apiSecret: "fedcba9876543210fedcba9876543210fedcba98")

    enum BadToken: String, CaseIterable, Sendable {
        case expired, forgedSignature, otherSession, otherAPIKey, garbageText, truncatedJWT, connectionDataTooLong
    }

    /// The token and the `/metrics` reason it must be counted under.
    static func make(_ kind: BadToken, sessionId: String) throws -> (token: String, reason: String) {
        let now = UnixTime.now()
        switch kind {
        case .expired:
            return (try OpenTokToken.generate(sessionID: sessionId, credentials: project, expireTime: now - 10, now: now - 100), "expired")
        case .forgedSignature:
            let forged = ProjectCredentials(apiKey: project.apiKey, apiSecret: "ffffffffffffffffffffffffffffffffffffffff")
            return (try OpenTokToken.generate(sessionID: sessionId, credentials: forged), "bad_signature")
        case .otherSession:
            let otherSession = try OpenTokSessionID.create(apiKey: project.apiKey).rawValue
            return (try OpenTokToken.generate(sessionID: otherSession, credentials: project), "wrong_session")
        case .otherAPIKey:
            let otherSession = try OpenTokSessionID.create(apiKey: other.apiKey).rawValue
            return (try OpenTokToken.generate(sessionID: otherSession, credentials: other), "wrong_api_key")
        case .garbageText:
            return ("this is not a token", "malformed")
        case .truncatedJWT:
            let good = try OpenTokToken.generate(sessionID: sessionId, credentials: project)
            return (String(good.prefix(good.count / 2)), "malformed")
        case .connectionDataTooLong:
            // OpenTokToken.generate refuses to make such a token; sign the fields directly.
            let fields = TokenFields(sessionID: sessionId, role: "publisher", issuedAt: now, expireTime: now + 600, nonce: 1,
                                     connectionData: String(repeating: "x", count: 1001), layoutClassList: "")
            return (OpenTokToken.sign(fields, format: .jwt, credentials: project), "connection_data_too_long")
        }
    }

    private let kit = SessionTestKit(project: Self.project)

    @Test(arguments: BadToken.allCases)
    func badTokenFailsWith1004AndIsCounted(_ kind: BadToken) throws {
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project, Self.other]
        configuration.logLevel = .off
        let router = try Router(configuration: configuration)
        defer { router.stop() }
        let rest = RouterREST(router: router, project: Self.project)
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let (token, reason) = try Self.make(kind, sessionId: sessionId)
        let metricName = "otkit_bad_tokens_total{reason=\"\(reason)\"}"
        let before = try rest.metrics()
        #expect(before[metricName] != nil, "the reason is always printed")

        // An observer already in the session.
        let observer = DelegateRecorder()
        let observerSession = try kit.makeSession(router, sessionId, observer)
        try observerSession.connect(withToken: try OpenTokToken.generate(sessionID: sessionId, credentials: Self.project))
        #expect(observer.wait { $0 == ["didConnect"] })

        let recorder = DelegateRecorder()
        let bad = try kit.makeSession(router, sessionId, recorder)
        try bad.connect(withToken: token)
        #expect(recorder.wait { !$0.isEmpty })
        #expect(recorder.lastErrors.first?.domain == .session)
        #expect(recorder.lastErrors.first?.code == OTSessionErrorCode.authorizationFailure.rawValue)
        #expect(!(recorder.lastErrors.first?.message.isEmpty ?? true), "a readable message")

        // A good client joining after the refusal is the barrier: the observer hears of it
        // and of nothing before it.
        let late = DelegateRecorder()
        let lateSession = try kit.makeSession(router, sessionId, late)
        try lateSession.connect(withToken: try OpenTokToken.generate(sessionID: sessionId, credentials: Self.project))
        #expect(late.wait { $0.contains("didConnect") })
        let lateId = try #require(lateSession.connection?.connectionId)
        #expect(observer.wait { $0.count >= 2 })
        #expect(observer.calls == ["didConnect", "connectionCreated \(lateId)"])
        #expect(late.calls == ["didConnect", "connectionCreated \(try #require(observerSession.connection?.connectionId))"])

        #expect(recorder.calls == ["didFail 1004"])
        #expect(bad.sessionConnectionStatus == .failed)
        #expect(bad.connection == nil && bad.capabilities == nil && bad.streams.isEmpty)

        let after = try rest.metrics()
        #expect((after[metricName] ?? 0) - (before[metricName] ?? 0) == 1, "\(metricName)")
        let total = { (samples: [String: Double]) in samples.filter { $0.key.hasPrefix("otkit_bad_tokens_total{") }.values.reduce(0, +) }
        #expect(total(after) - total(before) == 1, "counted once, under one reason")
        #expect(after["otkit_connections"] == 2)

        observerSession.disconnect()
        lateSession.disconnect()
        #expect(observer.wait { $0.last == "didDisconnect" })
        #expect(late.wait { $0.last == "didDisconnect" })
    }
}
