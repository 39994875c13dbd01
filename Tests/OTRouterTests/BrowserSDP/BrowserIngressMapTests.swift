import OTMedia
@testable import OTRouter
import OTSignaling
import Testing

/// `BrowserIngressMap` on packets built byte by byte: a browser's PTs and one-byte
/// extension ids become the router's in place, unknown elements become padding of the same
/// size, RTX is unwrapped into its media stream, RTX padding is a probe, and any other PT
/// (or an RTX packet of an unknown stream) is dropped.
@Suite struct BrowserIngressMapTests {
    static let map = BrowserIngressMap(media: [
        SDPNegotiatedMedia(mid: "0", kind: .audio, direction: .recvonly, payloadType: 109,
                           extensionIDs: [SDPHeaderExtension.audioLevel: 9, SDPHeaderExtension.mid: 4,
                                          SDPHeaderExtension.transportWideCC: 5]),
        SDPNegotiatedMedia(mid: "1", kind: .video, direction: .recvonly, payloadType: 100, rtxPayloadType: 101,
                           extensionIDs: [SDPHeaderExtension.transportWideCC: 5, SDPHeaderExtension.mid: 4,
                                          SDPHeaderExtension.rtpStreamID: 10],
                           ssrcs: [0x1111], rtxSSRCs: [0x1111: 0x2222]),
    ])

    func rewrite(_ packet: [UInt8]) -> (BrowserIngressMap.Verdict, [UInt8]) {
        var bytes = packet
        var map = Self.map
        let verdict = bytes.withUnsafeMutableBytes { map.rewrite($0.baseAddress!, length: $0.count) }
        if case .forward(let length) = verdict { bytes.removeLast(bytes.count - length) }
        return (verdict, bytes)
    }

    @Test func payloadTypesAndExtensionIdsBecomeTheRoutersInPlace() {
        let packet = browserRTP(sequence: 7, ssrc: 0xAB, payloadType: 109,
                                elements: [(9, [0x85]), (4, Array("0".utf8)), (5, [0x12, 0x34]), (12, [1, 2, 3])],
                                payload: [1, 2, 3, 4])
        let (verdict, out) = rewrite(packet)
        #expect(verdict == .forward(length: packet.count))
        #expect(out[1] == 0x80 | 111, "marker kept, Opus 111")
        #expect(extensionElements(out) == [1: [0x85], 3: [0x12, 0x34]], "mid and the unknown id 12 are padding now")
        #expect(Array(out.suffix(4)) == [1, 2, 3, 4] && out.count == packet.count)
        var video = browserRTP(sequence: 8, ssrc: 0x1111, payloadType: 100, elements: [(10, Array("h".utf8))], payload: [9])
        video[1] &= 0x7F
        let (_, videoOut) = rewrite(video)
        #expect(videoOut[1] == 96 && extensionElements(videoOut).isEmpty)
    }

    @Test func rtxIsUnwrappedIntoItsStreamAndItsPaddingIsAProbe() {
        let rtx = browserRTP(sequence: 500, ssrc: 0x2222, payloadType: 101, elements: [(5, [0, 1])],
                             payload: [0x01, 0x2C] + [0x10, 0xAA, 0xBB])
        let (verdict, out) = rewrite(rtx)
        #expect(verdict == .forward(length: rtx.count - 2))
        #expect(out[1] == 0x80 | 96 && edgeBE16(out, 2) == 300 && edgeBE32(out, 8) == 0x1111)
        #expect(edgePayload(out) == [0x10, 0xAA, 0xBB])
        #expect(extensionElements(out) == [3: [0, 1]])
        // Padding only (P bit, the last byte counts 4): a probe, to be recorded and dropped.
        var padding = browserRTP(sequence: 501, ssrc: 0x2222, payloadType: 101, elements: [(5, [0, 2])], payload: [0, 0, 0, 4])
        padding[0] |= 0x20
        #expect(rewrite(padding).0 == .probe)
        // RTX of a stream the offer did not pair, and a PT never negotiated: dropped.
        #expect(rewrite(browserRTP(sequence: 1, ssrc: 0x3333, payloadType: 101, elements: [], payload: [0, 1, 2])).0 == .drop)
        #expect(rewrite(browserRTP(sequence: 1, ssrc: 0x1111, payloadType: 102, elements: [], payload: [0, 1, 2])).0 == .drop)
    }

    @Test func cutShortPacketsAreNeverReadPastTheirLength() {
        // An extension block that claims more words than the packet has, an RTX packet whose
        // header runs past the end: nothing is read or written past the length.
        var claim = browserRTP(sequence: 1, ssrc: 0x1111, payloadType: 100, elements: [(5, [0, 1])], payload: [])
        claim[15] = 200
        #expect(rewrite(claim).0 == .forward(length: claim.count))
        var short = browserRTP(sequence: 1, ssrc: 0x2222, payloadType: 101, elements: [(5, [0, 1])], payload: [])
        short[15] = 50
        #expect(rewrite(short).0 == .drop)
    }
}
