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
        let trio = try SpawnedTrio(project: Self.project, name: "cascade-failover", clusterSecret: Self.secret)
        let nodes = trio.nodes, sessionId = trio.sessionId
        func registered() -> [String] { trio.registered() }
        let kit = SessionTestKit(project: Self.project)
        func session(on index: Int, _ recorder: DelegateRecorder) throws -> OTSession { try trio.session(on: index, recorder) }
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
