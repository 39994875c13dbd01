import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Three `otkit router` processes sharing one Redis; a session owned by n-0 with a
/// publisher whose socket is on n-1 and a subscriber whose socket is on n-2. SIGKILL
/// n-1: its client resumes through another node and decoding goes on; n-1 leaves the
/// registry. SIGTERM n-2: it tells its client to move, the client resumes elsewhere, and
/// n-2 exits 0.
@Suite(.serialized) struct ClusterFailoverTests {
    static let project = ProjectCredentials(apiKey: "7720", apiSecret: "failover-secret-0123456789abcdef01234567")

    @Test func killedNodesClientsResumeAndDrainedNodesClientsMove() throws {
        try AudioDeviceTestLock.run { try killedNodesClientsResumeAndDrainedNodesClientsMoveBody() }
    }

    private func killedNodesClientsResumeAndDrainedNodesClientsMoveBody() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let trio = try SpawnedTrio(project: Self.project, name: "failover")
        let nodes = trio.nodes, sessionId = trio.sessionId
        func registered() -> [String] { trio.registered() }
        let kit = SessionTestKit(project: Self.project)
        func session(on index: Int, _ recorder: DelegateRecorder) throws -> OTSession { try trio.session(on: index, recorder) }
        let p = DelegateRecorder(), s = DelegateRecorder()
        let publisherSession = try session(on: 1, p)
        try kit.connect(publisherSession, p, token: try kit.token(sessionId, .publisher))
        let (_, streamId) = try kit.publishPattern(publisherSession, p, name: "on-n-1", width: 320, height: 240, fps: 30)
        let subscriberSession = try session(on: 2, s)
        try kit.connect(subscriberSession, s, token: try kit.token(sessionId, .subscriber))
        #expect(s.wait(20) { $0.contains("streamCreated \(streamId)") })
        let render = try kit.subscribeReadingFrameNumbers(subscriberSession, s, try #require(subscriberSession.streams[streamId])).render
        #expect(s.wait(60) { _ in render.seen.count >= 60 }, "frames: \(render.seen.count)")

        // SIGKILL n-1: the publisher's client resumes through n-0 or n-2; frames keep coming.
        kill(nodes[1].process.processIdentifier, SIGKILL)
        #expect(p.wait(30) { $0.contains("didReconnect") }, "\(p.calls)")
        #expect(!p.calls.contains("didDisconnect"))
        let afterKill = render.seen.count
        #expect(s.wait(60) { _ in render.seen.count >= afterKill + 60 }, "frames: \(afterKill) → \(render.seen.count)")
        #expect(untilTrue(30) { registered() == ["n-0", "n-2"] })

        // SIGTERM n-2: its client is told to move and resumes elsewhere; n-2 exits 0.
        kill(nodes[2].process.processIdentifier, SIGTERM)
        #expect(s.wait(30) { $0.contains("didReconnect") }, "\(s.calls)")
        #expect(nodes[2].waitForExit(60) == 0, "\(nodes[2].output.suffix(1500))")
        #expect(nodes[2].output.contains("drained"))
        let afterMove = render.seen.count
        #expect(s.wait(60) { _ in render.seen.count >= afterMove + 30 }, "frames: \(afterMove) → \(render.seen.count)")
        #expect(subscriberSession.sessionConnectionStatus == .connected && publisherSession.sessionConnectionStatus == .connected)
        publisherSession.disconnect()
        subscriberSession.disconnect()
        #expect(p.wait { $0.last == "didDisconnect" })
    }
}
