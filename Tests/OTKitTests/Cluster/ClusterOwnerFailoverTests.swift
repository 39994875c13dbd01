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
/// decodes ≥ 80 % of a later window of the frames sent. One owner of the session afterwards.
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
        let trio = try SpawnedTrio(project: Self.project, name: "owner-failover", drainSeconds: 2)
        let nodes = trio.nodes, sessionId = trio.sessionId
        func registered() -> [String] { trio.registered() }
        func owner() -> String? { try? trio.check.command("GET", "otkit:session:\(sessionId):owner").text }
        #expect(owner() == "n-0")
        let kit = SessionTestKit(project: Self.project)
        func session(on index: Int, _ recorder: DelegateRecorder) throws -> OTSession { try trio.session(on: index, recorder) }
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
        // The direct client watches too: what either decoded was sent (under load the encoder
        // may skip stamped frames, which no router could deliver).
        let reference = try kit.subscribeReadingFrameNumbers(directSession, d, try #require(directSession.streams[newStreamId])).render
        print("after \(how) of the owner: both sessions reconnected in \(rejoined.timeIntervalSince(killed)) s, "
              + "the new stream decoded after \(Date().timeIntervalSince(killed)) s (wall clock, not asserted)")
        // A later window: 15 frames to settle, then ≥ 80 % of the next 60+ frames sent.
        #expect(s.wait(90) { _ in after.seen.count >= 75 }, "frames: \(after.seen.count)")
        let window = Array(after.seen.dropFirst(15))
        let decoded = Set(window)
        let range = (window.min() ?? 0)...(window.max() ?? 0)
        #expect(d.wait(60) { _ in (reference.seen.max() ?? 0) > range.upperBound }, "the direct subscriber stopped at \(reference.seen.max() ?? 0)")
        let sent = decoded.union(reference.seen.filter { range.contains($0) })
        let share = Double(decoded.count) / Double(max(1, sent.count))
        print("after \(how) of the owner: decoded \(decoded.count) of \(sent.count) frames sent in the window (\(share)); "
              + "of all stamped: \(decodedShare(window))")
        // The claim is that decoding resumes on the re-published stream (issue 19 sets no share
        // for it); 0.8 leaves room for a starved machine's losses (one run under a parallel CI
        // and a benchmark decoded 61 of 69, while the encoder skipped 41 % of stamped frames).
        #expect(decoded.count >= 60 && share >= 0.8, "decoded \(decoded.count) of \(sent.count)")

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
