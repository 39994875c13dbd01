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

    /// Collects a session's notices (on its apiQueue) for the test to read.
    final class NoticeLog: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [OTSessionNotice] = []
        private var task: Task<Void, Never>?
        init(_ session: OTSession) {
            let stream = session.notices
            task = Task { for await notice in stream { self.lock.withLock { self.items.append(notice) } } }
        }
        var all: [OTSessionNotice] { lock.withLock { items } }
        func wait(_ seconds: Double = 10, _ done: ([OTSessionNotice]) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline, !done(all) { Thread.sleep(forTimeInterval: 0.02) }
            return done(all)
        }
        deinit { task?.cancel() }
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

    @Test func refusedSignalGoesToItsCompletionNotToDidFail() async throws {
        let router = try router(signalsPerSecond: 2)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, a)
        let notices = NoticeLog(session)
        try kit.connect(session, a, token: try kit.token(sessionId, .publisher))

        // Over the router's rate limit (a burst of 2): the later ones are refused with 1550.
        let answers = Answers()
        for index in 0..<6 {
            try session.signal(type: "burst", string: "\(index)", completion: { answers.add($0) })
        }
        #expect(a.wait { _ in answers.all.count == 6 }, "every signal's completion is called once")
        let refused = answers.all.compactMap { $0 }
        #expect(!refused.isEmpty && refused.allSatisfy { $0.code == 1550 }, "\(answers.all)")
        #expect(answers.all.contains { $0 == nil }, "the ones within the limit were accepted")
        #expect(notices.wait { $0.filter { $0.kind == .signalRefused }.count == refused.count }, "\(notices.all)")
        // The async form throws the refusal.
        var thrown: (any Error)?
        for _ in 0..<4 {
            do { try await session.sendSignal(type: "burst", string: "again") } catch { thrown = error; break }
        }
        #expect((thrown as? OTError)?.code == 1550)

        try await Task.sleep(for: .milliseconds(300))
        #expect(!a.calls.contains { $0.hasPrefix("didFail") }, "\(a.calls)")
        #expect(session.sessionConnectionStatus == .connected)
        session.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
    }

    @Test func refusedModerationGoesToItsCompletionNotToDidFail() throws {
        let router = try router()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let m = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, m)
        let notices = NoticeLog(session)
        try kit.connect(session, m, token: try kit.token(sessionId, .moderator))
        // A stream the router does not know: it answers 1011.
        let ghost = OTStream(streamId: "ghost", connection: OTConnection(connectionId: "nobody", creationTime: Date(), data: nil),
                             session: session, creationTime: Date(), name: nil, hasAudio: true, hasVideo: true,
                             videoDimensions: OTVideoDimensions(width: 1, height: 1), videoType: .camera)
        let answers = Answers()
        try session.forceMuteStream(ghost, completion: { answers.add($0) })
        #expect(m.wait { _ in answers.all.count == 1 })
        #expect(answers.all.first??.code == 1011, "\(answers.all)")
        #expect(notices.wait { $0.map(\.kind) == [.moderationRefused] }, "\(notices.all)")
        // An accepted one answers nil.
        try session.disableForceMute(completion: { answers.add($0) })
        #expect(m.wait { _ in answers.all.count == 2 })
        #expect(answers.all.last! == nil)

        Thread.sleep(forTimeInterval: 0.3)
        #expect(!m.calls.contains { $0.hasPrefix("didFail") }, "\(m.calls)")
        #expect(session.sessionConnectionStatus == .connected)
        session.disconnect()
        #expect(m.wait { $0.last == "didDisconnect" })
    }

    /// A message the router cannot read gets an error event that answers no request: the
    /// session goes on; the app hears it as a notice.
    @Test func routerErrorEventIsANoticeNotAFailure() throws {
        let router = try router()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, a)
        // Keep the signaling transport so the test can write to the router directly.
        let tap = Box<(any SignalingTransport)?>(nil)
        let tapLock = NSLock()
        let settings = session.settings
        settings.transportFactory = { url, selfSigned, handlers throws(OTError) in
            let transport = try WebSocketSignalingTransport.factory(url, selfSigned, handlers)
            tapLock.withLock { tap.value = transport }
            return transport
        }
        let tapped = try #require(OTSession(apiKey: Self.project.apiKey, sessionId: sessionId, delegate: a, settings: settings))
        tapped.apiQueue = a.queue
        let notices = NoticeLog(tapped)
        try kit.connect(tapped, a, token: try kit.token(sessionId, .publisher))
        let transport = try #require(tapLock.withLock { tap.value })
        #expect(transport.send("{\"type\":\"noSuchMessage\"}"))
        #expect(notices.wait { $0.contains { $0.kind == .routerError && $0.error.code == 1011 } }, "\(notices.all)")
        // Still connected and usable.
        try tapped.signal(type: "still", string: "here")
        #expect(a.wait { $0.contains { $0.hasPrefix("signal still") } })
        #expect(!a.calls.contains { $0.hasPrefix("didFail") }, "\(a.calls)")
        #expect(tapped.sessionConnectionStatus == .connected)
        _ = session
        tapped.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
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
        let notices = NoticeLog(session)
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
        _ = notices
    }
}
