import Foundation
import OTMedia
import OTSignaling
import Testing
@testable import OTKit

/// Issue 17, acceptance (native): in a session created with `e2ee=true`, two clients with
/// the same secret exchange video and audio (≥ 95 % of frames decoded over 10 s), a third
/// with another secret gets `EncryptionSecretMismatch` (6003) once and decodes no frame;
/// after all three set a new common secret mid-session, all three decode again within
/// 2 s of media (60 encoded frames at 30 fps) of the keys being in place; the wall-clock
/// figures are printed. Embedded router, real codecs, the
/// stamped test pattern and the default audio device.
@Suite(.serialized)
struct E2EESecretAcceptanceTests {
    static let project = ProjectCredentials(apiKey: "4717", apiSecret: "0123456789abcdef0123456789abcdef01234717")

    @Test func sameSecretDecodesOtherSecretGetsMismatchNewSecretRecovers() throws {
        try AudioDeviceTestLock.run { try body() }
    }

    private func body() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let rig = try AcceptanceRig(project: Self.project, e2ee: true)
        defer { rig.stop() }
        let a = try rig.join(), b = try rig.join(), c = try rig.join(role: .subscriber)
        for participant in [a, b, c] { #expect(participant.session.lock.withLock { participant.session.state.e2ee }, "connect carries e2ee") }
        try a.session.setEncryptionSecret("correct horse battery staple")
        try b.session.setEncryptionSecret("correct horse battery staple")
        try c.session.setEncryptionSecret("another secret entirely")
        #expect(poll(20) { [a, b, c].allSatisfy { $0.session.encryptionKeys.hasKey } }, "keys derived")

        let (publisherA, streamA) = try rig.kit.publishPattern(a.session, a.recorder, width: 320, height: 180, fps: 30)
        let (publisherB, streamB) = try rig.kit.publishPattern(b.session, b.recorder, width: 320, height: 180, fps: 30)
        let (aSeesB, aRender) = try rig.subscribe(a, to: streamB)
        let (bSeesA, bRender) = try rig.subscribe(b, to: streamA)
        let (cSeesA, cRender) = try rig.subscribe(c, to: streamA)
        #expect(poll(20) { aRender.seen.count >= 60 && bRender.seen.count >= 60 }, "A and B decode each other")
        Thread.sleep(forTimeInterval: 2)

        // 10 s window: video by frame numbers, audio by frames sent and frames that verified.
        let pipelines = try [(publisherB, aSeesB), (publisherA, bSeesA)].map { publisher, subscriber in
            (try #require(publisher.lock.withLock { publisher.pipeline }), try #require(subscriber.lock.withLock { subscriber.pipeline }))
        }
        let audioBefore = pipelines.map { ($0.0.audioCounters.snapshot().frames, $0.1.decryption.framesDecrypted(.audio)) }
        let start = Date()
        Thread.sleep(forTimeInterval: 10)
        let audioAfter = pipelines.map { ($0.0.audioCounters.snapshot().frames, $0.1.decryption.framesDecrypted(.audio)) }
        for (index, render) in [aRender, bRender].enumerated() {
            let numbers = render.rendered(since: start).map(\.number)
            let share = FrameGaps.decodedShare(numbers)
            let sent = Double(audioAfter[index].0 - audioBefore[index].0), heard = Double(audioAfter[index].1 - audioBefore[index].1)
            let report = "\(index == 0 ? "A←B" : "B←A"): \(numbers.count) video frames, \(String(format: "%.2f", share * 100)) % decoded; " +
                "audio \(Int(heard)) of \(Int(sent)) frames verified"
            print("E2EE acceptance:", report)
            #expect(share >= 0.95, "video ≥ 95 %: \(report)")
            #expect(sent > 400 && heard >= 0.95 * sent, "audio ≥ 95 %: \(report)")
            #expect(render.unreadableFrames == 0, "no garbage: \(report)")
        }
        #expect(!a.recorder.calls.contains { $0.hasPrefix("subscriber didFail") } && !b.recorder.calls.contains { $0.hasPrefix("subscriber didFail") })

        // The third client: one 6003, no decoded frame, nothing rendered.
        let cPipeline = try #require(cSeesA.lock.withLock { cSeesA.pipeline })
        #expect(c.recorder.calls.filter { $0 == "subscriber didFail 6003" }.count == 1, "one mismatch report: \(c.recorder.calls)")
        #expect(c.recorder.lastErrors.last?.domain == .subscriber)
        #expect(cPipeline.decryption.framesFailed > 100, "C received frames it could not verify")
        #expect(cPipeline.decryption.framesDecrypted == 0 && cPipeline.videoCounters.snapshot().frames == 0)
        #expect(cRender.seen.isEmpty && cRender.unreadableFrames == 0)

        // All three change to a new secret mid-session.
        let renders = [aRender, bRender, cRender]
        for participant in [a, b, c] { try participant.session.setEncryptionSecret("a brand new shared secret") }
        let lastCall = Date()
        var baselines: [Int?] = [nil, nil, nil]
        var recoveredAt: Date?, keysInAt: Date?
        // Media time: frames each publisher encoded, read when the last key is in place and
        // again when every client decodes; 60 frames are 2 s of this 30 fps video, however
        // slowly a loaded machine runs it.
        let encoders = pipelines.map(\.0)
        var encodedAtKeys: [UInt64]?, encodedAtRecovery: [UInt64]?
        let sessions = [a.session, b.session, c.session]
        _ = poll(20) {
            for index in 0..<3 where baselines[index] == nil && sessions[index].encryptionKeys.generation == 2 {
                baselines[index] = renders[index].seen.count  // frames after this are under the new key
            }
            if keysInAt == nil && baselines.allSatisfy({ $0 != nil }) {
                keysInAt = Date()
                encodedAtKeys = encoders.map { $0.videoCounters.snapshot().frames }
            }
            let done = (0..<3).allSatisfy { index in baselines[index].map { renders[index].seen.count >= $0 + 3 } ?? false }
            if done {
                recoveredAt = Date()
                encodedAtRecovery = encoders.map { $0.videoCounters.snapshot().frames }
            }
            return done
        }
        let recovered = try #require(recoveredAt, "all three decode under the new secret")
        let recovery = recovered.timeIntervalSince(lastCall)
        let media = recovered.timeIntervalSince(try #require(keysInAt))
        let before = try #require(encodedAtKeys), after = try #require(encodedAtRecovery)
        let framesToRecover = zip(before, after).map { $1 - $0 }.max() ?? 0
        print("E2EE acceptance: all three decode again \(String(format: "%.2f", recovery)) s after the last setEncryptionSecret " +
              "(\(String(format: "%.2f", recovery - media)) s deriving three keys, \(String(format: "%.2f", media)) s and " +
              "\(framesToRecover) encoded frames after the last key)")
        // The 2 s claim is in media time: at most 60 frames (2 s at 30 fps) leave each
        // publisher between the last key being in place and every client decoding again.
        // Wall-clock figures are printed only (the three PBKDF2s, 600,000 rounds each, and
        // a loaded machine stretch them; docs/e2ee.md has the idle-machine figure).
        #expect(framesToRecover <= 60, "decoding resumes within 2 s of media after the keys: \(framesToRecover) frames")
        #expect(cPipeline.decryption.framesDecrypted(.video) > 0 && cRender.unreadableFrames == 0)
        #expect(c.recorder.calls.filter { $0 == "subscriber didFail 6003" }.count == 1, "no report while it recovers")
    }
}

extension AcceptanceRig {
    /// A direct (unimpaired) client.
    func join(role: Role = .publisher, sourceLocation: SourceLocation = #_sourceLocation) throws -> Participant {
        try join(impaired: false, role: role, sourceLocation: sourceLocation)
    }
}
