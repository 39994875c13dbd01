import Foundation
import OTSignaling
import Testing
@testable import OTKit

/// Issue 17, no downgrade: whether an `OTSession` seals is sticky. Once its router called
/// the session e2ee, a later connect whose reply says plain (a restarted router that
/// re-adopted the id) still hands pipelines the key slot; once a secret is set, a session
/// the router calls plain seals too. The router's flag only decides the 6000 refusal.
@Suite(.serialized)
struct E2EESealingStateTests {
    private func connect(_ session: OTSession, _ recorder: DelegateRecorder) throws {
        try session.connect(withToken: "T1==t")
        #expect(recorder.wait { $0.filter { $0 == "didConnect" }.count >= 1 && $0.last != "didDisconnect" })
    }

    private func scriptedSession(_ router: ScriptedRouter, _ recorder: DelegateRecorder) throws -> OTSession {
        let settings = OTSessionSettings()
        settings.transportFactory = router.factory()
        let session = try #require(OTSession(apiKey: "123", sessionId: "1_s", delegate: recorder, settings: settings))
        session.apiQueue = recorder.queue
        return session
    }

    @Test func aSessionOnceAnnouncedE2EEStillSealsAfterAReconnectThatSaysPlain() throws {
        let router = ScriptedRouter()
        router.e2ee = true
        let recorder = DelegateRecorder()
        let session = try scriptedSession(router, recorder)
        try connect(session, recorder)
        #expect(session.endToEndKeySlot != nil && session.missingEncryptionSecret() != nil, "e2ee: sealed, and 6000 without a secret")
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })

        router.e2ee = false  // the restarted router re-adopted the session as plain
        try session.connect(withToken: "T1==t")
        #expect(recorder.wait { $0.filter { $0 == "didConnect" }.count == 2 })
        #expect(session.endToEndKeySlot != nil, "still sealed: the plain reply does not turn sealing off")
        #expect(session.missingEncryptionSecret() == nil, "the flag alone decides the 6000 refusal")
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
    }

    @Test func aSecretSealsInASessionTheRouterCallsPlainAndAcrossReconnects() throws {
        let router = ScriptedRouter()
        let recorder = DelegateRecorder()
        let session = try scriptedSession(router, recorder)
        try connect(session, recorder)
        #expect(session.endToEndKeySlot == nil, "plain session, no secret: media as encoded")
        try session.setEncryptionSecret("a secret of our own")
        #expect(session.endToEndKeySlot != nil, "a secret seals, whatever the router says")
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
        try session.connect(withToken: "T1==t")
        #expect(recorder.wait { $0.filter { $0 == "didConnect" }.count == 2 })
        #expect(session.endToEndKeySlot != nil, "and keeps sealing after a new connect")
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
    }
}
