import Foundation
import OTMedia
import OTRouter
import OTSignaling
import Synchronization
import Testing
@testable import OTKit

/// ICE consent (RFC 7675) lost and regained on a client's edge leg, told to the app: a
/// subscriber hears `subscriberDidDisconnect(fromStream:)` then
/// `subscriberDidReconnect(toStream:)`, a publisher the `publisherMediaInterrupted` /
/// `publisherMediaResumed` notices. The leg's media goes through a proxy the test
/// black-holes (signaling is untouched), and the session's consent timing is shortened
/// (checks every 100 ms, consent lost after 1 s) so no 30 s wait is needed.
@Suite(.serialized)
struct EdgeConsentEventsTests {
    static let project = ProjectCredentials(apiKey: "4717", apiSecret: "0123456789abcdef0123456789abcdef01234717")
    private let kit = SessionTestKit(project: Self.project)

    /// The session's delegate: its calls go to a `DelegateRecorder`, its notices
    /// (`OTSessionNoticeDelegate`, on `apiQueue`) into a list. (Not `session.notices`: its
    /// consumer task can starve while parallel tests block the cooperative threads.)
    final class NoticeLog: OTSessionDelegate, OTSessionNoticeDelegate, @unchecked Sendable {
        let recorder: DelegateRecorder
        let notices = Mutex<[OTSessionNotice]>([])

        init(_ recorder: DelegateRecorder) { self.recorder = recorder }

        var kinds: [OTSessionNotice.Kind] { notices.withLock { $0.map(\.kind) } }

        func sessionDidConnect(_ session: OTSession) { recorder.sessionDidConnect(session) }
        func sessionDidDisconnect(_ session: OTSession) { recorder.sessionDidDisconnect(session) }
        func session(_ session: OTSession, didFailWithError error: OTError) { recorder.session(session, didFailWithError: error) }
        func session(_ session: OTSession, streamCreated stream: OTStream) { recorder.session(session, streamCreated: stream) }
        func session(_ session: OTSession, streamDestroyed stream: OTStream) { recorder.session(session, streamDestroyed: stream) }
        func session(_ session: OTSession, otkitNotice notice: OTSessionNotice) { notices.withLock { $0.append(notice) } }
    }

    private func session(_ router: Router, _ sessionId: String, _ recorder: DelegateRecorder, media: MediaProxies?,
                         delegate: (any OTSessionDelegate)? = nil) throws -> OTSession {
        let settings = OTSessionSettings()
        settings.routerURL = router.baseURL
        if let media {
            settings.mediaAddressRewrite = { host, port in media.route(host, port) }
            settings.consentTiming = ICEConsentKeeper.Timing(interval: 100_000_000, jitter: 0.2, timeout: 1_000_000_000)
        }
        let session = try #require(OTSession(apiKey: Self.project.apiKey, sessionId: sessionId, delegate: delegate ?? recorder,
                                             settings: settings))
        session.apiQueue = recorder.queue
        return session
    }

    private func publishVideo(_ session: OTSession, _ recorder: DelegateRecorder) throws -> OTPublisherKit {
        let settings = OTPublisherKitSettings()
        settings.videoCapture = TestPatternCapturer(width: 320, height: 240, fps: 15)
        settings.audioTrack = false
        let publisher = OTPublisherKit(delegate: recorder, settings: settings)
        try session.publish(publisher)
        #expect(recorder.wait { $0.contains { $0.hasPrefix("publisher streamCreated") } })
        return publisher
    }

    @Test func aSubscriberWhoseLegLosesConsentHearsDisconnectThenReconnect() throws {
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = DelegateRecorder()
        let owner = try session(router, sessionId, a, media: nil)
        try kit.connect(owner, a, token: try kit.token(sessionId, .publisher))
        _ = try publishVideo(owner, a)

        let proxies = MediaProxies()
        defer { proxies.stop() }
        let b = DelegateRecorder()
        let watcher = try session(router, sessionId, b, media: proxies)
        try kit.connect(watcher, b, token: try kit.token(sessionId, .subscriber))
        #expect(b.wait { $0.contains { $0.hasPrefix("streamCreated ") } })
        let stream = try #require(watcher.streams.values.first)
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: b))
        try watcher.subscribe(subscriber)
        #expect(b.wait { $0.contains("subscriber connected") })
        Thread.sleep(forTimeInterval: 1.5)  // longer than the consent timeout: answered checks keep it
        #expect(!b.calls.contains("subscriber disconnected"), "\(b.calls)")
        #expect(subscriber.pipeline?.consent?.successes ?? 0 > 5)

        proxies.setBlackhole(true)
        #expect(b.wait { $0.contains("subscriber disconnected") }, "\(b.calls)")
        #expect(subscriber.pipeline?.consent?.isConsentLost == true)
        proxies.setBlackhole(false)
        #expect(b.wait { $0.contains("subscriber reconnected") }, "\(b.calls)")
        #expect(subscriber.pipeline?.consent?.isConsentLost == false)
        let events = b.calls.filter { $0 == "subscriber disconnected" || $0 == "subscriber reconnected" }
        #expect(events == ["subscriber disconnected", "subscriber reconnected"])
        #expect(watcher.sessionConnectionStatus == .connected && !b.calls.contains { $0.contains("didFail") },
                "only the media path was cut: \(b.calls)")
        owner.disconnect()
        watcher.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" } && b.wait { $0.last == "didDisconnect" })
    }

    @Test func aPublisherWhoseLegLosesConsentGetsInterruptedThenResumedNotices() throws {
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let proxies = MediaProxies()
        defer { proxies.stop() }
        let a = DelegateRecorder()
        let log = NoticeLog(a)
        let owner = try session(router, sessionId, a, media: proxies, delegate: log)
        try kit.connect(owner, a, token: try kit.token(sessionId, .publisher))
        let publisher = try publishVideo(owner, a)
        Thread.sleep(forTimeInterval: 1.5)
        #expect(log.kinds.isEmpty, "\(log.kinds)")

        proxies.setBlackhole(true)
        #expect(a.wait { _ in log.kinds.contains(.publisherMediaInterrupted) }, "\(log.kinds)")
        let interrupted = try #require(log.notices.withLock { $0.first { $0.kind == .publisherMediaInterrupted } })
        #expect(interrupted.error.domain == .publisher && interrupted.error.code == 1610)
        proxies.setBlackhole(false)
        #expect(a.wait { _ in log.kinds.contains(.publisherMediaResumed) }, "\(log.kinds)")
        #expect(log.kinds == [.publisherMediaInterrupted, .publisherMediaResumed])
        #expect(publisher.stream != nil && !a.calls.contains { $0.contains("didFail") }, "the publisher stays published: \(a.calls)")
        owner.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
    }
}
