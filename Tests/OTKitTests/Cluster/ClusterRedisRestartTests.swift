import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Redis restarted during a session (issue 19's acceptance): a session owned by node 0, its
/// publisher's socket on node 1 and its subscriber's on node 2 (both proxied; media straight
/// to node 0). Redis is killed, kept away while the subscriber decodes 3 s of media, and
/// started again, empty. Frames keep being decoded throughout (counted by stamped frame
/// number, no gap longer than 1.5 s of media); while Redis is away what needs it is refused
/// with a clear error; once it is back, a new session created on node 1 and joined through
/// node 2 works again (the time that took is printed, not asserted).
@Suite(.serialized) struct ClusterRedisRestartTests {
    static let project = ProjectCredentials(apiKey: "7721", apiSecret: "restart-secret-0123456789abcdef012345678")
    /// Media frames per second of the test pattern.
    static let fps = 30
    /// Longest run of frames the subscriber may miss: 1.5 s of media.
    static let longestGap = 45

    @Test func mediaKeepsFlowingWhileRedisRestarts() throws { try AudioDeviceTestLock.run { try mediaKeepsFlowingWhileRedisRestartsBody() } }

    private func mediaKeepsFlowingWhileRedisRestartsBody() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let trio = try ClusterTrioRouters(project: Self.project)
        let kit = trio.kit
        let key = Self.project.apiKey
        let sessionId = try trio.routers[0].createSession(apiKey: key)

        let p = DelegateRecorder(), s = DelegateRecorder()
        let publisherSession = try trio.session(on: 1, sessionId, p)
        try kit.connect(publisherSession, p, token: try kit.token(sessionId, .publisher))
        let (_, streamId) = try kit.publishPattern(publisherSession, p, name: "through-restart", width: 320, height: 240, fps: Self.fps)
        let subscriberSession = try trio.session(on: 2, sessionId, s)
        try kit.connect(subscriberSession, s, token: try kit.token(sessionId, .subscriber))
        #expect(s.wait { $0.contains("streamCreated \(streamId)") })
        let stream = try #require(subscriberSession.streams[streamId])
        let render = try kit.subscribeReadingFrameNumbers(subscriberSession, s, stream).render
        try #require(s.wait(60) { _ in render.seen.count >= 60 }, "frames before the restart: \(render.seen.count)")

        // Redis goes away: every node notices (its heartbeat fails), media goes on.
        let errorsBefore = (0..<3).map { trio.clusterStatistics($0).redisErrors }
        let atStop = render.seen.count
        trio.redis.stop()
        let stoppedAt = Date()
        #expect(untilTrue(30) { (0..<3).allSatisfy { trio.clusterStatistics($0).redisErrors > errorsBefore[$0] } },
                "\((0..<3).map { trio.clusterStatistics($0) })")

        // What needs Redis is refused with a clear error, not left hanging: a client joining
        // through node 2 a session node 2 has never seen (created on node 1 meanwhile) …
        let unknown = try trio.createSession(on: 1)  // node 1 owns it locally until Redis returns
        let r = DelegateRecorder()
        let refused = try trio.session(on: 2, unknown, r)
        try refused.connect(withToken: try kit.token(unknown, .publisher))
        #expect(r.wait(30) { $0.contains { $0.hasPrefix("didFail") } }, "\(r.calls)")
        #expect(r.calls.contains("didFail 1006"), "\(r.calls)")
        #expect(r.lastErrors.first?.message.contains("Redis") == true, "\(r.lastErrors.map(\.message))")
        #expect(!r.calls.contains("didConnect"))
        // … and a REST call node 2 must forward to the session's owner: 503, OpenTok's error body.
        let listed = try trio.rest("GET", on: 2, "/v2/project/\(key)/session/\(sessionId)/stream")
        #expect(listed.status == 503 && listed.body.contains("\"code\":503") && listed.body.contains("Redis"), "\(listed)")

        // Kept away while the subscriber decodes 3 s more of media.
        #expect(s.wait(60) { _ in render.seen.count >= atStop + 3 * Self.fps }, "frames while Redis is away: \(render.seen.count - atStop)")
        let awayFrames = render.seen.count - atStop
        let awaySeconds = Date().timeIntervalSince(stoppedAt)

        // Redis returns, empty. Poll until a new session works end to end across nodes again.
        let atReturn = render.seen.count
        try trio.redis.restart()
        let returnedAt = Date()
        var workedAfter: Double?
        var attempts = 0
        var failures: [String] = []
        while workedAfter == nil, Date().timeIntervalSince(returnedAt) < 60 {
            attempts += 1
            let fresh = try trio.createSession(on: 1)
            let recorder = DelegateRecorder()
            let client = try trio.session(on: 2, fresh, recorder)
            try client.connect(withToken: try kit.token(fresh, .publisher))
            _ = recorder.wait(20) { $0.contains("didConnect") || $0.contains { $0.hasPrefix("didFail") } }
            if recorder.calls.contains("didConnect") {
                workedAfter = Date().timeIntervalSince(returnedAt)
                client.disconnect()
            } else {
                failures.append(recorder.lastErrors.first.map { "\($0.code): \($0.message)" } ?? "no answer")
                usleep(100_000)
            }
        }
        #expect(workedAfter != nil, "no new session worked within 60 s of Redis returning (\(attempts) attempts)")
        #expect(s.wait(60) { _ in render.seen.count >= atReturn + 3 * Self.fps }, "frames after Redis returned: \(render.seen.count - atReturn)")

        // No gap longer than `longestGap` frames anywhere (the first second is warm-up).
        let numbers = Set(render.seen.dropFirst(Self.fps)).sorted()
        let gaps = zip(numbers, numbers.dropFirst()).map { Int($1 - $0) - 1 }
        let longest = gaps.max() ?? Int.max
        #expect(longest <= Self.longestGap, "longest run of missed frames: \(longest)")
        let share = decodedShare(Array(render.seen.dropFirst(Self.fps)))
        print("redis restart: \(awayFrames) frames decoded in \(String(format: "%.1f", awaySeconds)) s while Redis was away; "
              + "a new session worked \(workedAfter.map { String(format: "%.2f", $0) } ?? "never") s after Redis returned "
              + "(\(attempts) attempt(s): \(failures.count) refused, first \(failures.first ?? "none")); longest gap \(longest) frames; decoded share \(String(format: "%.3f", share)) of \(render.seen.count)")
        #expect(trio.clusterStatistics(0).claimsRetaken >= 1)  // node 0 took its session's claim back

        for session in [publisherSession, subscriberSession] { session.disconnect() }
        #expect(p.wait { $0.last == "didDisconnect" })
    }
}
