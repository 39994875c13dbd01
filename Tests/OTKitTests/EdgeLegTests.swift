import Foundation
import OTMedia
@testable import OTRouter
import OTSignaling
import Synchronization
import Testing
@testable import OTKit

/// Routed publishers and subscribers on the router's one-port edge: the request carries
/// the client's ICE credentials and certificate fingerprint, the (scripted) router
/// registers them with a real `MediaEdge` and answers with the edge's address, ufrag,
/// password and fingerprint; OTKit runs ICE and DTLS itself and media flows on the keys
/// of the handshake. No key in any signaling message.
@Suite(.serialized)
struct EdgeLegTests {
    /// The router's side: a real edge, a leg per request, RTP counted per leg.
    final class EdgeSide: Sendable {
        /// RTP packets per leg, filled on the edge's worker thread.
        final class Counts: Sendable {
            let values = Mutex<[EdgeLegID: Int]>([:])
        }

        let edge: MediaEdge
        let packets = Counts()
        let legs = Mutex<[EdgeLegID]>([])
        /// Announce this fingerprint instead of the edge's (an impostor's).
        let announced: DTLSFingerprint?

        init(announcing fingerprint: DTLSFingerprint? = nil) throws {
            announced = fingerprint
            let packets = self.packets
            edge = try MediaEdge(configuration: MediaEdgeConfiguration(workerCount: 1)) { leg, _, isRTCP in
                if !isRTCP { packets.values.withLock { $0[leg, default: 0] += 1 } }
            }
        }

        /// Registers the client's `transport` and returns the edge leg for it (nil when
        /// the request carried none: the test then fails on the missing leg).
        func leg(for transport: WireTransport?, videoSSRC: UInt32?) -> WireMediaLeg? {
            guard let transport, let sdp = try? SDPFingerprint(sdpValue: Substring(transport.fingerprint)),
                  let fingerprint = try? DTLSFingerprint(sdp: sdp) else { return nil }
            let local = ICECredentials.generate()
            let id = legs.withLock { legs -> EdgeLegID in
                legs.append(EdgeLegID(UInt64(legs.count + 1)))
                return legs.last!
            }
            guard let description = try? EdgeLegDescription(local: local, remoteUfrag: transport.iceUfrag,
                                                            remotePassword: transport.icePassword, remoteFingerprint: fingerprint),
                  (try? edge.register(id, description)) != nil else { return nil }
            var leg = WireMediaLeg(host: "127.0.0.1", port: Int(edge.localAddress.port), profile: "", clientKey: "", routerKey: "",
                                   audioSSRC: nil, videoSSRC: videoSSRC)
            leg.transport = WireTransport(iceUfrag: local.ufrag, icePassword: local.password,
                                          fingerprint: (announced ?? edge.fingerprint).sdpValue)
            return leg
        }

        func received(_ id: EdgeLegID) -> Int { packets.values.withLock { $0[id] ?? 0 } }
    }

    /// A connected session whose scripted router hands out edge legs.
    struct Harness {
        let router = ScriptedRouter()
        let recorder = DelegateRecorder()
        let session: OTSession
        let side: EdgeSide

        init(side: EdgeSide, relayed: Bool = false) throws {
            self.side = side
            router.relayed = relayed
            router.otherConnections = [WireConnection(connectionId: "alice", creationTime: 1, data: nil)]
            router.otherStreams = [WireStream(streamId: "alice-cam", connectionId: "alice", name: "A", hasAudio: false, hasVideo: true,
                                              videoWidth: 320, videoHeight: 240, videoType: "camera", creationTime: 3)]
            router.publishMediaFor = { side.leg(for: $0.transport, videoSSRC: 1111) }
            router.subscribeMediaFor = { side.leg(for: $0.transport, videoSSRC: 4444) }
            let settings = OTSessionSettings()
            settings.transportFactory = router.factory()
            let session = try #require(OTSession(apiKey: "123", sessionId: "1_s", delegate: recorder, settings: settings))
            self.session = session
            session.apiQueue = recorder.queue
            try session.connect(withToken: "T1==t")
            #expect(recorder.wait { $0.contains("didConnect") })
            // The tests look the stream up: wait until it is there (it failed once under load).
            #expect(recorder.wait { $0.contains("streamCreated alice-cam") })
        }

        func videoOnlyPublisher() -> OTPublisherKit {
            let settings = OTPublisherKitSettings()
            settings.videoCapture = TestPatternCapturer(width: 320, height: 240, fps: 30)
            settings.audioTrack = false
            return OTPublisherKit(delegate: recorder, settings: settings)
        }

        func finish() {
            session.disconnect()
            #expect(recorder.wait { $0.last == "didDisconnect" })
            side.edge.stop()
        }
    }

    @Test func aRoutedPublisherConnectsToTheEdgeAndItsMediaArrives() throws {
        let harness = try Harness(side: EdgeSide())
        let publisher = harness.videoOnlyPublisher()
        try harness.session.publish(publisher)
        #expect(harness.recorder.wait { $0.contains("publisher streamCreated own-stream") })
        let request = try #require(harness.router.messages.compactMap { if case .publish(let r) = $0 { r } else { nil } }.first)
        let transport = try #require(request.transport)
        #expect(transport.fingerprint.hasPrefix("sha-256 ") && transport.fingerprint.count == 8 + 32 * 3 - 1)
        #expect(ICECredentials.isValid(transport.iceUfrag, minimum: 4) && ICECredentials.isValid(transport.icePassword, minimum: 22))
        let id = EdgeLegID(1)
        #expect(harness.side.edge.isConnected(id))
        #expect(harness.recorder.wait { _ in harness.side.received(id) >= 20 })
        #expect(harness.side.edge.counters.srtpAuthFailures == 0)
        let pipeline = try #require(publisher.pipeline)
        #expect(pipeline.consent != nil)
        // The keys came from the handshake: neither appears in what the client sent.
        let keys = try #require(pipeline.configuration.keys)
        let wire = harness.router.messages.map { String(describing: $0) }.joined()
        #expect(!wire.contains(keys.send.base64) && !wire.contains(keys.receive.base64))
        harness.finish()
    }

    @Test func aRoutedSubscriberConnectsToTheEdgeAndReceivesWhatItSends() throws {
        let harness = try Harness(side: EdgeSide())
        let stream = try #require(harness.session.streams["alice-cam"])
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: harness.recorder))
        try harness.session.subscribe(subscriber)
        #expect(harness.recorder.wait { $0.contains("subscriber connected") })
        let request = try #require(harness.router.messages.compactMap { if case .subscribe(let r) = $0 { r } else { nil } }.first)
        #expect(request.transport?.fingerprint.hasPrefix("sha-256 ") == true)
        let id = EdgeLegID(1)
        #expect(harness.side.edge.isConnected(id))
        let pipeline = try #require(subscriber.pipeline)
        var sequence: UInt16 = 0
        #expect(harness.recorder.wait { _ in
            sequence &+= 1
            var packet: [UInt8] = [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, 1, 0, 0, 0x11, 0x5C]
            packet += [0x10, 0, 0, 0, 0]
            try? packet.withUnsafeBytes { try harness.side.edge.send(leg: id, rtp: $0) }
            return pipeline.videoCounters.snapshot().packets >= 10
        })
        #expect(pipeline.videoCounters.snapshot().badPackets == 0)
        harness.finish()
    }

    /// A router leg whose certificate is not the one announced: the publisher fails with
    /// OpenTok's WebRTC error (1610), the subscriber with its own (1600), each saying why.
    @Test func aWrongRouterCertificateFailsPublisherAndSubscriberWithWebRTCErrors() throws {
        let impostor = try DTLSCertificate(commonName: "impostor")
        let harness = try Harness(side: EdgeSide(announcing: impostor.fingerprint))
        let publisher = harness.videoOnlyPublisher()
        try harness.session.publish(publisher)
        #expect(harness.recorder.wait { $0.contains("publisher didFail 1610") })
        let stream = try #require(harness.session.streams["alice-cam"])
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: harness.recorder))
        try harness.session.subscribe(subscriber)
        #expect(harness.recorder.wait { $0.contains("subscriber didFail 1600") })
        let messages = harness.recorder.lastErrors.map(\.message)
        #expect(messages.count >= 2 && messages.allSatisfy { $0.contains("DTLS") && $0.contains("fingerprint") })
        harness.finish()
    }

    /// Relayed sessions: the publisher announces its own leg (no `transport`), but every
    /// subscribe carries one, since the router carries a browser's stream there; a reply
    /// with `transport` (the router's edge leg) is connected like a routed one. On main the
    /// subscribe carried none and the edge leg could not connect.
    @Test func relayedSessionsPublishWithoutTransportAndSubscribeToARoutedStreamOnTheEdge() throws {
        let harness = try Harness(side: EdgeSide(), relayed: true)
        let publisher = harness.videoOnlyPublisher()
        try harness.session.publish(publisher)
        #expect(harness.recorder.wait { $0.contains("publisher streamCreated own-stream") })
        let stream = try #require(harness.session.streams["alice-cam"])
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: harness.recorder))
        try harness.session.subscribe(subscriber)
        #expect(harness.recorder.wait { $0.contains("subscriber connected") })
        let publish = try #require(harness.router.messages.compactMap { if case .publish(let r) = $0 { r } else { nil } }.first)
        let subscribe = try #require(harness.router.messages.compactMap { if case .subscribe(let r) = $0 { r } else { nil } }.first)
        #expect(publish.relayedLeg != nil && publish.transport == nil)
        #expect(subscribe.transport != nil)
        #expect(harness.side.edge.legCount == 1)
        #expect(subscriber.lock.withLock { subscriber.pipeline }?.configuration.consent != nil, "an edge leg")
        harness.finish()
    }

    /// Relayed sessions keep their direct path: a reply without `transport` (a relayed
    /// publisher's own leg) runs the subscriber on it, with its receiver SSRC, and the edge
    /// credentials the request carried go unused.
    @Test func aRelayedPublishersOwnLegKeepsTheDirectPath() throws {
        let harness = try Harness(side: EdgeSide(), relayed: true)
        let sends = SRTPKeyMaterial.random(), receives = SRTPKeyMaterial.random()
        var own = WireMediaLeg(host: "127.0.0.1", port: 40_000, profile: sends.profile.rfcName, clientKey: receives.base64,
                               routerKey: sends.base64, audioSSRC: nil, videoSSRC: 4444)
        own.receiverSSRC = 0x0BAD_CAFE
        harness.router.subscribeMediaFor = nil
        harness.router.subscribeMedia = own
        let stream = try #require(harness.session.streams["alice-cam"])
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: harness.recorder))
        try harness.session.subscribe(subscriber)
        #expect(harness.recorder.wait { $0.contains("subscriber connected") })
        let configuration = try #require(subscriber.lock.withLock { subscriber.pipeline }).configuration
        #expect(configuration.consent == nil && configuration.ssrc == 0x0BAD_CAFE)
        #expect(configuration.feedbackDestination == SocketAddress(ipv4: "127.0.0.1", port: 40_000))
        #expect(harness.side.edge.legCount == 0)
        harness.finish()
    }
}
