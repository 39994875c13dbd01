import Foundation
import OTMedia
import OTNet
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// Issue 16 point 8 at the router: a browser in a relayed session publishes through the
/// router (its SDP offer is answered, its stream gets a forwarding group) and native
/// subscribers of it get a routed edge leg, while native relayed publishers' streams keep
/// their direct path (the publisher's own address and per-subscriber keys, no router leg).
@Suite(.serialized) struct RelayedBrowserSignalingTests {
    typealias Rig = BrowserSDPSignalingTests.Rig

    /// A native relayed publisher's announced leg: a loopback address with real keys.
    static func nativeRelayedLeg(port: Int) -> WireMediaLeg {
        let sends = SRTPKeyMaterial.random(), receives = SRTPKeyMaterial.random()
        return WireMediaLeg(host: "127.0.0.1", port: port, profile: sends.profile.rfcName, clientKey: receives.base64,
                            routerKey: sends.base64, audioSSRC: 0x1111, videoSSRC: 0x2222)
    }

    /// Publishes `leg` as a native relayed publisher does; the stream.
    static func publishRelayed(_ rig: Rig, _ peer: FakePeer, leg: WireMediaLeg, requestId: Int) throws -> WireStream {
        var request = PublishRequest(name: "native", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                                     videoWidth: 320, videoHeight: 240, videoType: "camera")
        request.relayedLeg = leg
        rig.send(peer, .publish(request), requestId)
        guard case .published(let published)? = peer.reply(to: requestId) else {
            throw BrowserSDPSignalingTests.RigFailure(description: "relayed publish: \(String(describing: peer.reply(to: requestId)))")
        }
        #expect(published.media == nil, "the router opens no leg for a relayed publisher")
        return published.stream
    }

    /// On main a relayed session refused the browser's offer with 1500; now it is answered,
    /// the stream is routed, and a native subscriber (sending its edge transport, as OTKit
    /// does in every session) gets the router's edge leg and the browser's media on it.
    @Test func aBrowserPublishingInARelayedSessionIsRoutedToANativeSubscriber() throws {
        let rig = try Rig(relayed: true)
        defer { rig.service.stop() }
        let port = try #require(rig.sfu.mediaPort)
        let web = try rig.join(), viewer = try rig.join(.subscriber)
        let browser = try BrowserPeer()
        let offer = browser.identify(BrowserSDPFixture.chromePublisher)
        guard case .published(let published)? = rig.publish(web, offer: offer, requestId: 2), let answer = published.sdpAnswer else {
            Issue.record("a relayed session refused the browser's offer: \(String(describing: web.reply(to: 2)))"); return
        }
        let streamId = published.stream.streamId
        #expect(rig.sfu.counters(streamId: streamId) != nil, "the browser's stream has a forwarding group")
        let publisher = try browser.connect(to: answer)

        let (leg, native) = try rig.nativeSubscriber(viewer, streamId: streamId, requestId: 2)
        #expect(leg.transport != nil && leg.receiverSSRC == nil && leg.port == port, "a routed edge leg: \(leg)")
        let audioSSRC = try #require(leg.audioSSRC), videoSSRC = try #require(leg.videoSSRC)
        var audio = 0, video = 0
        for sequence in UInt16(1) ... 300 where audio < 5 || video < 5 {
            try publisher.sendRTP(browserRTP(sequence: sequence, ssrc: ChromeSSRC.audio, payloadType: 111,
                                             elements: [], payload: edgeAudioPayload(sequence)))
            try publisher.sendRTP(browserRTP(sequence: sequence, ssrc: ChromeSSRC.video, payloadType: 96,
                                             elements: [], payload: browserVP8Keyframe(sequence)))
            while let (packet, isRTCP) = try native.receiveMedia(timeout: 0.003) {
                if isRTCP { continue }
                if edgeBE32(packet, 8) == audioSSRC { audio += 1 }
                if edgeBE32(packet, 8) == videoSSRC { video += 1 }
            }
        }
        #expect(audio >= 5 && video >= 5, "the native subscriber got \(audio) audio and \(video) video packets")
    }

    /// Beside a browser's routed stream, a native relayed publisher's stream still goes
    /// peer to peer: its subscriber's leg is the publisher's own address with a receiver
    /// SSRC and no transport, and the router opens no forwarding group for it. A browser
    /// subscribing to it is refused (1604) as before: the router does not yet receive a
    /// relayed publisher's media on a browser's behalf. Unsubscribing from the browser's
    /// stream closes the router leg (1112 afterwards: it is gone) and a force mute of the
    /// browser's stream reaches the SFU (the stream is routed).
    @Test func nativeRelayedStreamsKeepTheirDirectPathBesideABrowsersRoutedStream() throws {
        let rig = try Rig(relayed: true)
        defer { rig.service.stop() }
        let native = try rig.join(), web = try rig.join(), viewer = try rig.join(.moderator), webViewer = try rig.join(.subscriber)
        let announced = Self.nativeRelayedLeg(port: 40_000)
        let nativeStream = try Self.publishRelayed(rig, native, leg: announced, requestId: 2)
        #expect(rig.sfu.counters(streamId: nativeStream.streamId) == nil, "no forwarding group for a relayed publisher")

        // A native subscriber sends its transport (OTKit does in every session); the direct leg ignores it.
        let (_, _, transport) = try EdgeRouterRig.identity()
        var request = SubscribeRequest(streamId: nativeStream.streamId)
        request.transport = transport
        rig.send(viewer, .subscribe(request), 2)
        guard case .subscribed(let direct)? = viewer.reply(to: 2), let leg = direct.media else {
            Issue.record("no relayed leg: \(String(describing: viewer.reply(to: 2)))"); return
        }
        #expect(leg.host == announced.host && leg.port == announced.port, "the publisher's own address: \(leg)")
        #expect(leg.receiverSSRC != nil && leg.transport == nil && leg.clientKey != nil)

        // A browser subscribing to the native relayed stream: refused cleanly, nothing opened.
        guard case .error(let refused)? = rig.subscribeForOffer(webViewer, streamId: nativeStream.streamId, requestId: 2) else {
            Issue.record("a browser got an offer for a relayed publisher's stream: \(String(describing: webViewer.reply(to: 2)))"); return
        }
        #expect(refused.code == 1604 && rig.sfu.pendingBrowserOffers == 0)

        // The browser's stream in the same session is routed.
        let browser = try BrowserPeer()
        guard case .published(let published)? = rig.publish(web, offer: browser.identify(BrowserSDPFixture.chromePublisher),
                                                             requestId: 2), let answer = published.sdpAnswer else {
            Issue.record("no answer: \(String(describing: web.reply(to: 2)))"); return
        }
        let streamId = published.stream.streamId
        let publisher = try browser.connect(to: answer)
        let (routedLeg, _) = try rig.nativeSubscriber(viewer, streamId: streamId, requestId: 3)
        #expect(routedLeg.transport != nil && routedLeg.receiverSSRC == nil)
        guard case .subscribed(let routed)? = viewer.reply(to: 3) else { Issue.record("no routed subscription"); return }
        let routedSubscriberId = routed.subscriberId
        #expect(rig.sfu.registry.withLock { $0.subscriberStreams[routedSubscriberId] } == streamId)
        guard case .subscribed(let webOffer)? = rig.subscribeForOffer(webViewer, streamId: streamId, requestId: 3) else {
            Issue.record("a browser got no offer for a browser's stream: \(String(describing: webViewer.reply(to: 3)))"); return
        }
        #expect(webOffer.sdpOffer != nil)

        // A force mute of the routed stream reaches the SFU: its audio is dropped there.
        rig.send(viewer, .forceMuteStream(streamId: streamId), 4)
        #expect(viewer.reply(to: 4) == .ok)
        for sequence in UInt16(1) ... 20 {
            try publisher.sendRTP(browserRTP(sequence: sequence, ssrc: ChromeSSRC.audio, payloadType: 111,
                                             elements: [], payload: edgeAudioPayload(sequence)))
        }
        let muted = eventually { (rig.sfu.counters(streamId: streamId)?.mutedAudioDropped ?? 0) > 0 }
        #expect(muted, "the SFU drops the force-muted browser's audio: \(String(describing: rig.sfu.counters(streamId: streamId)))")

        // Unsubscribing from the browser's stream closes the router's leg for it.
        rig.send(viewer, .unsubscribe(subscriberId: routedSubscriberId), 5)
        #expect(viewer.reply(to: 5) == .ok)
        #expect(eventually { rig.sfu.registry.withLock { $0.subscriberStreams[routedSubscriberId] } == nil }, "the routed leg is removed")
    }
}
