import Foundation
import OTMedia
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// The router's edge ends a leg whose DTLS handshake fails (here: the client announced a
/// certificate fingerprint that is not its own, so the router's check fails once the
/// handshake is done, when the client already thinks it connected): signaling hears of it
/// and the owner gets OpenTok's WebRTC error, the others `streamDestroyed`.
@Suite(.serialized)
struct EdgeLegEndingTests {
    static let project = ProjectCredentials(apiKey: "4716", apiSecret: "0123456789abcdef0123456789abcdef01234716")
    private let kit = SessionTestKit(project: Self.project)

    /// A signaling transport that replaces the fingerprint of every publish (or subscribe)
    /// request with an impostor's, as a client whose announced certificate is not the one
    /// it handshakes with.
    final class FingerprintSwap: SignalingTransport, @unchecked Sendable {
        let inner: any SignalingTransport
        let fingerprint: String
        let publishes: Bool

        init(inner: any SignalingTransport, fingerprint: String, publishes: Bool) {
            self.inner = inner
            self.fingerprint = fingerprint
            self.publishes = publishes
        }

        static func factory(fingerprint: String, publishes: Bool) -> SignalingTransportFactory {
            { url, allowSelfSigned, handlers throws(OTError) in
                let inner = try WebSocketSignalingTransport.factory(url, allowSelfSigned, handlers)
                return FingerprintSwap(inner: inner, fingerprint: fingerprint, publishes: publishes)
            }
        }

        func send(_ text: String) -> Bool {
            guard let (message, requestId) = try? SignalingCodec.decodeClientMessage(text) else { return inner.send(text) }
            switch message {
            case .publish(var request) where publishes && request.transport != nil:
                request.transport!.fingerprint = fingerprint
                return inner.send(SignalingCodec.encode(.publish(request), requestId: requestId))
            case .subscribe(var request) where !publishes && request.transport != nil:
                request.transport!.fingerprint = fingerprint
                return inner.send(SignalingCodec.encode(.subscribe(request), requestId: requestId))
            default:
                return inner.send(text)
            }
        }

        func close() { inner.close() }
    }

    private func session(_ router: Router, _ sessionId: String, _ recorder: DelegateRecorder,
                         swapping publishes: Bool? = nil) throws -> OTSession {
        let settings = OTSessionSettings()
        settings.routerURL = router.baseURL
        if let publishes {
            let impostor = try DTLSCertificate(commonName: "impostor")
            settings.transportFactory = FingerprintSwap.factory(fingerprint: impostor.fingerprint.sdpValue, publishes: publishes)
        }
        let session = try #require(OTSession(apiKey: Self.project.apiKey, sessionId: sessionId, delegate: recorder, settings: settings))
        session.apiQueue = recorder.queue
        return session
    }

    private func videoOnly(_ recorder: DelegateRecorder) -> OTPublisherKit {
        let settings = OTPublisherKitSettings()
        settings.videoCapture = TestPatternCapturer(width: 320, height: 240, fps: 15)
        settings.audioTrack = false
        return OTPublisherKit(delegate: recorder, settings: settings)
    }

    /// A publisher leg the router ends: the publisher gets `didFailWithError` 1610 (then
    /// `streamDestroyed` for the stream it was told of), a watcher `streamDestroyed`, and
    /// the router holds no stream any more.
    @Test func aPublisherLegTheRouterEndsFailsThePublisherAndDestroysTheStream() throws {
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let b = DelegateRecorder()
        let watcher = try session(router, sessionId, b)
        try kit.connect(watcher, b, token: try kit.token(sessionId, .subscriber))
        let a = DelegateRecorder()
        let owner = try session(router, sessionId, a, swapping: true)
        try kit.connect(owner, a, token: try kit.token(sessionId, .publisher))

        try owner.publish(videoOnly(a))
        #expect(a.wait { $0.contains("publisher didFail 1610") }, "\(a.calls)")
        let error = try #require(a.lastErrors.last)
        #expect(error.domain == .publisher && error.message.contains("DTLS"), "\(error.message)")
        #expect(b.wait { calls in calls.contains { $0.hasPrefix("streamDestroyed ") } }, "\(b.calls)")
        #expect(router.metrics.streams == 0)
        // The publisher's own calls: the failure first, then the end of a stream it was told of.
        let own = a.calls.filter { $0.hasPrefix("publisher ") }
        if own.contains(where: { $0.hasPrefix("publisher streamCreated") }) {
            #expect(own.suffix(2).map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == ["publisher didFail", "publisher streamDestroyed"], "\(own)")
        }
        #expect(owner.sessionConnectionStatus == .connected, "a failed leg ends nothing else")
        owner.disconnect()
        watcher.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" } && b.wait { $0.last == "didDisconnect" })
    }

    /// A subscriber leg the router ends: the subscriber gets `didFailWithError` 1600, the
    /// router drops the subscription, and the stream goes on for its publisher.
    @Test func aSubscriberLegTheRouterEndsFailsTheSubscriberOnly() throws {
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = DelegateRecorder()
        let owner = try session(router, sessionId, a)
        try kit.connect(owner, a, token: try kit.token(sessionId, .publisher))
        try owner.publish(videoOnly(a))
        #expect(a.wait { $0.contains { $0.hasPrefix("publisher streamCreated") } })

        let b = DelegateRecorder()
        let watcher = try session(router, sessionId, b, swapping: false)
        try kit.connect(watcher, b, token: try kit.token(sessionId, .subscriber))
        #expect(b.wait { $0.contains { $0.hasPrefix("streamCreated ") } })
        let stream = try #require(watcher.streams.values.first)
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: b))
        try watcher.subscribe(subscriber)
        #expect(b.wait { $0.contains("subscriber didFail 1600") }, "\(b.calls)")
        let error = try #require(b.lastErrors.last)
        #expect(error.domain == .subscriber && error.message.contains("DTLS"), "\(error.message)")
        #expect(poll(5) { router.metrics.subscribers == 0 }, "the router dropped the subscription")
        #expect(router.metrics.streams == 1 && !a.calls.contains { $0.contains("didFail") }, "\(a.calls)")
        #expect(!b.calls.contains { $0.hasPrefix("streamDestroyed") })
        owner.disconnect()
        watcher.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" } && b.wait { $0.last == "didDisconnect" })
    }
}
