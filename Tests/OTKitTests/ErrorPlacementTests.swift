import Foundation
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// Errors where the reference sends them (issue 15, point 3): `session(_:didFailWithError:)`
/// only for a failed connect or a lost session. A refused signal or moderation call goes
/// to its own completion (and the async form's throw) and to `notices`; a router error
/// event that ends nothing goes to `notices`; the session stays connected throughout.
@Suite(.serialized)
struct ErrorPlacementTests {
    static let project = ProjectCredentials(apiKey: "4753", apiSecret: "c1d2e3f4a5b60718293a4b5c6d7e8f9012345678")
    private let kit = SessionTestKit(project: Self.project)

    /// A session delegate that also adopts the OTKit-specific `OTSessionNoticeDelegate`:
    /// records session calls as lines and notices as values, on its own serial queue (no
    /// task needed, so a busy test runner cannot starve it).
    final class NoticeRecorder: OTSessionDelegate, OTSessionNoticeDelegate, @unchecked Sendable {
        let queue = DispatchQueue(label: "test.notices")
        private let lock = NSLock()
        private var lines: [String] = []
        private var items: [OTSessionNotice] = []
        var calls: [String] { lock.withLock { lines } }
        var notices: [OTSessionNotice] { lock.withLock { items } }
        private func record(_ line: String) { lock.withLock { lines.append(line) } }
        func sessionDidConnect(_ session: OTSession) { record("didConnect") }
        func sessionDidDisconnect(_ session: OTSession) { record("didDisconnect") }
        func session(_ session: OTSession, didFailWithError error: OTError) { record("didFail \(error.code)") }
        func session(_ session: OTSession, streamCreated stream: OTStream) { record("streamCreated") }
        func session(_ session: OTSession, streamDestroyed stream: OTStream) { record("streamDestroyed") }
        func session(_ session: OTSession, receivedSignalType type: String?, from connection: OTConnection?, with string: String?) {
            record("signal \(type ?? "")")
        }
        func session(_ session: OTSession, otkitNotice notice: OTSessionNotice) { lock.withLock { items.append(notice) } }
        @discardableResult
        func wait(_ seconds: Double = 15, _ done: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline, !done() { Thread.sleep(forTimeInterval: 0.02) }
            return done()
        }
    }

    private func makeSession(_ router: Router, _ sessionId: String, _ recorder: NoticeRecorder,
                             configure: (OTSessionSettings) -> Void = { _ in }) throws -> OTSession {
        let settings = OTSessionSettings()
        settings.routerURL = router.baseURL
        configure(settings)
        let session = try #require(OTSession(apiKey: Self.project.apiKey, sessionId: sessionId, delegate: recorder, settings: settings))
        session.apiQueue = recorder.queue
        return session
    }

    private func connect(_ session: OTSession, _ recorder: NoticeRecorder, _ role: Role) throws {
        try session.connect(withToken: try kit.token(session.sessionId, role))
        #expect(recorder.wait { recorder.calls.contains("didConnect") })
    }

    /// Completions' answers, in arrival order.
    final class Answers: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [OTError?] = []
        func add(_ error: OTError?) { lock.withLock { items.append(error) } }
        var all: [OTError?] { lock.withLock { items } }
    }

    private func router(signalsPerSecond: Int = 50) throws -> Router {
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        configuration.limits.signalsPerSecond = signalsPerSecond
        return try Router(configuration: configuration)
    }

    @Test func refusedSignalGoesToItsCompletionNotToDidFail() throws {
        let router = try router(signalsPerSecond: 2)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = NoticeRecorder()
        let session = try makeSession(router, sessionId, a)
        try connect(session, a, .publisher)

        // Over the router's rate limit (a burst of 2): the later ones are refused with 1550.
        let answers = Answers()
        for index in 0..<6 {
            try session.signal(type: "burst", string: "\(index)", completion: { answers.add($0) })
        }
        #expect(a.wait { answers.all.count == 6 }, "every signal's completion is called once")
        let refused = answers.all.compactMap { $0 }
        #expect(!refused.isEmpty && refused.allSatisfy { $0.code == 1550 }, "\(answers.all)")
        #expect(answers.all.contains { $0 == nil }, "the ones within the limit were accepted")
        #expect(a.wait { a.notices.filter { $0.kind == .signalRefused }.count == refused.count }, "\(a.notices)")

        Thread.sleep(forTimeInterval: 0.3)
        #expect(!a.calls.contains { $0.hasPrefix("didFail") }, "\(a.calls)")
        #expect(session.sessionConnectionStatus == .connected)
        session.disconnect()
        #expect(a.wait { a.calls.last == "didDisconnect" })
    }

    /// The async form throws the router's refusal (and returns for the accepted ones).
    @Test func refusedSignalThrowsFromTheAsyncForm() async throws {
        let router = try router(signalsPerSecond: 2)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = NoticeRecorder()
        let session = try makeSession(router, sessionId, a)
        try await session.connect(token: try kit.token(sessionId, .publisher))
        let notices = session.notices
        // Twenty at once: the router's bucket (2, refilled at 2/s) refuses most.
        let outcomes = await withTaskGroup(of: Int32?.self) { group in
            for index in 0..<20 {
                group.addTask {
                    do { try await session.sendSignal(type: "burst", string: "\(index)"); return 0 } catch { return (error as? OTError)?.code ?? -1 }
                }
            }
            var all: [Int32?] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.contains(0), "\(outcomes)")
        #expect(outcomes.contains(1550), "\(outcomes)")
        #expect(outcomes.allSatisfy { $0 == 0 || $0 == 1550 }, "\(outcomes)")
        // The refusals were also told to the notices stream (before their completions).
        var iterator = notices.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.kind == .signalRefused && first?.error.code == 1550, "\(String(describing: first))")
        #expect(!a.calls.contains { $0.hasPrefix("didFail") }, "\(a.calls)")
        #expect(session.sessionConnectionStatus == .connected)
        session.disconnect()
    }

    @Test func refusedModerationGoesToItsCompletionNotToDidFail() throws {
        let router = try router()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let m = NoticeRecorder()
        let session = try makeSession(router, sessionId, m)
        try connect(session, m, .moderator)
        // A stream the router does not know: it answers 1011.
        let ghost = OTStream(streamId: "ghost", connection: OTConnection(connectionId: "nobody", creationTime: Date(), data: nil),
                             session: session, creationTime: Date(), name: nil, hasAudio: true, hasVideo: true,
                             videoDimensions: OTVideoDimensions(width: 1, height: 1), videoType: .camera)
        let answers = Answers()
        try session.forceMuteStream(ghost, completion: { answers.add($0) })
        #expect(m.wait { answers.all.count == 1 })
        #expect(answers.all.first??.code == 1011, "\(answers.all)")
        #expect(m.wait { m.notices.map(\.kind) == [.moderationRefused] }, "\(m.notices)")
        // An accepted one answers nil.
        try session.disableForceMute(completion: { answers.add($0) })
        #expect(m.wait { answers.all.count == 2 })
        #expect(answers.all.last! == nil)

        Thread.sleep(forTimeInterval: 0.3)
        #expect(!m.calls.contains { $0.hasPrefix("didFail") }, "\(m.calls)")
        #expect(session.sessionConnectionStatus == .connected)
        session.disconnect()
        #expect(m.wait { m.calls.last == "didDisconnect" })
    }

    /// A message the router cannot read gets an error event that answers no request: the
    /// session goes on; the app hears it as a notice.
    @Test func routerErrorEventIsANoticeNotAFailure() throws {
        let router = try router()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = NoticeRecorder()
        // Keep the signaling transport so the test can write to the router directly.
        let tap = Box<(any SignalingTransport)?>(nil)
        let tapLock = NSLock()
        let tapped = try makeSession(router, sessionId, a) { settings in
            settings.transportFactory = { url, selfSigned, handlers throws(OTError) in
                let transport = try WebSocketSignalingTransport.factory(url, selfSigned, handlers)
                tapLock.withLock { tap.value = transport }
                return transport
            }
        }
        try connect(tapped, a, .publisher)
        let transport = try #require(tapLock.withLock { tap.value })
        #expect(transport.send("{\"type\":\"noSuchMessage\"}"))
        #expect(a.wait { a.notices.contains { $0.kind == .routerError && $0.error.code == 1011 } }, "\(a.notices)")
        // Still connected and usable.
        try tapped.signal(type: "still", string: "here")
        #expect(a.wait { a.calls.contains("signal still") })
        #expect(!a.calls.contains { $0.hasPrefix("didFail") }, "\(a.calls)")
        #expect(tapped.sessionConnectionStatus == .connected)
        tapped.disconnect()
        #expect(a.wait { a.calls.last == "didDisconnect" })
    }

    /// A client that gives up reconnecting gets streamDestroyed for the stream it was
    /// subscribed to (the subscribing guide), then didFail 1022 and didDisconnect, and its
    /// status ends `.failed`.
    @Test func lostSessionDestroysSubscribedStreams() throws { try AudioDeviceTestLock.run { try lostSessionBody() } }

    private func lostSessionBody() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter(grace: 3, silence: 1)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let cut = try CutPath(router)
        defer { cut.stop() }
        let b = DelegateRecorder()
        let sessionB = try kit.makeSession(router, sessionId, b)
        try kit.connect(sessionB, b, token: try kit.token(sessionId, .publisher))
        let (_, streamB) = try kit.publishAudioOnly(sessionB, b)

        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a, via: cut, heartbeatTimeout: 1)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .subscriber))
        let idB = try #require(sessionB.connection?.connectionId)
        #expect(a.wait { $0.contains("streamCreated \(streamB)") })
        let stream = try #require(sessionA.streams[streamB])
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: a))
        try sessionA.subscribe(subscriber)
        #expect(a.wait { $0.contains("subscriber connected") })

        cut.setCut(true)
        defer { cut.setCut(false) }
        #expect(a.wait(30) { $0.last == "didDisconnect" }, "\(a.calls)")
        #expect(a.calls == ["didConnect", "connectionCreated \(idB)", "streamCreated \(streamB)", "subscriber connected",
                            "didBeginReconnecting", "subscriber disconnected", "streamDestroyed \(streamB)", "didFail 1022", "didDisconnect"])
        #expect(sessionA.sessionConnectionStatus == .failed)
        sessionB.disconnect()
        #expect(b.wait { $0.last == "didDisconnect" })
    }

    /// reportIssue returns the report's id at once, even when the router cannot answer
    /// (on main it waited up to 5 s and then threw 1021).
    @Test func reportIssueDoesNotWaitForTheRouter() throws {
        let router = try router()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let cut = try CutPath(router)
        defer { cut.stop() }
        let a = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, a, via: cut, heartbeatTimeout: 60)
        try kit.connect(session, a, token: try kit.token(sessionId, .publisher))
        cut.setCut(true)  // the router hears nothing; the session does not notice for a minute
        let id = try session.reportIssue()
        #expect(!id.isEmpty)
        var issueId: String?
        session.reportIssue(&issueId)
        #expect(issueId != nil && issueId != id)
        cut.setCut(false)
        session.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
        #expect(!a.calls.contains { $0.hasPrefix("didFail") })
    }
}
