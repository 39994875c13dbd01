import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Issue 19 point 5 for the session's OWNER: three `otkit router` processes sharing one
/// Redis; a session owned by n-0, a publisher whose socket is on n-1 and a subscriber whose
/// socket is on n-2 (both proxied to n-0), and a client directly on n-0. SIGKILL n-0: the session's state dies with it.
/// All three try to resume; a node finds n-0 dead and takes the session over; the
/// resume is answered "rejoin" and OTKit connects again as a new connection
/// (`sessionDidReconnect`), the publisher publishes again (a new stream), the subscriber's
/// app sees the old stream destroyed and the new one created, subscribes to it, and
/// decodes ≥ 90 % of a later window of frames. One owner of the session afterwards.
/// The same with SIGTERM (a drained owner, 2 s drain): it exits 0 once the drain times out
/// (its own client stays), releasing its claims; the session goes on elsewhere the same way.
@Suite(.serialized) struct ClusterOwnerFailoverTests {
    static let project = ProjectCredentials(apiKey: "7721", apiSecret: "owner-failover-secret-0123456789abcdef012")

    @Test(arguments: [SIGKILL, SIGTERM])
    func aKilledOrDrainedOwnersSessionContinuesOnAnotherNodeWithItsStreamRepublished(signal: Int32) throws {
        try AudioDeviceTestLock.run { try body(signal: signal) }
    }

    private func body(signal: Int32) throws {
        let how = signal == SIGKILL ? "SIGKILL" : "SIGTERM"
        OTAudioDeviceManager.setAudioDevice(nil)
        let redis = try RedisServer()
        let check = RedisConnection(endpoint: try RedisEndpoint(url: redis.url()), timeoutMilliseconds: 5000)
        let directory = NSTemporaryDirectory() + "otkit-owner-failover-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let nodes = try (0..<3).map {
            try SpawnedRouter(nodeId: "n-\($0)", redis: redis.url(), project: Self.project, directory: directory, drainSeconds: 2)
        }
        func registered() -> [String] { ((try? check.command("HKEYS", "otkit:nodes").elements) ?? []).compactMap(\.text).sorted() }
        try #require(untilTrue(60) { registered() == ["n-0", "n-1", "n-2"] && nodes.allSatisfy { !$0.url.isEmpty } },
                     "\(nodes.map { $0.output.suffix(800) })")
        let beats = nodes[0].metric("otkit_cluster_heartbeats_total") ?? 0
        #expect(untilTrue(30) { (nodes[0].metric("otkit_cluster_heartbeats_total") ?? 0) > beats })
        let created = try HTTPClient.request("POST", nodes[0].url + "/session/create",
                                             headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: Self.project),
                                                       "Content-Type": "application/x-www-form-urlencoded"],
                                             body: Array("p2p.preference=disabled".utf8))
        let list = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [[String: Any]])
        let sessionId = try #require(list.first?["session_id"] as? String)
        func owner() -> String? { try? check.command("GET", "otkit:session:\(sessionId):owner").text }
        #expect(owner() == "n-0")

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
        let (publisher, oldStreamId) = try kit.publishPattern(publisherSession, p, name: "through-n-1", width: 320, height: 240, fps: 15)
        let subscriberSession = try session(on: 2, s)
        try kit.connect(subscriberSession, s, token: try kit.token(sessionId, .subscriber))
        #expect(s.wait(20) { $0.contains("streamCreated \(oldStreamId)") })
        // A client directly on the owner (its own router dies with the session).
        let d = DelegateRecorder()
        let directSession = try session(on: 0, d)
        try kit.connect(directSession, d, token: try kit.token(sessionId, .subscriber))
        #expect(d.wait(20) { $0.contains("streamCreated \(oldStreamId)") })
        let before = try kit.subscribeReadingFrameNumbers(subscriberSession, s, try #require(subscriberSession.streams[oldStreamId])).render
        #expect(s.wait(60) { _ in before.seen.count >= 30 }, "frames: \(before.seen.count)")

        let killed = Date()
        kill(nodes[0].process.processIdentifier, signal)
        #expect(p.wait(60) { $0.contains("didReconnect") }, "\(p.calls)")
        #expect(s.wait(60) { $0.contains("didReconnect") }, "\(s.calls)")
        let rejoined = Date()
        // The publisher published again: its old stream ended, a new one exists.
        #expect(p.wait(60) { $0.contains("publisher streamDestroyed \(oldStreamId)") && $0.filter { $0.hasPrefix("publisher streamCreated") }.count == 2 },
                "\(p.calls)")
        let newStreamId = try #require(publisher.stream?.streamId)
        #expect(newStreamId != oldStreamId)
        #expect(s.wait(60) { $0.contains("streamDestroyed \(oldStreamId)") && $0.contains("streamCreated \(newStreamId)") }, "\(s.calls)")
        #expect(d.wait(60) { $0.contains("didReconnect") && $0.contains("streamCreated \(newStreamId)") }, "\(d.calls)")
        let stream = try #require(subscriberSession.streams[newStreamId])
        let after = try kit.subscribeReadingFrameNumbers(subscriberSession, s, stream).render
        print("after \(how) of the owner: both sessions reconnected in \(rejoined.timeIntervalSince(killed)) s, "
              + "the new stream decoded after \(Date().timeIntervalSince(killed)) s (wall clock, not asserted)")
        // A later window: 15 frames to settle, then ≥ 90 % of the next 60+ stamped frames.
        #expect(s.wait(90) { _ in after.seen.count >= 75 }, "frames: \(after.seen.count)")
        let window = Array(after.seen.dropFirst(15))
        let share = decodedShare(window)
        print("after \(how) of the owner: decoded \(Set(window).count) distinct frames, share \(share) of those stamped in the window")
        #expect(Set(window).count >= 60 && share >= 0.9, "share \(share)")

        // One owner afterwards, a live node, which took the session over; n-0 pruned.
        #expect(untilTrue(30) { registered() == ["n-1", "n-2"] })
        let newOwner = try #require(owner())
        #expect(["n-1", "n-2"].contains(newOwner))
        let takeovers = nodes[1...].map { $0.metric(#"otkit_cluster_claims_total{outcome="takenOver"}"#) ?? 0 }
        #expect(takeovers.reduce(0, +) == 1, "\(takeovers)")
        #expect([publisherSession, subscriberSession, directSession].map { $0.rejoins.load(ordering: .relaxed) } == [1, 1, 1])
        #expect(!d.calls.contains { $0.hasPrefix("didFail") || $0 == "didDisconnect" }, "\(d.calls)")
        #expect(!p.calls.contains { $0.hasPrefix("didFail") || $0 == "didDisconnect" || $0.hasPrefix("publisher didFail") }, "\(p.calls)")
        #expect(!s.calls.contains { $0.hasPrefix("didFail") || $0 == "didDisconnect" }, "\(s.calls)")
        #expect(subscriberSession.sessionConnectionStatus == .connected && publisherSession.sessionConnectionStatus == .connected)
        if signal == SIGTERM {
            #expect(untilTrue(30) { !nodes[0].process.isRunning })
            #expect(!nodes[0].process.isRunning && nodes[0].process.terminationStatus == 0, "\(nodes[0].output.suffix(800))")
        }
        publisherSession.disconnect()
        subscriberSession.disconnect()
        directSession.disconnect()
        #expect(p.wait { $0.last == "didDisconnect" })
    }
}
