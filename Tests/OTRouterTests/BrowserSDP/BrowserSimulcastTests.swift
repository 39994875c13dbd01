import Foundation
import OTMedia
import OTNet
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// Acceptance e of issue 16 at the router: a browser publishing rid simulcast (Chromium's
/// real 3-rid offer, q;h;f, no video SSRC in the SDP) sends three layers under SSRCs the
/// router never heard of; it learns each from the rtp-stream-id of its packets, and the
/// existing per-subscriber layer selection gives a native subscriber that prefers 320x180
/// the low layer and one without a preference the high one.
@Suite(.serialized) struct BrowserSimulcastTests {
    typealias Rig = BrowserSDPSignalingTests.Rig

    /// A VP8 keyframe of `width` x `height` whose byte 13 names its layer.
    static func keyframe(_ width: Int, _ height: Int, layer: UInt8) -> [UInt8] {
        [0x10, 0x50, 0x00, 0x00, 0x9D, 0x01, 0x2A, UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8),
         0xEE, 0xEE, layer] + [UInt8](repeating: 0x44, count: 80)
    }

    @Test func ridLayersAreLearnedAndEachSubscriberGetsTheLayerItAskedFor() throws {
        let rig = try Rig()
        defer { rig.service.stop() }
        let web = try rig.join(), lowPeer = try rig.join(.subscriber), highPeer = try rig.join(.subscriber)
        let browser = try BrowserPeer()
        guard case .published(let published)? = rig.publish(web, offer: browser.identify(BrowserSDPFixture.chromeSimulcast), requestId: 2),
              let answer = published.sdpAnswer else {
            Issue.record("simulcast offer refused: \(String(describing: web.reply(to: 2)))"); return
        }
        #expect(answer.contains("a=simulcast:recv q;h;f") && answer.contains("a=rid:f recv"))
        let streamId = published.stream.streamId
        let publisher = try browser.connect(to: answer)
        let (lowLeg, low) = try rig.nativeSubscriber(lowPeer, streamId: streamId, requestId: 2)
        let (highLeg, high) = try rig.nativeSubscriber(highPeer, streamId: streamId, requestId: 2)
        guard case .subscribed? = lowPeer.reply(to: 2), case .subscribed(let highSubscribed)? = highPeer.reply(to: 2),
              case .subscribed(let lowSubscribed)? = lowPeer.reply(to: 2) else { Issue.record("no subscriptions"); return }
        rig.send(lowPeer, .subscriberPreferences(SubscriberPreferences(subscriberId: lowSubscribed.subscriberId, preferredWidth: 320,
                                                                       preferredHeight: 180, preferredFrameRate: nil)), 3)
        #expect(lowPeer.reply(to: 3) == .ok)

        // Browser SSRCs the SDP never named, rid in extension 10 (Chromium's id), sizes ÷4, ÷2, full.
        let layers: [(ssrc: UInt32, rid: String, width: Int, height: Int)] = [
            (0xA100_0001, "q", 320, 180), (0xA100_0002, "h", 640, 360), (0xA100_0003, "f", 1280, 720),
        ]
        let lowVideo = try #require(lowLeg.videoSSRC), highVideo = try #require(highLeg.videoSSRC)
        // The router's own SSRCs for the layers: what its RTCP to the browser must NOT name.
        let routerLayers = Set([published.media?.videoSSRC].compactMap { $0 } + (published.media?.simulcastSSRCs ?? []))
        #expect(routerLayers.count == 3)
        var named: [(at: TimeInterval, ssrc: UInt32)] = []
        var lowLayers: [UInt8] = [], highLayers: [UInt8] = []
        let start = Date()
        var sequence: UInt16 = 1
        while Date().timeIntervalSince(start) < 4 {
            for (index, layer) in layers.enumerated() {
                try publisher.sendRTP(browserRTP(sequence: sequence, ssrc: layer.ssrc, payloadType: 96,
                                                 elements: [(10, Array(layer.rid.utf8)), (4, Array("1".utf8))],
                                                 payload: Self.keyframe(layer.width, layer.height, layer: UInt8(index))))
            }
            sequence &+= 1
            while let (packet, isRTCP) = try publisher.receiveMedia(timeout: 0.001) {
                if isRTCP { for ssrc in Self.mediaSSRCs(inRTCP: packet) { named.append((Date().timeIntervalSince(start), ssrc)) } }
            }
            for (client, ssrc, record) in [(low, lowVideo, 0), (high, highVideo, 1)] {
                while let (packet, isRTCP) = try client.receiveMedia(timeout: 0.004) {
                    guard !isRTCP, edgeBE32(packet, 8) == ssrc else { continue }
                    let payload = edgePayload(packet)
                    guard payload.count > 13 else { continue }
                    if record == 0 { lowLayers.append(payload[13]) } else { highLayers.append(payload[13]) }
                }
            }
        }
        let lowTail = lowLayers.suffix(40), highTail = highLayers.suffix(40)
        #expect(lowTail.count >= 20 && highTail.count >= 20, "video reached both: \(lowLayers.count), \(highLayers.count)")
        #expect(lowTail.allSatisfy { $0 == 0 }, "the 320x180 subscriber gets layer q: \(Array(lowTail))")
        #expect(highTail.allSatisfy { $0 == 2 }, "the unconstrained subscriber gets layer f: \(Array(highTail))")
        #expect(rig.sfu.status(subscriberId: lowSubscribed.subscriberId)?.spatialLayer == 0)
        #expect(rig.sfu.status(subscriberId: highSubscribed.subscriberId)?.spatialLayer == 2)
        #expect(rig.sfu.counters(streamId: streamId)?.unknownSSRCPackets == 0, "every layer's SSRC was learned")
        // Receiver reports, PLIs and NACKs to the browser name its own SSRCs once learned.
        let late = named.filter { $0.at >= 2 }.map(\.ssrc)
        #expect(late.contains(layers[2].ssrc), "the receiver reports name the browser's full layer: \(late.map { String($0, radix: 16) })")
        #expect(!late.contains { routerLayers.contains($0) }, "no RTCP to the browser names the router's layer SSRCs")
    }

    /// The media SSRCs an RTCP compound names: receiver report blocks (RR 201, SR 200), and
    /// the media SSRC of transport (205) and payload-specific (206) feedback.
    static func mediaSSRCs(inRTCP packet: [UInt8]) -> [UInt32] {
        var ssrcs: [UInt32] = []
        var offset = 0
        while offset + 8 <= packet.count {
            let count = Int(packet[offset] & 0x1F), type = packet[offset + 1]
            let end = min(offset + 4 * (Int(edgeBE16(packet, offset + 2)) + 1), packet.count)
            switch type {
            case 200, 201:
                var block = offset + (type == 200 ? 28 : 8)
                for _ in 0..<count where block + 4 <= end {
                    ssrcs.append(edgeBE32(packet, block))
                    block += 24
                }
            case 205, 206:
                if offset + 12 <= end { ssrcs.append(edgeBE32(packet, offset + 8)) }
            default: break
            }
            offset = end
        }
        return ssrcs
    }
}
