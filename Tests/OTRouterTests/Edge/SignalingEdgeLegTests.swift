import Foundation
import OTMedia
import OTNet
@testable import OTRouter
import OTSignaling
import Testing

/// Publish and subscribe with the client's ICE/DTLS `transport` through the router's
/// signaling service on the real SFU with its edge: the legs come back on the edge's one
/// port with the router's transport and no SRTP key; a malformed transport gets the
/// failed-leg error and the connection goes on working.
@Suite(.serialized) struct SignalingEdgeLegTests {
    @Test func aPublishWithTransportGetsAKeylessEdgeLegAndABadOneAnErrorOnly() throws {
        let sfu = try MediaRouter(host: "127.0.0.1", edge: MediaEdgeConfiguration())
        let service = RouterService(configuration: Fixture.configuration(), media: sfu)
        defer { service.stop() }
        let sessionId = try service.createSession(apiKey: Fixture.project.apiKey)
        func join(_ role: Role) throws -> FakePeer {
            let peer = FakePeer()
            service.webSocketOpened(peer, path: "/v1/session/\(sessionId)/ws", query: [])
            let token = try OpenTokToken.generate(sessionID: sessionId, credentials: Fixture.project, role: role)
            service.webSocketReceived(peer, text: SignalingCodec.encode(.connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token)),
                                                                        requestId: 1))
            return peer
        }
        func publish(_ peer: FakePeer, name: String, transport: WireTransport?, requestId: Int) {
            var request = PublishRequest(name: name, hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true, videoWidth: 320,
                                         videoHeight: 240, videoType: "camera")
            request.transport = transport
            service.webSocketReceived(peer, text: SignalingCodec.encode(.publish(request), requestId: requestId))
        }
        let port = try #require(sfu.mediaPort)
        let publisher = try join(.publisher), viewer = try join(.subscriber)
        let (_, _, transport) = try EdgeRouterRig.identity()

        // A malformed transport: the failed-leg error, counted; nothing published.
        var broken = transport
        broken.fingerprint = "sha-256 00:11"
        publish(publisher, name: "broken", transport: broken, requestId: 2)
        guard case .error(let error)? = publisher.reply(to: 2) else { Issue.record("no error reply: \(String(describing: publisher.reply(to: 2)))"); return }
        #expect(error.code == 1500)
        #expect(sfu.totals.edgeTransportsRejected == 1 && sfu.edge?.legCount == 0)

        // The same connection publishes fine afterwards.
        publish(publisher, name: "cam", transport: transport, requestId: 3)
        guard case .published(let published)? = publisher.reply(to: 3), let leg = published.media else {
            Issue.record("no publisher leg: \(String(describing: publisher.reply(to: 3)))"); return
        }
        #expect(leg.port == port && leg.host == "127.0.0.1")
        #expect(leg.clientKey == nil && leg.routerKey == nil)
        #expect(leg.transport?.fingerprint == sfu.edge?.fingerprint.sdpValue && leg.transport?.iceUfrag != transport.iceUfrag)
        #expect(leg.audioSSRC != nil && leg.videoSSRC != nil)

        // A subscriber with a transport: an edge leg too; one without: an SDES leg.
        var subscribe = SubscribeRequest(streamId: published.stream.streamId)
        subscribe.transport = try EdgeRouterRig.identity().2
        service.webSocketReceived(viewer, text: SignalingCodec.encode(.subscribe(subscribe), requestId: 2))
        guard case .subscribed(let subscribed)? = viewer.reply(to: 2), let subscriberLeg = subscribed.media else {
            Issue.record("no subscriber leg"); return
        }
        #expect(subscriberLeg.port == port && subscriberLeg.clientKey == nil && subscriberLeg.routerKey == nil
                && subscriberLeg.transport != nil)
        service.webSocketReceived(viewer, text: SignalingCodec.encode(.subscribe(SubscribeRequest(streamId: published.stream.streamId)),
                                                                      requestId: 3))
        guard case .subscribed(let old)? = viewer.reply(to: 3), let oldLeg = old.media else { Issue.record("no SDES leg"); return }
        #expect(oldLeg.transport == nil && oldLeg.clientKey != nil && oldLeg.port != port)
        #expect(sfu.edge?.legCount == 2 && sfu.openSockets == 1)
    }

    /// The acceptance check of issue 16 for native clients on the edge: a publisher and a
    /// subscriber join through signaling with their transports, do ICE and DTLS on the
    /// edge, and media flows; no key their SRTP sessions use (base64 or hex, key||salt or
    /// key alone) appears in any signaling message either way. The same search finds an
    /// SDES leg's key, so it can see one.
    @Test func aSessionOnTheEdgeCarriesNoSRTPKeyInSignaling() throws {
        let sfu = try MediaRouter(host: "127.0.0.1", edge: MediaEdgeConfiguration())
        let service = RouterService(configuration: Fixture.configuration(), media: sfu)
        defer { service.stop() }
        let sessionId = try service.createSession(apiKey: Fixture.project.apiKey)
        var sent: [String] = []
        func deliver(_ peer: FakePeer, _ message: ClientMessage, _ requestId: Int) {
            let text = SignalingCodec.encode(message, requestId: requestId)
            sent.append(text)
            service.webSocketReceived(peer, text: text)
        }
        func join(_ role: Role) throws -> FakePeer {
            let peer = FakePeer()
            service.webSocketOpened(peer, path: "/v1/session/\(sessionId)/ws", query: [])
            let token = try OpenTokToken.generate(sessionID: sessionId, credentials: Fixture.project, role: role)
            deliver(peer, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token)), 1)
            return peer
        }
        let publisherPeer = try join(.publisher), viewerPeer = try join(.subscriber)
        let (publisherCredentials, publisherCertificate, publisherTransport) = try EdgeRouterRig.identity()
        var publish = PublishRequest(name: "cam", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true, videoWidth: 320,
                                     videoHeight: 240, videoType: "camera")
        publish.transport = publisherTransport
        deliver(publisherPeer, .publish(publish), 2)
        guard case .published(let published)? = publisherPeer.reply(to: 2), let publisherLeg = published.media else {
            Issue.record("no publisher leg"); return
        }
        let (viewerCredentials, viewerCertificate, viewerTransport) = try EdgeRouterRig.identity()
        var subscribe = SubscribeRequest(streamId: published.stream.streamId)
        subscribe.transport = viewerTransport
        deliver(viewerPeer, .subscribe(subscribe), 2)
        guard case .subscribed(let subscribed)? = viewerPeer.reply(to: 2), let viewerLeg = subscribed.media else {
            Issue.record("no subscriber leg"); return
        }
        let publisher = try EdgeRouterRig.client(for: publisherLeg, credentials: publisherCredentials, certificate: publisherCertificate)
        let viewer = try EdgeRouterRig.client(for: viewerLeg, credentials: viewerCredentials, certificate: viewerCertificate)
        // Media flows on the keys the handshakes exported.
        let audio = try #require(publisherLeg.audioSSRC), viewerAudio = try #require(viewerLeg.audioSSRC)
        var received = 0
        for sequence in UInt16(1) ... 200 where received < 5 {
            try publisher.sendRTP(edgeRTP(sequence: sequence, ssrc: audio, payloadType: 111, payload: edgeAudioPayload(sequence)))
            while let (packet, isRTCP) = try viewer.receiveMedia(timeout: 0.005) {
                if !isRTCP, edgeBE32(packet, 8) == viewerAudio { received += 1 }
            }
        }
        #expect(received >= 5, "media flowed: \(received) packets")
        // An SDES leg in the same session, as the search's control.
        deliver(viewerPeer, .subscribe(SubscribeRequest(streamId: published.stream.streamId)), 3)
        guard case .subscribed(let sdes)? = viewerPeer.reply(to: 3), let sdesKey = sdes.media?.clientKey else {
            Issue.record("no SDES leg"); return
        }

        func spellings(_ material: SRTPKeyMaterial) -> [String] {
            let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
            return [material.base64, Data(material.masterKey).base64EncodedString(), hex(material.keyAndSalt), hex(material.masterKey),
                    hex(material.keyAndSalt).uppercased(), hex(material.masterKey).uppercased()]
        }
        var secrets: [String] = []
        for client in [publisher, viewer] {
            let keys = try #require(client.keys)
            secrets += spellings(keys.local) + spellings(keys.remote)
        }
        let traffic = sent + (publisherPeer.messages + viewerPeer.messages).map { SignalingCodec.encode($0) }
        #expect(traffic.count >= 6)
        for secret in secrets {
            #expect(!traffic.contains { $0.contains(secret) }, "an SRTP key of the edge legs is in the signaling")
        }
        #expect(traffic.contains { $0.contains(sdesKey) }, "the search finds an SDES key where there is one")
    }
}

