import Foundation
import OTMedia
import OTNet
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// Hostile or unusable browser SDP over signaling: each is refused with OpenTok's code
/// (1500 publish, 1600 subscriber answer), counted in `sdpRejected`, the connection stays
/// and a native stream of the same session keeps flowing. Unanswered subscriber offers
/// are capped (`RouterLimits.pendingSDPOffers`, 1605) and freed by unsubscribe and by the
/// connection's end.
@Suite(.serialized) struct BrowserSDPRefusalTests {
    typealias Rig = BrowserSDPSignalingTests.Rig

    /// Audio packets from `publisher` that reach `subscriber` (native numbering both sides).
    static func flows(_ publisher: EdgeClient, _ publisherLeg: WireMediaLeg, to subscriber: EdgeClient, _ subscriberLeg: WireMediaLeg,
                      from first: UInt16) throws -> Int {
        let ssrc = try #require(publisherLeg.audioSSRC), target = try #require(subscriberLeg.audioSSRC)
        var received = 0
        for sequence in first ..< first + 200 where received < 5 {
            try publisher.sendRTP(edgeRTP(sequence: sequence, ssrc: ssrc, payloadType: 111, payload: edgeAudioPayload(sequence)))
            while let (packet, isRTCP) = try subscriber.receiveMedia(timeout: 0.003) {
                if !isRTCP, edgeBE32(packet, 8) == target { received += 1 }
            }
        }
        return received
    }

    @Test func malformedHugeAndUnnegotiableSDPIsRefusedCountedAndHarmsNoOtherLeg() throws {
        let rig = try Rig()
        defer { rig.service.stop() }
        let native = try rig.join(), viewer = try rig.join(.subscriber), web = try rig.join()
        let (stream, publisherLeg, publisher) = try rig.nativePublisher(native, requestId: 2)
        let (subscriberLeg, subscriber) = try rig.nativeSubscriber(viewer, streamId: stream.streamId, requestId: 2)
        #expect(try Self.flows(publisher, publisherLeg, to: subscriber, subscriberLeg, from: 1) >= 5)

        let browser = try BrowserPeer()
        let good = browser.identify(BrowserSDPFixture.chromePublisher)
        let unnegotiable = good.replacingOccurrences(of: "opus/48000/2", with: "ISAC/16000")
            .replacingOccurrences(of: "VP8/90000", with: "H263/90000")
        let hostile: [(String, String)] = [
            ("garbage", "this is not SDP at all"),
            ("a line over the limit", good.replacingOccurrences(of: "s=-\r\n", with: "s=" + String(repeating: "x", count: SDPLimits.maximumLineLength + 1) + "\r\n")),
            ("too many lines", good + String(repeating: "a=x-filler\r\n", count: SDPLimits.maximumLines)),
            ("no VP8 or Opus", unnegotiable),
            ("setup passive", good.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:passive")),
            ("no ICE password", good.components(separatedBy: "\r\n").filter { !$0.hasPrefix("a=ice-pwd:") }.joined(separator: "\r\n")),
        ]
        for (index, (what, offer)) in hostile.enumerated() {
            #expect(offer.utf8.count < SignalingCodec.maximumMessageBytes - 1024, "\(what) fits one signaling message")
            guard case .error(let error)? = rig.publish(web, offer: offer, requestId: 10 + index) else {
                Issue.record("\(what): not refused: \(String(describing: web.reply(to: 10 + index)))"); continue
            }
            #expect(error.code == 1500, "\(what): \(error.message)")
            #expect(rig.service.metrics.sdpRejected == UInt64(index + 1), "\(what) counted")
        }
        #expect(rig.sfu.edge?.legCount == 2, "no leg opened for refused offers")
        #expect(rig.service.metrics.badMessages == 0, "the messages themselves were well formed")

        // A subscriber answer that does not fit the router's offer: 1600, counted; the offer
        // stays for a corrected answer.
        guard case .subscribed(let subscribed)? = rig.subscribeForOffer(web, streamId: stream.streamId, requestId: 30) else {
            Issue.record("no offer"); return
        }
        let peer = try BrowserPeer()
        let wrongSetup = peer.identify(BrowserSDPFixture.chromeSubscriberAnswer).replacingOccurrences(of: "a=setup:active", with: "a=setup:passive")
        for (requestId, answer) in [(31, wrongSetup), (32, "v=0\r\nnonsense")] {
            rig.send(web, .subscriberAnswer(SubscriberAnswer(subscriberId: subscribed.subscriberId, sdp: answer)), requestId)
            guard case .error(let error)? = web.reply(to: requestId) else { Issue.record("answer \(requestId) not refused"); continue }
            #expect(error.code == 1600, "\(error.message)")
        }
        #expect(rig.service.metrics.sdpRejected == UInt64(hostile.count + 2))
        #expect(rig.sfu.pendingBrowserOffers == 1)
        // An answer for a subscription that is not this connection's: 1112, not an SDP refusal.
        rig.send(viewer, .subscriberAnswer(SubscriberAnswer(subscriberId: subscribed.subscriberId, sdp: wrongSetup)), 40)
        guard case .error(let foreign)? = viewer.reply(to: 40) else { Issue.record("foreign answer not refused"); return }
        #expect(foreign.code == 1112)

        // The connection is alive and the native stream still flows.
        rig.send(web, .ping, 50)
        #expect(web.reply(to: 50) == .pong)
        #expect(try Self.flows(publisher, publisherLeg, to: subscriber, subscriberLeg, from: 1000) >= 5)
        // And the same browser connection may still publish a good offer.
        guard case .published(let published)? = rig.publish(web, offer: good, requestId: 60) else {
            Issue.record("good offer refused: \(String(describing: web.reply(to: 60)))"); return
        }
        #expect(published.sdpAnswer != nil)
    }

    @Test func pendingOffersAreCappedAndFreedByUnsubscribeAndDisconnect() throws {
        var limits = RouterLimits()
        limits.pendingSDPOffers = 2
        limits.subscriptionsPerConnection = 10
        let rig = try Rig(limits: limits)
        defer { rig.service.stop() }
        let native = try rig.join(), web = try rig.join(.subscriber), other = try rig.join(.subscriber)
        let (stream, _, _) = try rig.nativePublisher(native, requestId: 2)
        var ids: [String] = []
        for requestId in 2...3 {
            guard case .subscribed(let subscribed)? = rig.subscribeForOffer(web, streamId: stream.streamId, requestId: requestId) else {
                Issue.record("offer \(requestId) refused"); return
            }
            ids.append(subscribed.subscriberId)
        }
        #expect(rig.sfu.pendingBrowserOffers == 2)
        // Over the cap, from any connection: 1605, counted as a limit.
        guard case .error(let error)? = rig.subscribeForOffer(other, streamId: stream.streamId, requestId: 2) else {
            Issue.record("the third pending offer was not refused"); return
        }
        #expect(error.code == 1605)
        #expect(rig.service.metrics.limitRefusals[RouterLimit.pendingSDPOffers.rawValue] == 1)
        #expect(rig.sfu.pendingBrowserOffers == 2)

        // Unsubscribing frees one: another browser gets its offer.
        rig.send(web, .unsubscribe(subscriberId: ids[0]), 4)
        #expect(web.reply(to: 4) == .ok)
        #expect(rig.sfu.pendingBrowserOffers == 1)
        guard case .subscribed? = rig.subscribeForOffer(other, streamId: stream.streamId, requestId: 3) else {
            Issue.record("no room after unsubscribe"); return
        }
        #expect(rig.sfu.pendingBrowserOffers == 2)
        // The connection's end (disconnect) frees its offers.
        rig.send(web, .disconnect, 5)
        #expect(rig.sfu.pendingBrowserOffers == 1)
        rig.send(native, .unpublish(streamId: stream.streamId), 6)
        #expect(rig.sfu.pendingBrowserOffers == 0, "the stream's end frees the offers of its subscribers")
    }
}
