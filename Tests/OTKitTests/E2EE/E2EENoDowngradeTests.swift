import Foundation
import OTSignaling
import Testing
@testable import OTKit

/// Issue 17, no downgrade by the router: clients that set a secret seal their media and
/// accept only sealed frames even where the router calls the session plain (a session
/// created without e2ee stands for a restarted or hostile router that re-adopted it).
/// A publisher with a secret: what the router forwards opens under the secret and holds
/// no plaintext (`RawEdgeSubscriber`, `ForwardedMediaCheck`), and a subscriber with the
/// secret decodes it. A publisher without a secret sends plain media: a subscriber with a
/// secret drops every frame, reports 6003 once and renders nothing.
@Suite(.serialized)
struct E2EENoDowngradeTests {
    static let project = ProjectCredentials(apiKey: "4723", apiSecret: "0123456789abcdef0123456789abcdef01234723")
    static let secret = "the router says plain"

    @Test func aSecretSealsMediaAndRequiresSealedFramesInASessionTheRouterCallsPlain() throws {
        try AudioDeviceTestLock.run { try body() }
    }

    private func body() throws {
        let device = ToneLoopDevice(frequency: 440)
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        let rig = try AcceptanceRig(project: Self.project, e2ee: false)
        defer { rig.stop() }
        let a = try rig.join(impaired: false), b = try rig.join(impaired: false)
        for participant in [a, b] { try participant.session.setEncryptionSecret(Self.secret) }
        #expect(poll(20) { a.session.encryptionKeys.hasKey && b.session.encryptionKeys.hasKey })

        // A publishes with its secret: sealed on the wire, B (same secret) decodes it.
        let (_, streamA) = try rig.kit.publishPattern(a.session, a.recorder, width: 320, height: 180, fps: 30)
        let raw = try RawEdgeSubscriber(router: rig.router, kit: rig.kit, sessionId: rig.sessionId, streamId: streamA)
        defer { raw.close() }
        let check = try ForwardedMediaCheck(try raw.collect(seconds: 4), secret: Self.secret, sessionId: rig.sessionId)
        print("E2EE no downgrade:", check)
        #expect(check.videoFrames >= 15 && check.audioPackets >= 50, "enough was forwarded: \(check)")
        #expect(check.videoOpened == check.videoFrames && check.audioOpened == check.audioPackets, "every frame is sealed: \(check)")
        #expect(check.videoDecoded >= 10 && check.videoDecodeErrors == 0 && check.audioDecoded == check.audioPackets, "\(check)")
        #expect(check.videoProbes >= 10 && check.videoProbesFound == 0 && check.audioProbesFound == 0, "no plaintext: \(check)")
        let (_, bRender) = try rig.subscribe(b, to: streamA)
        #expect(poll(20) { bRender.seen.count >= 30 }, "B opens and decodes A")

        // D publishes without a secret (plain media): B, holding a secret, refuses it.
        let d = try rig.join(impaired: false)
        let (_, streamD) = try rig.kit.publishPattern(d.session, d.recorder, width: 320, height: 180, fps: 30)
        let (bSeesD, dRender) = try rig.subscribe(b, to: streamD)
        #expect(poll(20) { bSeesD.lock.withLock { bSeesD.pipeline } != nil }, "B's subscriber to D connects")
        let pipeline = try #require(bSeesD.lock.withLock { bSeesD.pipeline })
        #expect(poll(20) { pipeline.decryption.framesFailed > 50 }, "B received D's plain frames")
        #expect(b.recorder.wait { $0.contains("subscriber didFail 6003") }, "\(b.recorder.calls)")
        #expect(b.recorder.calls.filter { $0 == "subscriber didFail 6003" }.count == 1, "one mismatch report: \(b.recorder.calls)")
        #expect(pipeline.decryption.framesDecrypted == 0 && pipeline.videoCounters.snapshot().frames == 0)
        #expect(dRender.seen.isEmpty && dRender.unreadableFrames == 0, "nothing of D's plain media is rendered")
    }
}
