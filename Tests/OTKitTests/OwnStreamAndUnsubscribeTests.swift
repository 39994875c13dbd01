import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import Synchronization
import Testing
@testable import OTKit

/// Subscribing to your own stream (the publishing guide's "test a publisher's stream")
/// through the router, its refusal in relayed sessions, and an `unsubscribe` made before
/// the router answered the subscribe.
@Suite(.serialized)
struct OwnStreamAndUnsubscribeTests {
    static let project = ProjectCredentials(apiKey: "4782", apiSecret: "0123456789abcdef0123456789abcdef01234782")
    private let kit = SessionTestKit(project: Self.project)

    /// Every subscriber video-stats delivery.
    final class VideoStatsLog: OTSubscriberKitNetworkStatsDelegate, @unchecked Sendable {
        let video = Mutex<[OTSubscriberKitVideoNetworkStats]>([])
        func subscriber(_ subscriber: OTSubscriberKit, videoNetworkStatsUpdated stats: OTSubscriberKitVideoNetworkStats) {
            video.withLock { $0.append(stats) }
        }
    }

    /// A client subscribes to its own stream in a routed session: the media makes the
    /// round trip through the router (which counts the subscription), at least 95 % of
    /// the frames the publisher encoded meanwhile are decoded, and the subscriber's
    /// network-stats delegate reports what arrived.
    @Test func ownStreamSubscribeDecodesAtLeast95Percent() throws { try AudioDeviceTestLock.run { try ownStream() } }

    private func ownStream() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, a)
        try kit.connect(session, a, token: try kit.token(sessionId, .publisher))
        let (publisher, streamId) = try kit.publishPattern(session, a, width: 320, height: 240, fps: 30)
        let stream = try #require(publisher.stream)
        #expect(session.streams.isEmpty, "the own stream stays out of `streams`, as the reference says")

        let subscriber = try #require(OTSubscriber(stream: stream, delegate: a))
        let render = FrameNumberRender()
        subscriber.videoRender = render
        let stats = VideoStatsLog()
        subscriber.networkStatsDelegate = stats
        try session.subscribe(subscriber)
        #expect(a.wait { $0.contains("subscriber connected") }, "\(a.calls)")
        #expect(router.metrics.subscribers == 1, "the subscription is the router's: the real network path")
        #expect(a.wait(20) { _ in render.seen.count >= 30 }, "frames come back")

        // A window of steady streaming, closed by stopping video at the encoder and letting
        // what is in flight arrive.
        let encodedBefore = try #require(publisher.counters).video.frames
        let decodedBefore = render.seen.count
        Thread.sleep(forTimeInterval: 4)
        publisher.publishVideo = false
        Thread.sleep(forTimeInterval: 1)
        let encoded = try #require(publisher.counters).video.frames - encodedBefore
        let decoded = render.seen.count - decodedBefore
        #expect(encoded >= 60, "the publisher kept encoding (\(encoded) frames)")
        #expect(Double(decoded) >= 0.95 * Double(encoded), "decoded \(decoded) of \(encoded) frames sent")
        let numbers = render.seen
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "frame numbers increase")

        let reports = stats.video.withLock { $0 }
        #expect(reports.count >= 2, "the network-stats delegate reports every tick")
        #expect((reports.last?.videoPacketsReceived ?? 0) > 0 && (reports.last?.videoBytesReceived ?? 0) > 0)
        #expect(!a.calls.contains { $0.hasPrefix("subscriber didFail") || $0.hasPrefix("didFail") }, "\(a.calls)")

        // Unpublishing ends the own subscription too (the router removed its leg).
        try session.unpublish(publisher)
        #expect(a.wait { $0.contains("publisher streamDestroyed \(streamId)") })
        #expect(subscriber.session == nil)
        #expect(router.metrics.subscribers == 0)
        session.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
    }

    /// In a relayed session your own stream has no media router to come back through:
    /// OTKit refuses it synchronously and the router refuses it on the wire, both with
    /// the subscriber error 1604, while another client's subscribe to the same stream works.
    @Test func relayedOwnStreamIsRefusedWith1604() throws { try AudioDeviceTestLock.run { try relayedRefusal() } }

    private func relayedRefusal() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey, relayed: true)

        let a = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, a)
        try kit.connect(session, a, token: try kit.token(sessionId, .publisher))
        let (publisher, streamId) = try kit.publishAudioOnly(session, a)
        let ownStream = try #require(publisher.stream)
        let subscriber = try #require(OTSubscriber(stream: ownStream, delegate: a))
        do {
            try session.subscribe(subscriber)
            Issue.record("subscribing to the own stream of a relayed session was accepted")
        } catch {
            #expect(error.code == 1604 && error.domain == .subscriber)
            #expect(error.message.contains("relayed"), "the message says why: \(error.message)")
        }

        // On the wire: a client that asks anyway is refused by the router.
        let raw = try RawSignalingClient(url: router.signalingURL(sessionId: sessionId))
        defer { raw.close() }
        Thread.sleep(forTimeInterval: 0.3)
        guard case .connected = raw.request(.connect(ConnectRequest(apiKey: Self.project.apiKey, token: try kit.token(sessionId, .publisher)))) else {
            Issue.record("the raw client could not connect")
            return
        }
        let announce = PublishRequest(name: "raw", hasAudio: true, hasVideo: false, audioTrack: true, videoTrack: false,
                                      videoWidth: 0, videoHeight: 0, videoType: "custom")
        guard case .published(let published) = raw.request(.publish(announce)) else {
            Issue.record("the raw client could not publish")
            return
        }
        let own = raw.request(.subscribe(SubscribeRequest(streamId: published.stream.streamId)))
        guard case .error(let refusal) = own else {
            Issue.record("the router answered \(String(describing: own)) to a relayed own-stream subscribe")
            return
        }
        #expect(refusal.code == 1604 && refusal.message.contains("relayed"))
        // Someone else's stream in the same session is fine.
        guard case .subscribed = raw.request(.subscribe(SubscribeRequest(streamId: streamId))) else {
            Issue.record("the router refused another client's stream")
            return
        }
        session.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
    }

    /// `unsubscribe` before the router answered the subscribe: the answer starts no media
    /// and fires no `subscriberDidConnectToStream`, `await subscribe` throws
    /// `CancellationError`, and the router's subscription is removed.
    @Test func unsubscribeBeforeSubscribed() throws { try AudioDeviceTestLock.run { try beforeSubscribed() } }

    private func beforeSubscribed() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let (_, streamId) = try kit.publishPattern(sessionA, a, width: 160, height: 120, fps: 30)

        let b = DelegateRecorder()
        let sessionB = try kit.joinSeeing(streamId, router, sessionId, b)
        let streamB = try #require(sessionB.streams[streamId])
        let subscriber = try #require(OTSubscriber(stream: streamB, delegate: b))
        let render = FrameNumberRender()
        subscriber.videoRender = render
        // The work queue is held while subscribe and unsubscribe are called: the unsubscribe
        // surely comes before the router's answer.
        let hold = sessionB.holdWorkQueue()
        let subscribe = AsyncOutcome { try await sessionB.subscribe(subscriber) }
        let deadline = Date().addingTimeInterval(10)
        while !sessionB.lock.withLock({ sessionB.state.subscribers.contains { $0 === subscriber } }) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.001)
        }
        try sessionB.unsubscribe(subscriber)
        hold.signal()

        // The router's answer came (and was turned into an unsubscribe).
        #expect(subscribe.wait() == "cancelled", "\(b.calls)")
        let gone = Date().addingTimeInterval(10)
        while router.metrics.subscribers != 0 && Date() < gone { Thread.sleep(forTimeInterval: 0.05) }
        #expect(router.metrics.subscribers == 0, "no subscription left on the router")
        Thread.sleep(forTimeInterval: 1)
        #expect(render.seen.isEmpty && render.unreadableFrames == 0, "no media started")
        #expect(!b.calls.contains("subscriber connected"), "\(b.calls)")
        #expect(subscriber.session == nil)

        sessionA.disconnect()
        sessionB.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
        #expect(b.wait { $0.last == "didDisconnect" })
    }

    /// `unsubscribe` while reconnecting is not lost: the router keeps the subscription
    /// through the grace period and removes it once the session resumed.
    @Test func unsubscribeWhileReconnecting() throws { try AudioDeviceTestLock.run { try whileReconnecting() } }

    private func whileReconnecting() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter(grace: 20, silence: 1.5)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let (_, streamId) = try kit.publishPattern(sessionA, a, width: 160, height: 120, fps: 15)

        let cut = try CutPath(router)
        defer { cut.stop() }
        let b = DelegateRecorder()
        let sessionB = try kit.makeSession(router, sessionId, b, via: cut, heartbeatTimeout: 1.5)
        try kit.connect(sessionB, b, token: try kit.token(sessionId, .subscriber))
        #expect(b.wait { $0.contains("streamCreated \(streamId)") })
        let (subscriber, render) = try kit.subscribeReadingFrameNumbers(sessionB, b, try #require(sessionB.streams[streamId]))
        #expect(b.wait(20) { _ in render.seen.count >= 5 })
        #expect(router.metrics.subscribers == 1)

        cut.setCut(true)
        #expect(b.wait { $0.contains("didBeginReconnecting") })
        try sessionB.unsubscribe(subscriber)
        Thread.sleep(forTimeInterval: 1)
        #expect(router.metrics.subscribers == 1, "the router keeps B's subscription through the grace period")
        cut.setCut(false)
        #expect(b.wait(20) { $0.contains("didReconnect") }, "\(b.calls)")
        let gone = Date().addingTimeInterval(10)
        while router.metrics.subscribers != 0 && Date() < gone { Thread.sleep(forTimeInterval: 0.05) }
        #expect(router.metrics.subscribers == 0, "the unsubscribe reached the router after the resume")
        let seen = render.seen.count
        Thread.sleep(forTimeInterval: 0.5)
        #expect(render.seen.count == seen, "no media after unsubscribe")
        #expect(subscriber.session == nil)

        sessionA.disconnect()
        sessionB.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
        #expect(b.wait { $0.last == "didDisconnect" })
    }
}
