import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// Issue 15 point 4, end to end on the embedded router with real sockets: nothing is lost
/// across a reconnection. A's signaling goes through a TCPRelay that a test black-holes
/// (both directions) for 5 s; the router keeps what A misses and replays it once after
/// the resume reply; A's unconfirmed signals are sent again and delivered once.
@Suite(.serialized)
struct ResumeReplayTests {
    static let project = ProjectCredentials(apiKey: "4715", apiSecret: "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c")
    static let cutSeconds: Double = 5
    private let kit = SessionTestKit(project: Self.project)

    @Test func everythingDuringAFiveSecondCutArrivesOnceInOrder() throws { try AudioDeviceTestLock.run { try acceptance() } }

    @Test func missingMoreThanTheRouterKeepsEndsTheSessionAsLost() throws { try overflow() }

    private func acceptance() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter()  // the router's defaults: 30 s grace, 5 s silence
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let cut = try CutPath(router)
        defer { cut.stop() }

        let a = DelegateRecorder(), b = DelegateRecorder(), c = DelegateRecorder(), d = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a, via: cut)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let sessionB = try kit.makeSession(router, sessionId, b)
        try kit.connect(sessionB, b, token: try kit.token(sessionId, .moderator))
        let sessionD = try kit.makeSession(router, sessionId, d)
        try kit.connect(sessionD, d, token: try kit.token(sessionId, .subscriber))
        let idA = try #require(sessionA.connection?.connectionId)
        let idB = try #require(sessionB.connection?.connectionId)
        let idD = try #require(sessionD.connection?.connectionId)
        #expect(a.wait { $0.contains("connectionCreated \(idB)") && $0.contains("connectionCreated \(idD)") })
        #expect(b.wait { $0.contains("connectionCreated \(idA)") })
        let toB = try #require(sessionA.connectionForTests(idB))
        let toA = try #require(sessionB.connectionForTests(idA))

        // A signal in the second before the cut, one the instant before it, and one after it
        // that A sends before it notices (its delivery unconfirmed when the loss is found).
        try sessionA.signal(type: "fromA", string: "early", connection: toB)
        Thread.sleep(forTimeInterval: 0.5)
        try sessionA.signal(type: "fromA", string: "late", connection: toB)
        cut.setCut(true)
        let cutStarted = Date()
        try sessionA.signal(type: "fromA", string: "blind", connection: toB)

        // While A is away.
        for n in 1...3 { try sessionB.signal(type: "toA", string: "\(n)", connection: toA) }
        for n in 1...2 { try sessionB.signal(type: "toAll", string: "\(n)", connection: nil) }
        // signal() returns once B has queued it; the router orders what one connection sends,
        // not B's signals against C's join on another socket. B's own copy of its last
        // signal to all says the router has taken all five before C connects.
        #expect(b.wait { $0.contains("signal toAll from \(idB): 2") }, "\(b.calls)")
        let sessionC = try kit.makeSession(router, sessionId, c)
        try kit.connect(sessionC, c, token: try kit.token(sessionId, .publisher))
        let idC = try #require(sessionC.connection?.connectionId)
        let (_, streamC) = try kit.publishPattern(sessionC, c, width: 160, height: 120, fps: 15)
        sessionD.disconnect()
        #expect(d.wait { $0.last == "didDisconnect" })
        let archive = try RouterREST(router: router, project: Self.project).post("archive", ["sessionId": sessionId, "name": "cut"])
        #expect(archive.status == 200, "\(archive.body)")
        let archiveId = try #require(archive.body["id"] as? String)
        try sessionB.forceMuteAll()
        #expect(b.wait { $0.contains("muteForced true") })
        // The cut lasts 5 s, or until all of that is done if it took longer (a loaded machine),
        // so everything above happens while A is cut off.
        Thread.sleep(forTimeInterval: max(0, Self.cutSeconds - Date().timeIntervalSince(cutStarted)))
        #expect(!a.calls.contains("didReconnect"))
        cut.setCut(false)

        let missed = ["signal toA from \(idB): 1", "signal toA from \(idB): 2", "signal toA from \(idB): 3",
                      "signal toAll from \(idB): 1", "signal toAll from \(idB): 2",
                      "connectionCreated \(idC)", "streamCreated \(streamC)", "connectionDestroyed \(idD)",
                      "archiveStarted \(archiveId) name=cut", "muteForced true"]
        #expect(a.wait(20) { $0.last == missed.last }, "\(a.calls)")
        #expect(b.wait { calls in ["early", "late", "blind"].allSatisfy { calls.contains("signal fromA from \(idA): \($0)") } }, "\(b.calls)")
        Thread.sleep(forTimeInterval: 1)  // room for a duplicate to show up
        let after = Array(a.calls.drop { $0 != "didBeginReconnecting" })
        #expect(after == ["didBeginReconnecting", "didReconnect"] + missed, "every missed event once, in order, after didReconnect")
        for text in ["early", "late", "blind"] {
            #expect(b.calls.filter { $0 == "signal fromA from \(idA): \(text)" }.count == 1, "B got \"\(text)\" exactly once: \(b.calls)")
        }
        #expect(sessionA.sessionConnectionStatus == .connected)
        #expect(sessionA.streams[streamC] != nil)

        for session in [sessionA, sessionB, sessionC] { session.disconnect() }
        #expect(a.wait { $0.last == "didDisconnect" })
    }

    /// The router keeps at most `missedEventsPerConnection` events for A (3 here); B sends
    /// A five signals while A is cut off: A's resume is refused with a reason naming the
    /// loss, A reports 1022 then didDisconnect, and B sees A leave.
    private func overflow() throws {
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        configuration.limits.missedEventsPerConnection = 3
        let router = try Router(configuration: configuration)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let cut = try CutPath(router)
        defer { cut.stop() }
        let a = DelegateRecorder(), b = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a, via: cut, heartbeatTimeout: 1.5)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let sessionB = try kit.makeSession(router, sessionId, b)
        try kit.connect(sessionB, b, token: try kit.token(sessionId, .publisher))
        let idA = try #require(sessionA.connection?.connectionId)
        #expect(b.wait { $0.contains("connectionCreated \(idA)") })
        let toA = try #require(sessionB.connectionForTests(idA))
        Thread.sleep(forTimeInterval: 1.5)  // A acknowledges B's connectionCreated with a heartbeat

        cut.setCut(true)
        for n in 1...5 { try sessionB.signal(type: "toA", string: "\(n)", connection: toA) }
        #expect(a.wait { $0.contains("didBeginReconnecting") })
        cut.setCut(false)

        #expect(a.wait(10) { $0.last == "didDisconnect" }, "\(a.calls)")
        #expect(Array(a.calls.drop { $0 != "didBeginReconnecting" }) == ["didBeginReconnecting", "didFail 1022", "didDisconnect"])
        let message = a.lastErrors.last?.message ?? ""
        #expect(message.contains("without losing events") && message.contains("missedEventsPerConnection"), "\(message)")
        #expect(!a.calls.contains { $0.hasPrefix("signal") }, "no partial replay")
        #expect(b.wait { $0.contains("connectionDestroyed \(idA)") }, "\(b.calls)")
        sessionB.disconnect()
        #expect(b.wait { $0.last == "didDisconnect" })
    }
}

extension OTSession {
    /// The `OTConnection` the session knows by `id` (another client's).
    func connectionForTests(_ id: String) -> OTConnection? { lock.withLock { state.connections[id] } }
}
