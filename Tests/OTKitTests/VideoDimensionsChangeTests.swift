import Foundation
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// `OTStream.videoDimensions` follows the publisher's encoded size (issue 15, point 7):
/// when the publisher's quality adaptation changes its resolution, its stats tick
/// announces the new size (`streamChanged` with `videoWidth`/`videoHeight`); the router
/// keeps it and forwards it, so subscribers' streams and later joiners see it.
@Suite(.serialized)
struct VideoDimensionsChangeTests {
    static let project = ProjectCredentials(apiKey: "4754", apiSecret: "d1e2f3a4b5c60718293a4b5c6d7e8f9012345678")
    private let kit = SessionTestKit(project: Self.project)

    @Test func newEncodedSizeReachesSubscribersAndLateJoiners() throws { try AudioDeviceTestLock.run { try body() } }

    private func body() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let (publisher, streamId) = try kit.publishPattern(sessionA, a, width: 320, height: 240, fps: 15)

        let b = DelegateRecorder()
        let sessionB = try kit.joinSeeing(streamId, router, sessionId, b)
        let seen = try #require(sessionB.streams[streamId])
        #expect(seen.videoDimensions == OTVideoDimensions(width: 320, height: 240))

        // The stats tick found the encoder at a lower rung of its ladder.
        let smaller = OTVideoDimensions(width: 160, height: 120)
        sessionA.work.async { publisher.announceVideoSize(smaller, in: sessionA) }
        #expect(b.wait { _ in seen.videoDimensions == smaller }, "B's stream follows: \(seen.videoDimensions)")
        #expect(publisher.stream?.videoDimensions == smaller)

        // A client joining later learns the current size.
        let c = DelegateRecorder()
        let sessionC = try kit.joinSeeing(streamId, router, sessionId, c)
        #expect(sessionC.streams[streamId]?.videoDimensions == smaller)

        // The real tick: the encoder still runs at 320x240, so the next stats tick puts it back.
        #expect(b.wait { _ in seen.videoDimensions == OTVideoDimensions(width: 320, height: 240) }, "\(seen.videoDimensions)")

        for session in [sessionA, sessionB, sessionC] { session.disconnect() }
        #expect(a.wait { $0.last == "didDisconnect" } && b.wait { $0.last == "didDisconnect" } && c.wait { $0.last == "didDisconnect" })
    }
}
