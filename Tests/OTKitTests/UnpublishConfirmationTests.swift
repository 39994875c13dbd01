import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// `unpublish` is a request the router confirms: the publisher's `streamDestroyed`
/// follows the confirmation (or the session's end), exactly once; a publish cancelled
/// while pending and an unpublish made while reconnecting leave no stream on the router
/// (its REST stream list is read back).
@Suite(.serialized)
struct UnpublishConfirmationTests {
    static let project = ProjectCredentials(apiKey: "4781", apiSecret: "0123456789abcdef0123456789abcdef01234781")
    private let kit = SessionTestKit(project: Self.project)

    /// `unpublish` right after `publish` (its answer not back yet): the router ends with no
    /// stream, `await publish` throws `CancellationError`, and the publisher delegate gets
    /// `streamDestroyed` exactly once (no `streamCreated`: media never started).
    @Test func unpublishImmediatelyAfterPublish() throws { try AudioDeviceTestLock.run { try immediately() } }

    private func immediately() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let rest = RouterREST(router: router, project: Self.project)

        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let b = DelegateRecorder()
        let sessionB = try kit.makeSession(router, sessionId, b)
        try kit.connect(sessionB, b, token: try kit.token(sessionId, .subscriber))

        let settings = OTPublisherKitSettings()
        settings.videoCapture = TestPatternCapturer(width: 160, height: 120, fps: 15)
        let publisher = OTPublisherKit(delegate: a, settings: settings)
        // The session's work queue (which sends requests and handles answers) is held while
        // publish and unpublish are called: the unpublish surely comes before the answer.
        let hold = sessionA.holdWorkQueue()
        let publish = AsyncOutcome { try await sessionA.publish(publisher) }
        let deadline = Date().addingTimeInterval(10)
        while sessionA.lock.withLock({ sessionA.state.publisher !== publisher }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        try sessionA.unpublish(publisher)
        hold.signal()

        #expect(a.wait { $0.contains { $0.hasPrefix("publisher streamDestroyed") } }, "\(a.calls)")
        // The callback followed the router's confirmation: the stream is already gone there.
        #expect(try rest.streamIds(sessionId) == [])
        #expect(router.metrics.streams == 0)
        #expect(publish.wait() == "cancelled", "await publish ends (CancellationError) instead of hanging")
        Thread.sleep(forTimeInterval: 0.5)
        let publisherCalls = a.calls.filter { $0.hasPrefix("publisher") }
        #expect(publisherCalls.count == 1 && publisherCalls.first?.hasPrefix("publisher streamDestroyed ") == true,
                "exactly one streamDestroyed, no streamCreated: \(a.calls)")
        #expect(publisher.stream == nil && publisher.session == nil)
        #expect(sessionB.streams.isEmpty, "B saw the stream come and go: \(b.calls)")

        // The publisher is free again: it publishes normally afterwards.
        try sessionA.publish(publisher)
        #expect(a.wait { $0.contains { $0.hasPrefix("publisher streamCreated") } })
        #expect(try rest.streamIds(sessionId).count == 1)
        sessionA.disconnect()
        sessionB.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
        #expect(b.wait { $0.last == "didDisconnect" })
    }

    /// `unpublish` while reconnecting is not lost: it waits for the resume, the router
    /// removes the stream then, and `streamDestroyed` comes after that confirmation
    /// (not while the router still has the stream).
    @Test func unpublishWhileReconnecting() throws { try AudioDeviceTestLock.run { try whileReconnecting() } }

    private func whileReconnecting() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter(grace: 20, silence: 1.5)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let rest = RouterREST(router: router, project: Self.project)
        let cut = try CutPath(router)
        defer { cut.stop() }

        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a, via: cut, heartbeatTimeout: 1.5)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let (publisher, streamId) = try kit.publishPattern(sessionA, a, width: 160, height: 120, fps: 15)
        let b = DelegateRecorder()
        let sessionB = try kit.joinSeeing(streamId, router, sessionId, b)

        cut.setCut(true)
        #expect(a.wait { $0.contains("didBeginReconnecting") })
        try sessionA.unpublish(publisher)
        Thread.sleep(forTimeInterval: 1)
        #expect(!a.calls.contains { $0.hasPrefix("publisher streamDestroyed") }, "not before the router confirmed: \(a.calls)")
        #expect(try rest.streamIds(sessionId) == [streamId], "the router keeps the stream through A's grace period")

        cut.setCut(false)
        #expect(a.wait(20) { $0.contains("didReconnect") }, "\(a.calls)")
        #expect(a.wait { $0.contains("publisher streamDestroyed \(streamId)") }, "\(a.calls)")
        #expect(try rest.streamIds(sessionId) == [], "no orphan stream on the router")
        #expect(b.wait { $0.contains("streamDestroyed \(streamId)") }, "\(b.calls)")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(a.calls.filter { !$0.hasPrefix("connectionCreated") } == [
            "didConnect", "publisher streamCreated \(streamId)", "didBeginReconnecting", "didReconnect",
            "publisher streamDestroyed \(streamId)"])
        sessionA.disconnect()
        sessionB.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
        #expect(b.wait { $0.last == "didDisconnect" })
    }

    /// An unpublish still waiting when the session is lost is settled by the loss: one
    /// `streamDestroyed`, in the reference's order (`didFailWithError`, the publisher's
    /// `streamDestroyed`, `sessionDidDisconnect`); the router drops the stream with the
    /// connection.
    @Test func streamDestroyedExactlyOnceWhenTheSessionIsLostFirst() throws { try AudioDeviceTestLock.run { try lostFirst() } }

    private func lostFirst() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter(grace: 3, silence: 1)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let rest = RouterREST(router: router, project: Self.project)
        let cut = try CutPath(router)
        defer { cut.stop() }

        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a, via: cut, heartbeatTimeout: 1)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let (publisher, streamId) = try kit.publishAudioOnly(sessionA, a)

        cut.setCut(true)
        #expect(a.wait { $0.contains("didBeginReconnecting") })
        try sessionA.unpublish(publisher)
        #expect(a.wait(30) { $0.last == "didDisconnect" }, "\(a.calls)")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(a.calls == ["didConnect", "publisher streamCreated \(streamId)", "didBeginReconnecting", "didFail 1022",
                            "publisher streamDestroyed \(streamId)", "didDisconnect"])
        let gone = Date().addingTimeInterval(15)
        while (try? rest.streamIds(sessionId))?.isEmpty != true && Date() < gone { Thread.sleep(forTimeInterval: 0.1) }
        #expect(try rest.streamIds(sessionId) == [], "the router dropped the stream with A's connection")
    }

    /// The async forms return once the router confirmed: at the moment `await unsubscribe`
    /// returns the router has no subscription left, at the moment `await unpublish`
    /// returns it lists no stream; their synchronous refusals are thrown.
    @Test func awaitUnpublishAndUnsubscribeReturnOnceTheRouterConfirmed() throws { try AudioDeviceTestLock.run { try awaited() } }

    private func awaited() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let rest = RouterREST(router: router, project: Self.project)
        let a = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, a)
        try kit.connect(session, a, token: try kit.token(sessionId, .publisher))
        let (publisher, streamId) = try kit.publishPattern(session, a, width: 160, height: 120, fps: 15)
        let (subscriber, _) = try kit.subscribeReadingFrameNumbers(session, a, try #require(publisher.stream))
        #expect(router.metrics.subscribers == 1)

        let unsubscribed = AsyncOutcome {
            try await session.unsubscribe(subscriber)
            guard router.metrics.subscribers == 0 else { throw RouterError("returned with the subscription still on the router") }
        }
        #expect(unsubscribed.wait() == "returned")
        let again = AsyncOutcome { try await session.unsubscribe(subscriber) }
        #expect(again.wait()?.contains("1112") == true, "\(again.current ?? "pending")")

        let unpublished = AsyncOutcome {
            try await session.unpublish(publisher)
            guard try rest.streamIds(sessionId).isEmpty else { throw RouterError("returned with the stream still on the router") }
        }
        #expect(unpublished.wait() == "returned")
        #expect(a.wait { $0.contains("publisher streamDestroyed \(streamId)") })
        let stranger = AsyncOutcome { try await session.unpublish(publisher) }
        #expect(stranger.wait()?.contains("1113") == true, "\(stranger.current ?? "pending")")
        session.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
    }
}
