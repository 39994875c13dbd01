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
        let redis = try RedisServer()
        let check = RedisConnection(endpoint: try RedisEndpoint(url: redis.url()), timeoutMilliseconds: 5000)
        let directory = NSTemporaryDirectory() + "otkit-failover-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let nodes = try (0..<3).map { try SpawnedRouter(nodeId: "n-\($0)", redis: redis.url(), project: Self.project, directory: directory) }
        func registered() -> [String] { ((try? check.command("HKEYS", "otkit:nodes").elements) ?? []).compactMap(\.text).sorted() }
        try #require(untilTrue(60) { registered() == ["n-0", "n-1", "n-2"] && nodes.allSatisfy { !$0.url.isEmpty } },
                "\(nodes.map { $0.output.suffix(800) })")
        // n-0's next heartbeat reads the full registry: connect replies then list all three.
        let beats = nodes[0].metric("otkit_cluster_heartbeats_total") ?? 0
        #expect(untilTrue(30) { (nodes[0].metric("otkit_cluster_heartbeats_total") ?? 0) > beats })

        let created = try HTTPClient.request("POST", nodes[0].url + "/session/create",
                                             headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: Self.project),
                                                       "Content-Type": "application/x-www-form-urlencoded"],
                                             body: Array("p2p.preference=disabled".utf8))
        let list = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [[String: Any]])
        let sessionId = try #require(list.first?["session_id"] as? String)

        let kit = SessionTestKit(project: Self.project)
        func session(on index: Int, _ recorder: DelegateRecorder) throws -> OTSession {
            let settings = OTSessionSettings()
            settings.routerURL = nodes[index].url
            settings.heartbeatTimeout = 3
            settings.reconnectRetryInterval = 0.2
            let session = try #require(OTSession(apiKey: Self.project.apiKey, sessionId: sessionId, delegate: recorder, settings: settings))
            session.apiQueue = recorder.queue
            return session
        }
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
