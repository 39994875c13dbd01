import Foundation
import OTMedia
import OTNet
import OTSignaling
import Testing
@testable import OTKit

/// Issue 17, acceptance (REST and API surface): `e2ee=true` on `POST /session/create`
/// reaches clients at connect (and its absence does too); relayed + e2ee and always
/// archiving + e2ee are refused with OpenTok's kind of error body; archive start on an
/// e2ee session is refused; `setEncryptionSecret` with 7 or 257 characters is 6004 (both
/// call shapes) while 8 and 256 are accepted; publishing in an e2ee session without a
/// secret is 6000 on the publisher.
@Suite(.serialized)
struct E2EESessionFlagTests {
    static let project = ProjectCredentials(apiKey: "4718", apiSecret: "0123456789abcdef0123456789abcdef01234718")

    @Test func createRefusalsAndConnectFlag() throws {
        let kit = SessionTestKit(project: Self.project)
        let router = try kit.startRouter()
        defer { router.stop() }
        let rest = RouterREST(router: router, project: Self.project)

        // As the Python SDK sends them (opentok-server-sdk reference): e2ee is always present.
        let relayed = try rest.createSession("p2p.preference=enabled&archiveMode=manual&e2ee=true")
        #expect(relayed.status == 400 && relayed.sessionId == nil)
        #expect(relayed.message == "A session with end-to-end encryption must also have the routed media mode.")
        let always = try rest.createSession("p2p.preference=disabled&archiveMode=always&e2ee=true")
        #expect(always.status == 400 && always.message?.contains("end-to-end encryption") == true)
        let garbled = try rest.createSession("p2p.preference=disabled&archiveMode=manual&e2ee=yes")
        #expect(garbled.status == 400)

        let encrypted = try #require(try rest.createSession("p2p.preference=disabled&archiveMode=manual&e2ee=true").sessionId)
        let plain = try #require(try rest.createSession("p2p.preference=disabled&archiveMode=manual&e2ee=false").sessionId)
        var flags: [Bool] = []
        for sessionId in [encrypted, plain] {
            let recorder = DelegateRecorder()
            let session = try kit.makeSession(router, sessionId, recorder)
            try kit.connect(session, recorder, token: try kit.token(sessionId))
            flags.append(session.lock.withLock { session.state.e2ee })
            if sessionId == encrypted {
                // Archiving cannot record what the router cannot read.
                let archive = try rest.post("archive", ["sessionId": sessionId])
                #expect(archive.status == 409, "archive start refused: \(archive)")
                #expect((archive.body["message"] as? String)?.contains("end-to-end encryption") == true)
            } else {
                #expect(try rest.post("archive", ["sessionId": sessionId]).status == 200, "a plain session still archives")
            }
            session.disconnect()
            #expect(recorder.wait { $0.last == "didDisconnect" })
        }
        #expect(flags == [true, false], "connect tells clients whether the session is e2ee")
    }

    @Test func secretLengthsAndMissingSecret() throws {
        let kit = SessionTestKit(project: Self.project)
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try #require(try RouterREST(router: router, project: Self.project)
            .createSession("p2p.preference=disabled&e2ee=true").sessionId)
        let recorder = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, recorder)

        for secret in [String(repeating: "s", count: 7), String(repeating: "é", count: 257)] {
            #expect(throws: OTError(.invalidEncryptionSecret, "the encryption secret has \(secret.count) characters; it must have 8 to 256")) {
                try session.setEncryptionSecret(secret)
            }
            var error: OTError?
            session.setEncryptionSecret(secret, error: &error)
            #expect(error?.sessionCode == .invalidEncryptionSecret && error?.code == 6004)
        }
        #expect(session.lock.withLock { session.state.encryptionSecrets } == 0, "a refused secret changes nothing")

        // Connected, e2ee, no secret: the publisher fails with 6000.
        try kit.connect(session, recorder, token: try kit.token(sessionId))
        let settings = OTPublisherKitSettings()
        settings.videoCapture = TestPatternCapturer(width: 160, height: 120, fps: 15)
        settings.audioTrack = false
        let publisher = OTPublisherKit(delegate: recorder, settings: settings)
        try session.publish(publisher)
        #expect(recorder.wait { $0.contains("publisher didFail 6000") }, "\(recorder.calls)")
        #expect(!recorder.calls.contains { $0.hasPrefix("publisher streamCreated") })

        // 8 and 256 characters are accepted (and the secret may change again).
        var error: OTError? = OTError(OTSessionErrorCode.internalError, "not cleared")
        session.setEncryptionSecret(String(repeating: "k", count: 8), error: &error)
        #expect(error == nil)
        try session.setEncryptionSecret(String(repeating: "é", count: 256))
        #expect(session.lock.withLock { session.state.encryptionSecrets } == 2)
        #expect(poll(20) { session.encryptionKeys.hasKey }, "the key is derived off the caller's thread")
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
    }
}
