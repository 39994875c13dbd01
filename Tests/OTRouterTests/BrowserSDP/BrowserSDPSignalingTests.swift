import Foundation
import OTMedia
import OTNet
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// Browsers over signaling on the real SFU and its one-port edge (issue 16, acceptance a/b
/// at the router): a publisher offer made from a real Chromium offer (renumbered: Opus 63,
/// VP8 100, audio level id 9, transport-wide cc id 5) with an `EdgeClient`'s identity is
/// answered; its media reaches a native subscriber and a browser-like subscriber (`sdp:
/// true` + `subscriberAnswer`) in the router's numbering with the payload byte for byte.
@Suite(.serialized) struct BrowserSDPSignalingTests {
    struct Rig {
        let sfu: MediaRouter
        let service: RouterService
        let sessionId: String

        init(limits: RouterLimits = RouterLimits(), relayed: Bool = false) throws {
            sfu = try MediaRouter(host: "127.0.0.1", edge: MediaEdgeConfiguration())
            var configuration = Fixture.configuration()
            configuration.limits = limits
            service = RouterService(configuration: configuration, media: sfu)
            sessionId = try service.createSession(apiKey: Fixture.project.apiKey, relayed: relayed)
        }

        func join(_ role: Role = .publisher) throws -> FakePeer {
            let peer = FakePeer()
            service.webSocketOpened(peer, path: "/v1/session/\(sessionId)/ws", query: [])
            let token = try OpenTokToken.generate(sessionID: sessionId, credentials: Fixture.project, role: role)
            send(peer, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token)), 1)
            return peer
        }

        func send(_ peer: FakePeer, _ message: ClientMessage, _ requestId: Int) {
            service.webSocketReceived(peer, text: SignalingCodec.encode(message, requestId: requestId))
        }

        /// Publishes with `offer` as a browser does.
        func publish(_ peer: FakePeer, offer: String, requestId: Int) -> ServerMessage? {
            var request = PublishRequest(name: "web", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                                         videoWidth: 320, videoHeight: 240, videoType: "camera")
            request.sdpOffer = offer
            send(peer, .publish(request), requestId)
            return peer.reply(to: requestId)
        }

        /// Subscribes with `sdp: true`.
        func subscribeForOffer(_ peer: FakePeer, streamId: String, requestId: Int) -> ServerMessage? {
            var request = SubscribeRequest(streamId: streamId)
            request.sdp = true
            send(peer, .subscribe(request), requestId)
            return peer.reply(to: requestId)
        }

        /// A native publisher through signaling with its transport, connected.
        func nativePublisher(_ peer: FakePeer, requestId: Int) throws -> (WireStream, WireMediaLeg, EdgeClient) {
            let (credentials, certificate, transport) = try EdgeRouterRig.identity()
            var request = PublishRequest(name: "native", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                                         videoWidth: 320, videoHeight: 240, videoType: "camera")
            request.transport = transport
            send(peer, .publish(request), requestId)
            guard case .published(let published)? = peer.reply(to: requestId), let leg = published.media else {
                throw RigFailure(description: "no native publisher leg: \(String(describing: peer.reply(to: requestId)))")
            }
            return (published.stream, leg, try EdgeRouterRig.client(for: leg, credentials: credentials, certificate: certificate))
        }

        /// A native subscriber of `streamId` through signaling with its transport, connected.
        func nativeSubscriber(_ peer: FakePeer, streamId: String, requestId: Int) throws -> (WireMediaLeg, EdgeClient) {
            let (credentials, certificate, transport) = try EdgeRouterRig.identity()
            var request = SubscribeRequest(streamId: streamId)
            request.transport = transport
            send(peer, .subscribe(request), requestId)
            guard case .subscribed(let subscribed)? = peer.reply(to: requestId), let leg = subscribed.media else {
                throw RigFailure(description: "no native subscriber leg")
            }
            return (leg, try EdgeRouterRig.client(for: leg, credentials: credentials, certificate: certificate))
        }
    }

    struct RigFailure: Error, CustomStringConvertible { let description: String }

    /// The SSRC an SDP announces for its section of `kind`.
    static func announcedSSRC(_ sdp: String, _ kind: String) throws -> UInt32 {
        let description = try SessionDescription(parsing: sdp)
        return try #require(description.media.first { $0.kind == kind }?.ssrcs.first?.ssrc)
    }

    @Test func aBrowserPublisherIsAnsweredAndReachesNativeAndBrowserSubscribersInTheRoutersNumbering() throws {
        let rig = try Rig()
        defer { rig.service.stop() }
        let port = try #require(rig.sfu.mediaPort)
        let web = try rig.join(), viewer = try rig.join(.subscriber), webViewer = try rig.join(.subscriber)
        let browser = try BrowserPeer()
        let offer = browser.identify(BrowserPeer.renumbered(BrowserSDPFixture.chromePublisher))
        #expect(offer.contains("a=rtpmap:63 opus/48000/2") && offer.contains("a=rtpmap:100 VP8/90000") && offer.contains("a=fmtp:101 apt=100"))

        guard case .published(let published)? = rig.publish(web, offer: offer, requestId: 2), let answerText = published.sdpAnswer else {
            Issue.record("no answer: \(String(describing: web.reply(to: 2)))"); return
        }
        // The answer: ICE-lite, DTLS server, the edge's candidate and fingerprint, the browser's own numbers.
        let answer = try SessionDescription(parsing: answerText)
        #expect(answer.has("ice-lite") && answer.bundle == ["0", "1"])
        let audioSection = try #require(answer.media.first { $0.kind == "audio" })
        let videoSection = try #require(answer.media.first { $0.kind == "video" })
        #expect(audioSection.payloadTypes == [63] && videoSection.payloadTypes == [100, 101])
        #expect(audioSection.setup == .passive && audioSection.direction == .recvonly && audioSection.rtcpMux)
        #expect(audioSection.fingerprint?.sdpValue == rig.sfu.edge?.fingerprint.sdpValue)
        #expect(audioSection.candidates.first.map { "\($0.address):\($0.port)" } == "127.0.0.1:\(port)")
        #expect(audioSection.extmaps.contains { $0.id == 9 && $0.uri == SDPHeaderExtension.audioLevel })
        #expect(answerText.contains("a=end-of-candidates"))
        #expect(published.media?.audioSSRC == ChromeSSRC.audio && published.media?.videoSSRC == ChromeSSRC.video)
        let streamId = published.stream.streamId
        #expect(viewer.messages.contains { if case .streamCreated(let stream) = $0 { stream.streamId == streamId } else { false } })

        let publisher = try browser.connect(to: answerText)
        let (nativeLeg, native) = try rig.nativeSubscriber(viewer, streamId: streamId, requestId: 2)
        let nativeAudio = try #require(nativeLeg.audioSSRC), nativeVideo = try #require(nativeLeg.videoSSRC)

        // A browser-like subscriber: offer, Chromium's answer with its identity, no reply, media.
        let webPeer = try BrowserPeer()
        guard case .subscribed(let subscribed)? = rig.subscribeForOffer(webViewer, streamId: streamId, requestId: 2),
              let subscriberOffer = subscribed.sdpOffer else {
            Issue.record("no subscriber offer: \(String(describing: webViewer.reply(to: 2)))"); return
        }
        #expect(subscribed.media == nil && rig.sfu.pendingBrowserOffers == 1)
        rig.send(webViewer, .subscriberAnswer(SubscriberAnswer(subscriberId: subscribed.subscriberId,
                                                               sdp: webPeer.identify(BrowserSDPFixture.chromeSubscriberAnswer))), 3)
        #expect(webViewer.reply(to: 3) == nil, "a good answer gets no reply")
        #expect(rig.sfu.pendingBrowserOffers == 0)
        let webSubscriber = try webPeer.connect(to: subscriberOffer)
        let webAudio = try Self.announcedSSRC(subscriberOffer, "audio"), webVideo = try Self.announcedSSRC(subscriberOffer, "video")

        // The browser sends in its numbering; every subscriber gets the router's.
        var audioSeen: [[UInt8]] = [], videoSeen: [[UInt8]] = [], webSeen: [(UInt8, UInt32, [UInt8])] = []
        var sentAudio: [UInt16: [UInt8]] = [:], sentVideo: [UInt16: [UInt8]] = [:]
        for sequence in UInt16(1) ... 300 where audioSeen.count < 5 || videoSeen.count < 5 || webSeen.count < 10 {
            let audioPayload = edgeAudioPayload(sequence), videoPayload = browserVP8Keyframe(sequence)
            sentAudio[sequence] = audioPayload
            sentVideo[sequence] = videoPayload
            try publisher.sendRTP(browserRTP(sequence: sequence, ssrc: ChromeSSRC.audio, payloadType: 63,
                                             elements: [(9, [0xAA]), (5, [0, UInt8(truncatingIfNeeded: sequence)]), (4, Array("0".utf8))],
                                             payload: audioPayload))
            try publisher.sendRTP(browserRTP(sequence: sequence, ssrc: ChromeSSRC.video, payloadType: 100,
                                             elements: [(5, [1, UInt8(truncatingIfNeeded: sequence)]), (4, Array("1".utf8)),
                                                        (2, [1, 2, 3])],
                                             payload: videoPayload))
            while let (packet, isRTCP) = try native.receiveMedia(timeout: 0.003) {
                if isRTCP { continue }
                if edgeBE32(packet, 8) == nativeAudio { audioSeen.append(packet) }
                if edgeBE32(packet, 8) == nativeVideo { videoSeen.append(packet) }
            }
            while let (packet, isRTCP) = try webSubscriber.receiveMedia(timeout: 0.003) {
                if isRTCP { continue }
                webSeen.append((packet[1] & 0x7F, edgeBE32(packet, 8), edgePayload(packet)))
            }
        }
        #expect(audioSeen.count >= 5 && videoSeen.count >= 5, "native: \(audioSeen.count) audio, \(videoSeen.count) video")
        for packet in audioSeen {
            #expect(packet[1] & 0x7F == 111, "audio reaches native subscribers as Opus 111")
            let payload = edgePayload(packet)
            #expect(payload == sentAudio[edgeBE16(payload, 1)], "the audio payload byte for byte")
            let elements = extensionElements(packet)
            #expect(elements[1] == [0xAA], "the audio level moved to id 1")
            #expect(elements[3]?.count == 2, "a transport-wide number at id 3")
            #expect(elements[4] == nil && elements[9] == nil && elements[5] == nil, "the browser's mid and ids are gone: \(elements)")
        }
        for packet in videoSeen {
            #expect(packet[1] & 0x7F == 96, "video reaches native subscribers as VP8 96")
            let payload = edgePayload(packet)
            #expect(payload == sentVideo[edgeBE16(payload, 11)], "the video payload byte for byte")
            let elements = extensionElements(packet)
            #expect(elements[2] == [1, 2, 3] && elements[4] == nil, "abs-send-time kept at id 2, mid dropped: \(elements)")
        }
        let webAudioPackets = webSeen.filter { $0.1 == webAudio }, webVideoPackets = webSeen.filter { $0.1 == webVideo }
        #expect(webAudioPackets.count >= 3 && webVideoPackets.count >= 3, "browser subscriber: \(webSeen.count) packets")
        #expect(webAudioPackets.allSatisfy { $0.0 == 111 && $0.2 == sentAudio[edgeBE16($0.2, 1)] })
        #expect(webVideoPackets.allSatisfy { $0.0 == 96 && $0.2 == sentVideo[edgeBE16($0.2, 11)] })
        let counters = try #require(rig.sfu.counters(streamId: streamId))
        #expect(counters.unknownSSRCPackets == 0, "every browser packet had a negotiated payload type")
    }

    /// subscribeToVideo turned off between the offer and the answer holds once the leg
    /// opens: the browser-like subscriber gets the stream's audio and none of its video.
    @Test func aSubscriptionChangedBeforeTheAnswerHoldsForTheLeg() throws {
        let rig = try Rig()
        defer { rig.service.stop() }
        let native = try rig.join(), webViewer = try rig.join(.subscriber)
        let (stream, publisherLeg, publisher) = try rig.nativePublisher(native, requestId: 2)
        guard case .subscribed(let subscribed)? = rig.subscribeForOffer(webViewer, streamId: stream.streamId, requestId: 2),
              let offer = subscribed.sdpOffer else { Issue.record("no offer"); return }
        rig.send(webViewer, .subscriptionChanged(SubscriptionChange(subscriberId: subscribed.subscriberId, subscribeToAudio: nil,
                                                                    subscribeToVideo: false)), 3)
        #expect(webViewer.reply(to: 3) == .ok)
        let webPeer = try BrowserPeer()
        rig.send(webViewer, .subscriberAnswer(SubscriberAnswer(subscriberId: subscribed.subscriberId,
                                                               sdp: webPeer.identify(BrowserSDPFixture.chromeSubscriberAnswer))), 4)
        #expect(webViewer.reply(to: 4) == nil)
        let client = try webPeer.connect(to: offer)
        let webAudio = try Self.announcedSSRC(offer, "audio"), webVideo = try Self.announcedSSRC(offer, "video")
        let audio = try #require(publisherLeg.audioSSRC), video = try #require(publisherLeg.videoSSRC)
        var audioCount = 0, videoCount = 0
        for sequence in UInt16(1) ... 150 {
            try publisher.sendRTP(edgeRTP(sequence: sequence, ssrc: audio, payloadType: 111, payload: edgeAudioPayload(sequence)))
            try publisher.sendRTP(edgeRTP(sequence: sequence, ssrc: video, payloadType: 96, payload: browserVP8Keyframe(sequence)))
            while let (packet, isRTCP) = try client.receiveMedia(timeout: 0.003) {
                if isRTCP { continue }
                if edgeBE32(packet, 8) == webAudio { audioCount += 1 }
                if edgeBE32(packet, 8) == webVideo { videoCount += 1 }
            }
        }
        #expect(audioCount >= 10, "audio flows: \(audioCount)")
        #expect(videoCount == 0, "video stays off as asked before the answer: \(videoCount)")
    }
}
