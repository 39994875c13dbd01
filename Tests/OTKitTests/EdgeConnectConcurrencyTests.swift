import Foundation
import OTMedia
@testable import OTRouter
import OTSignaling
import Synchronization
import Testing
@testable import OTKit

/// An edge leg's ICE + DTLS (up to 10 s) no longer holds up its session: while one
/// subscriber's connect is stalled (its leg points at a socket that never answers a
/// check), events, signals and another subscriber's whole connect go through, all before
/// the stalled one gives up.
@Suite(.serialized)
struct EdgeConnectConcurrencyTests {
    @Test func aStalledEdgeConnectLetsSignalsAndAnotherSubscriberThrough() throws {
        let side = try EdgeLegTests.EdgeSide()
        defer { side.edge.stop() }
        let silent = try UDPSocket(bindingTo: .ipv4Loopback())
        defer { silent.close() }
        let nobody = try DTLSCertificate(commonName: "nobody")
        let router = ScriptedRouter()
        router.otherConnections = [WireConnection(connectionId: "alice", creationTime: 1, data: nil)]
        router.otherStreams = ["alice-cam", "bob-cam"].map {
            WireStream(streamId: $0, connectionId: "alice", name: $0, hasAudio: false, hasVideo: true, videoWidth: 320,
                       videoHeight: 240, videoType: "camera", creationTime: 3)
        }
        let silentPort = Int(silent.localAddress.port)
        router.subscribeMediaFor = { request in
            guard request.streamId == "alice-cam" else { return side.leg(for: request.transport, videoSSRC: 4444) }
            return Self.silentLeg(port: silentPort, videoSSRC: 4444, certificate: nobody)
        }
        let recorder = DelegateRecorder()
        let session = try Self.connectedSession(router, recorder)

        let alice = try #require(session.streams["alice-cam"])
        let stalled = try #require(OTSubscriber(stream: alice, delegate: recorder))
        try session.subscribe(stalled)
        // The stalled leg's connect is under way once its first check reaches the silent socket.
        #expect(try silent.waitUntilReadable(timeoutNanoseconds: 5_000_000_000), "the client never started checking")

        // An event from the router and a signal's round trip, while that connect runs.
        router.push(.signal(type: "chat", data: "during", from: "alice"))
        #expect(recorder.wait(8) { $0.contains("signal chat from alice: during") }, "\(recorder.calls)")
        let answered = Mutex<OTError??>(nil)
        try session.signal(type: "ping", string: "x", completion: { error in answered.withLock { $0 = .some(error) } })
        #expect(recorder.wait(8) { _ in answered.withLock { $0 } != nil })
        #expect(answered.withLock { $0 } == .some(nil), "the router accepted the signal")

        // Another subscriber connects end to end (ICE + DTLS with the edge) meanwhile.
        let bob = try #require(session.streams["bob-cam"])
        let other = try #require(OTSubscriber(stream: bob, delegate: recorder))
        try session.subscribe(other)
        #expect(recorder.wait(8) { $0.contains("subscriber connected") }, "\(recorder.calls)")
        #expect(other.pipeline != nil && stalled.pipeline == nil)
        #expect(!recorder.calls.contains { $0.hasPrefix("subscriber didFail") },
                "all of it came before the stalled connect gave up: \(recorder.calls)")
        #expect(recorder.calls.filter { $0 == "subscriber connected" }.count == 1)

        // Unsubscribed while connecting: when its connect ends nothing starts and nothing is reported.
        try session.unsubscribe(stalled)
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
        #expect(stalled.pipeline == nil)
    }

    /// A publisher unpublished while its edge leg connects ends like a publish cancelled
    /// before its answer: the router is asked to remove the stream, `streamDestroyed`
    /// follows its answer, `streamCreated` never comes and no media starts.
    @Test func unpublishingWhileTheEdgeLegConnectsEndsThePublishWithoutMedia() throws {
        let silent = try UDPSocket(bindingTo: .ipv4Loopback())
        defer { silent.close() }
        let nobody = try DTLSCertificate(commonName: "nobody")
        let router = ScriptedRouter()
        let silentPort = Int(silent.localAddress.port)
        router.publishMediaFor = { _ in Self.silentLeg(port: silentPort, videoSSRC: 1111, certificate: nobody) }
        let recorder = DelegateRecorder()
        let session = try Self.connectedSession(router, recorder)
        let publisherSettings = OTPublisherKitSettings()
        publisherSettings.videoCapture = TestPatternCapturer(width: 320, height: 240, fps: 15)
        publisherSettings.audioTrack = false
        let publisher = OTPublisherKit(delegate: recorder, settings: publisherSettings)
        try session.publish(publisher)
        #expect(try silent.waitUntilReadable(timeoutNanoseconds: 5_000_000_000), "the client never started checking")

        try session.unpublish(publisher)
        #expect(recorder.wait(8) { $0.contains("publisher streamDestroyed own-stream") }, "\(recorder.calls)")
        #expect(router.messages.contains(.unpublish(streamId: "own-stream")))
        #expect(!recorder.calls.contains { $0.hasPrefix("publisher streamCreated") || $0.hasPrefix("publisher didFail") },
                "\(recorder.calls)")
        #expect(publisher.pipeline == nil && publisher.stream == nil)
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
    }

    /// An edge leg on `port`, where nobody answers ICE: the client checks until its 10 s
    /// run out. Fresh router credentials, `certificate`'s fingerprint.
    static func silentLeg(port: Int, videoSSRC: UInt32, certificate: DTLSCertificate) -> WireMediaLeg {
        var leg = WireMediaLeg(host: "127.0.0.1", port: port, profile: "", clientKey: "", routerKey: "",
                               audioSSRC: nil, videoSSRC: videoSSRC)
        let credentials = ICECredentials.generate()
        leg.transport = WireTransport(iceUfrag: credentials.ufrag, icePassword: credentials.password,
                                      fingerprint: certificate.fingerprint.sdpValue)
        return leg
    }

    /// A session on the scripted `router`, connected, its delegate calls on `recorder`.
    static func connectedSession(_ router: ScriptedRouter, _ recorder: DelegateRecorder,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws -> OTSession {
        let settings = OTSessionSettings()
        settings.transportFactory = router.factory()
        let session = try #require(OTSession(apiKey: "123", sessionId: "1_s", delegate: recorder, settings: settings),
                                   sourceLocation: sourceLocation)
        session.apiQueue = recorder.queue
        try session.connect(withToken: "T1==t")
        #expect(recorder.wait { $0.contains("didConnect") }, sourceLocation: sourceLocation)
        return session
    }
}
