// fuzz-sources: Sources/OTRouter/Media/BrowserIngressMap.swift Sources/OTRouter/Media/RTPInPlace.swift Sources/OTRouter/Media/WireBytes.swift
import OTMedia
import OTSignaling

/// libFuzzer target: `BrowserIngressMap`, the router's in-place rewrite of a browser
/// publisher's RTP (payload types, one-byte extension ids, RTX unwrapping, simulcast SSRC
/// learning from rid) and of its sender reports, on arbitrary plaintext datagrams. The
/// router files are compiled into the target (the `fuzz-sources` line).
///
/// Input: 1 byte choosing the negotiation (bit 0: rid simulcast q;h;f with rid id 10 and
/// repaired id 11, else announced SSRCs with an FID pair), then datagrams
/// `[length hi][length lo][bytes…]`, each rewritten (≥ 12 bytes) from an allocation of
/// exactly its size, so AddressSanitizer sees any access past it; a forwarded length must
/// not grow. Second byte 192…223: handled as an RTCP compound (`rewriteSenderReports`).
/// A trap or an AddressSanitizer report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBrowserIngress(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let simulcast = data[0] & 1 != 0
    let audio = SDPNegotiatedMedia(mid: "0", kind: .audio, direction: .recvonly, payloadType: 109,
                                   extensionIDs: [SDPHeaderExtension.audioLevel: 9, SDPHeaderExtension.mid: 4,
                                                  SDPHeaderExtension.transportWideCC: 5], ssrcs: [0x0A0A_0A0A])
    let video = SDPNegotiatedMedia(mid: "1", kind: .video, direction: .recvonly, payloadType: 100, rtxPayloadType: 101,
                                   extensionIDs: [SDPHeaderExtension.transportWideCC: 5, SDPHeaderExtension.mid: 4,
                                                  SDPHeaderExtension.rtpStreamID: 10, SDPHeaderExtension.repairedRTPStreamID: 11],
                                   rids: simulcast ? ["q", "h", "f"] : [], ssrcs: simulcast ? [] : [0x1111],
                                   rtxSSRCs: simulcast ? [:] : [0x1111: 0x2222])
    var map = BrowserIngressMap(media: [audio, video])
    map.adopt(layerSSRCs: [0xC1, 0xC2, 0xC3])
    var offset = 1
    while offset + 2 <= size {
        let length = min(Int(data[offset]) << 8 | Int(data[offset + 1]), size - offset - 2)
        offset += 2
        let packet = UnsafeMutableRawPointer.allocate(byteCount: max(length, 1), alignment: 4)
        packet.copyMemory(from: data + offset, byteCount: length)
        offset += length
        defer { packet.deallocate() }
        guard length >= 12 else { continue }
        let second = packet.load(fromByteOffset: 1, as: UInt8.self)
        if second >= 192 && second <= 223 {
            map.rewriteSenderReports(packet, length: length)
            continue
        }
        if case .forward(let out) = map.rewrite(packet, length: length), out > length || out < 12 {
            fatalError("a rewrite grew the packet or cut its header: \(length) -> \(out)")
        }
        _ = map.browserSSRC(for: 0xC2)
    }
    return 0
}
