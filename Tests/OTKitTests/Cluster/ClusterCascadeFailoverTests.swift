import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Issue 19's failover acceptance with the media cascade on: three `otkit router`
/// processes with one cluster secret; the publisher on n-0 (the session's owner), a
/// subscriber whose socket is on n-1, so n-1 serves its leg from a cascade of n-0's
/// stream. SIGKILL n-1: the client resumes through n-0 or n-2, OTKit subscribes the same
/// subscriber again by itself (the owner's `mediaFailed` + `resubscribe`), decoding
/// resumes and n-1 leaves the registry; a subscriber through n-2 notices nothing.
@Suite(.serialized) struct ClusterCascadeFailoverTests {
    static let project = ProjectCredentials(apiKey: "7720", apiSecret: "cascade-failover-secret-0123456789abcdef01")
    static let secret = "cluster-cascade-failover-secret-0123456789"

    @Test func aKilledServingNodesSubscriberDecodesAgainThroughAnotherNode() throws {
        try AudioDeviceTestLock.run { try body() }
    }

    private func body() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let redis = try RedisServer()
        let check = RedisConnection(endpoint: try RedisEndpoint(url: redis.url()), timeoutMilliseconds: 5000)
        let directory = NSTemporaryDirectory() + "otkit-cascade-failover-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let nodes = try (0..<3).map {
            try SpawnedRouter(nodeId: "n-\($0)", redis: redis.url(), project: Self.project, directory: directory, clusterSecret: Self.secret)
        }
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
        let publisherSession = try session(on: 0, p)
        try kit.connect(publisherSession, p, token: try kit.token(sessionId, .publisher))
        let (_, streamId) = try kit.publishPattern(publisherSession, p, name: "on-n-0", width: 320, height: 240, fps: 15)
        let subscriberSession = try session(on: 1, s)
        try kit.connect(subscriberSession, s, token: try kit.token(sessionId, .subscriber))
        #expect(s.wait(20) { $0.contains("streamCreated \(streamId)") })
        let render = try kit.subscribeReadingFrameNumbers(subscriberSession, s, try #require(subscriberSession.streams[streamId])).render
        #expect(s.wait(60) { _ in render.seen.count >= 30 }, "frames: \(render.seen.count)")
        // Another subscriber, through n-2 (its own cascade), must not notice the kill.
        let w = DelegateRecorder()
        let watcherSession = try session(on: 2, w)
        try kit.connect(watcherSession, w, token: try kit.token(sessionId, .subscriber))
        #expect(w.wait(20) { $0.contains("streamCreated \(streamId)") })
        let watcher = try kit.subscribeReadingFrameNumbers(watcherSession, w, try #require(watcherSession.streams[streamId])).render
        // The leg is n-1's, fed by one cascade from n-0 (and n-2's by another).
        #expect(untilTrue(20) { nodes[1].metric(#"otkit_cascade_legs{direction="ingress"}"#) == 1
                                && nodes[0].metric(#"otkit_cascade_legs{direction="egress"}"#) == 2 })

        let killed = Date()
        kill(nodes[1].process.processIdentifier, SIGKILL)
        #expect(s.wait(30) { $0.contains("didReconnect") }, "\(s.calls)")
        let resumed = Date()
        #expect(s.wait(60) { $0.contains("subscriber reconnected") }, "\(s.calls)")
        print("after SIGKILL: session resumed in \(resumed.timeIntervalSince(killed)) s, subscriber reconnected in \(Date().timeIntervalSince(killed)) s (wall clock, not asserted)")
        // A later window: 15 frames to settle, then ≥ 90 % of the next 60+ frames sent.
        let restored = render.seen.count
        #expect(s.wait(90) { _ in render.seen.count >= restored + 75 }, "frames: \(restored) → \(render.seen.count)")
        let window = Array(render.seen.dropFirst(restored + 15))
        let decoded = Set(window)
        let range = (decoded.min() ?? 0)...(decoded.max() ?? 0)
        // Sent: decoded by either subscriber (a frame the publisher's encoder skipped on a
        // loaded machine was never sent, and is missing for both alike). n-2's subscriber
        // kept decoding meanwhile and is past the window too.
        #expect(w.wait(60) { _ in (watcher.seen.max() ?? 0) > range.upperBound }, "n-2's subscriber stopped at \(watcher.seen.max() ?? 0)")
        let sent = decoded.union(watcher.seen.filter { range.contains($0) })
        let share = Double(decoded.count) / Double(max(1, sent.count))
        print("after SIGKILL: decoded \(decoded.count) of \(sent.count) frames sent in the window (\(share)); of all stamped: "
              + "\(decodedShare(window)); re-subscribes \(subscriberSession.resubscribes.attempts.load(ordering: .relaxed))")
        #expect(decoded.count >= 60 && share >= 0.9, "decoded \(decoded.count) of \(sent.count)")
        let subscriberEvents = s.calls.filter { $0.hasPrefix("subscriber ") && !$0.hasPrefix("subscriber video") }
        #expect(subscriberEvents == ["subscriber connected", "subscriber disconnected", "subscriber reconnected"], "\(subscriberEvents)")
        #expect(subscriberSession.resubscribes.restored.load(ordering: .relaxed) == 1
                && subscriberSession.resubscribes.givenUp.load(ordering: .relaxed) == 0)
        #expect(!p.calls.contains("didBeginReconnecting"), "the publisher was not disturbed")
        #expect(!w.calls.contains("didBeginReconnecting") && !w.calls.contains("subscriber disconnected"), "\(w.calls)")
        #expect(untilTrue(30) { registered() == ["n-0", "n-2"] })
        #expect(subscriberSession.sessionConnectionStatus == .connected && publisherSession.sessionConnectionStatus == .connected)
        for each in [publisherSession, subscriberSession, watcherSession] { each.disconnect() }
        #expect(p.wait { $0.last == "didDisconnect" })
    }
}
