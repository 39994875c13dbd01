import OTMedia
import OTSignaling

/// Turns a browser publisher's RTP into the router's canonical numbering, in place, before
/// the forwarding path sees it: the payload types and one-byte header-extension ids the
/// browser's offer chose become those native OTKit clients use and the router's subscriber
/// offers announce (VP8 96, Opus 111; audio level 1, abs-send-time 2, transport-wide
/// sequence 3), so every subscriber, native or browser, gets one numbering.
///
/// - Payload types: the negotiated VP8 / Opus PTs are rewritten; RTX (the negotiated `apt`
///   PT) is MAPPED back into the original stream (RFC 4588: the original sequence number
///   comes out of the payload, the payload moves up 2 bytes, PT and SSRC become the media
///   stream's), so the router's upstream NACKs get their repairs through the usual
///   reorder/repair path; an RTX packet with no payload (Chrome's padding probes) is only
///   recorded for transport-wide feedback. Any other PT is dropped and counted. A dropped
///   packet's extension ids are rewritten all the same: it arrived, and the forwarding
///   thread records its transport-wide number (under the router's id) before dropping it.
/// - Header extensions (one-byte profile only; the answer never offers
///   `extmap-allow-mixed`): ids of audio level, abs-send-time and transport-wide cc are
///   rewritten to the canonical ids; every other element (mid, rtp-stream-id,
///   repaired-rtp-stream-id, anything unknown) is DROPPED by overwriting it, id byte and
///   data, with zero bytes — padding in RFC 8285's grammar, same size, so nothing moves and
///   no subscriber reads the publisher's mid or rid as its own. A two-byte block is left as
///   it is (never negotiated).
///
/// - Simulcast (a video section with rids and no `a=ssrc`, Chromium's way): the browser's
///   layer SSRCs are not in the SDP. The first packet of an unknown SSRC names its layer in
///   rtp-stream-id (RTX: repaired-rtp-stream-id); the map learns browser SSRC → the router's
///   SSRC for that layer (`adopt`: the publisher leg's `encodingSSRCs`, rids in offer order =
///   smallest first, as Chromium offers `q;h;f`) and rewrites the SSRC in place from then on
///   (sender reports too, `rewriteSenderReports`), so the router's existing per-subscriber
///   layer selection sees a native simulcast publisher. The router's RTCP to the browser
///   names the browser's SSRCs again (`browserSSRC(for:)`). A packet of an unknown SSRC that
///   names no known rid is dropped; at most 8 SSRCs are learned.
///
/// Forwarding thread only; fixed tables built once, nothing allocated per packet, O(header).
struct BrowserIngressMap: Sendable {
    /// What `rewrite` decided for one packet.
    enum Verdict: Equatable {
        /// Forward it: now `length` bytes (shorter by 2 after an RTX packet was unwrapped).
        case forward(length: Int)
        /// A padding-only packet: record its transport-wide number, forward nothing.
        case probe
        /// A payload type that was not negotiated (or an RTX packet of an unknown stream).
        case drop
    }

    /// PT marker: an RTX packet to unwrap.
    private static let rtxMarker: UInt8 = 0xFE
    /// PT marker: not negotiated.
    private static let unknown: UInt8 = 0xFF

    /// Browser PT (0...127) → canonical PT, or a marker.
    private var payloadTypes = [UInt8](repeating: BrowserIngressMap.unknown, count: 128)
    /// Browser one-byte extension id (0...15) → canonical id, 0: drop the element.
    private var extensionIDs = [UInt8](repeating: 0, count: 16)
    /// RTX SSRC → media SSRC (from the offer's `a=ssrc-group:FID`), at most a handful.
    private var repairs: [(rtx: UInt32, media: UInt32)] = []
    /// Simulcast: each layer's rid (UTF-8), smallest first, and the router's SSRC for it.
    private var rids: [[UInt8]] = []
    private var layerSSRCs: [UInt32] = []
    /// The browser's ids of rtp-stream-id and repaired-rtp-stream-id (0: not negotiated).
    private var ridID: UInt8 = 0
    private var repairedRidID: UInt8 = 0
    /// Learned: browser SSRC → router SSRC, and whether it is the layer's RTX.
    private var learned: [(browser: UInt32, router: UInt32, rtx: Bool)] = []
    /// The most SSRCs learned (3 layers and their RTX, with room to spare).
    static let learnedCapacity = 8

    /// The canonical id of each header extension the router keeps.
    static let canonicalExtensions: [String: UInt8] = [
        SDPHeaderExtension.audioLevel: 1, SDPHeaderExtension.absSendTime: 2,
        SDPHeaderExtension.transportWideCC: RTPExtensionID.transportWideSequence,
    ]

    /// The map for the sections a publisher's answer accepted. Cost: two small tables.
    init(media: [SDPNegotiatedMedia]) {
        for section in media {
            let canonical = section.kind == .audio ? SDPRouterCodecs.opusPayloadType : SDPRouterCodecs.vp8PayloadType
            payloadTypes[Int(section.payloadType & 0x7F)] = canonical
            if let rtx = section.rtxPayloadType { payloadTypes[Int(rtx & 0x7F)] = Self.rtxMarker }
            for (uri, id) in section.extensionIDs where id >= 1 && id <= 14 {
                extensionIDs[Int(id)] = Self.canonicalExtensions[uri] ?? 0
            }
            for (media, rtx) in section.rtxSSRCs { repairs.append((rtx, media)) }
            if section.kind == .video, section.ssrcs.isEmpty, !section.rids.isEmpty {
                rids = section.rids.prefix(3).map { Array($0.utf8) }
                ridID = section.extensionIDs[SDPHeaderExtension.rtpStreamID] ?? 0
                repairedRidID = section.extensionIDs[SDPHeaderExtension.repairedRTPStreamID] ?? 0
            }
        }
        learned.reserveCapacity(Self.learnedCapacity)
    }

    /// How many simulcast layers the offer's rids name (0: none, the SSRCs are announced).
    var simulcastLayers: Int { rids.count }

    /// Takes the router's SSRC of each simulcast layer, smallest first (the publisher leg's
    /// `encodingSSRCs`), before the leg's thread starts.
    mutating func adopt(layerSSRCs ssrcs: [UInt32]) {
        layerSSRCs = Array(ssrcs.prefix(rids.count))
    }

    /// The browser's SSRC for the router's `ssrc` (a learned simulcast layer), else `ssrc`:
    /// what the router's RTCP to the browser must name. O(learned).
    func browserSSRC(for ssrc: UInt32) -> UInt32 {
        for entry in learned where entry.router == ssrc && !entry.rtx { return entry.browser }
        return ssrc
    }

    /// Rewrites the SSRC of each sender report of a plaintext compound from a learned
    /// browser SSRC to the router's, in place. O(packets).
    func rewriteSenderReports(_ p: UnsafeMutableRawPointer, length: Int) {
        guard !learned.isEmpty else { return }
        var offset = 0
        while offset + 8 <= length {
            let words = Int(WireBytes.be16(p, offset + 2))
            if p.load(fromByteOffset: offset + 1, as: UInt8.self) == 200 {
                let ssrc = WireBytes.be32(p, offset + 4)
                for entry in learned where entry.browser == ssrc && !entry.rtx { WireBytes.store32(entry.router, p, offset + 4) }
            }
            offset += 4 * (words + 1)
        }
    }

    /// Rewrites the plaintext RTP packet at `p` (`length` ≥ 12 bytes) in place; see the
    /// type's notes. Never reads or writes past `length`.
    mutating func rewrite(_ p: UnsafeMutableRawPointer, length: Int) -> Verdict {
        let second = p.load(fromByteOffset: 1, as: UInt8.self)
        let mapped = payloadTypes[Int(second & 0x7F)]
        guard mapped != Self.unknown else {
            rewriteExtensions(p, length)  // still an arrival for transport-wide feedback
            return .drop
        }
        var layerSSRC: UInt32?
        if !layerSSRCs.isEmpty, mapped == Self.rtxMarker || mapped == SDPRouterCodecs.vp8PayloadType {
            // Before the extension ids change: the rid is read under the browser's id.
            switch learn(p, length, rtx: mapped == Self.rtxMarker) {
            case .some(let ssrc): layerSSRC = ssrc
            case .none:
                rewriteExtensions(p, length)  // still an arrival for transport-wide feedback
                return mapped == Self.rtxMarker && Self.paddingOnly(p, length) ? .probe : .drop
            }
        }
        rewriteExtensions(p, length)
        guard mapped == Self.rtxMarker else {
            p.storeBytes(of: (second & 0x80) | mapped, toByteOffset: 1, as: UInt8.self)
            if let layerSSRC { WireBytes.store32(layerSSRC, p, 8) }
            return .forward(length: length)
        }
        return unwrapRTX(p, length, marker: second & 0x80, media: layerSSRC)
    }

    /// The router's SSRC for a simulcast packet's SSRC: learned before, or learned now from
    /// its rid; nil when it names no layer (or the table is full).
    private mutating func learn(_ p: UnsafeMutableRawPointer, _ length: Int, rtx: Bool) -> UInt32? {
        let ssrc = WireBytes.be32(p, 8)
        for entry in learned where entry.browser == ssrc { return entry.router }
        guard learned.count < Self.learnedCapacity, let layer = layer(p, length, id: rtx ? repairedRidID : ridID) else { return nil }
        learned.append((ssrc, layerSSRCs[layer], rtx))
        return layerSSRCs[layer]
    }

    /// The layer whose rid the element `id` of the packet's one-byte block holds.
    private func layer(_ p: UnsafeMutableRawPointer, _ length: Int, id wanted: UInt8) -> Int? {
        let first = p.load(as: UInt8.self)
        guard wanted != 0, first & 0x10 != 0 else { return nil }
        let blockStart = 12 + 4 * Int(first & 0x0F)
        guard blockStart + 4 <= length, WireBytes.be16(p, blockStart) == RTPInPlace.oneByteProfile else { return nil }
        let end = min(blockStart + 4 + 4 * Int(WireBytes.be16(p, blockStart + 2)), length)
        var offset = blockStart + 4
        while offset < end {
            let byte = p.load(fromByteOffset: offset, as: UInt8.self)
            if byte == 0 { offset += 1; continue }
            let id = byte >> 4
            if id == 15 { return nil }
            let size = Int(byte & 0x0F) + 1
            guard offset + 1 + size <= end else { return nil }
            if id == wanted {
                for (index, rid) in rids.enumerated() where index < layerSSRCs.count && rid.count == size {
                    var same = true
                    for k in 0..<size where p.load(fromByteOffset: offset + 1 + k, as: UInt8.self) != rid[k] { same = false }
                    if same { return index }
                }
                return nil
            }
            offset += 1 + size
        }
        return nil
    }

    /// Whether the packet carries nothing but padding.
    private static func paddingOnly(_ p: UnsafeMutableRawPointer, _ length: Int) -> Bool {
        guard let start = RTPInPlace.payloadOffset(p, length) else { return false }
        var padding = 0
        if p.load(as: UInt8.self) & 0x20 != 0, length > start { padding = Int(p.load(fromByteOffset: length - 1, as: UInt8.self)) }
        return length - padding - start <= 0
    }

    /// RFC 4588 §4: [RTP header][OSN 2 bytes][original payload][padding].
    private func unwrapRTX(_ p: UnsafeMutableRawPointer, _ length: Int, marker: UInt8, media learnedMedia: UInt32?) -> Verdict {
        guard let start = RTPInPlace.payloadOffset(p, length) else { return .drop }
        var padding = 0
        if p.load(as: UInt8.self) & 0x20 != 0, length > start { padding = Int(p.load(fromByteOffset: length - 1, as: UInt8.self)) }
        guard length - padding - start >= 2 else { return .probe }
        let ssrc = WireBytes.be32(p, 8)
        guard let media = learnedMedia ?? repairs.first(where: { $0.rtx == ssrc })?.media else { return .drop }
        let original = WireBytes.be16(p, start)
        (p + start).copyMemory(from: p + start + 2, byteCount: length - start - 2)
        WireBytes.store16(original, p, 2)
        WireBytes.store32(media, p, 8)
        p.storeBytes(of: marker | SDPRouterCodecs.vp8PayloadType, toByteOffset: 1, as: UInt8.self)
        return .forward(length: length - 2)
    }

    /// Renumbers (or zero-fills) each element of a one-byte extension block.
    private func rewriteExtensions(_ p: UnsafeMutableRawPointer, _ length: Int) {
        let first = p.load(as: UInt8.self)
        guard first & 0x10 != 0 else { return }
        let blockStart = 12 + 4 * Int(first & 0x0F)
        guard blockStart + 4 <= length, WireBytes.be16(p, blockStart) == RTPInPlace.oneByteProfile else { return }
        let end = min(blockStart + 4 + 4 * Int(WireBytes.be16(p, blockStart + 2)), length)
        var offset = blockStart + 4
        while offset < end {
            let byte = p.load(fromByteOffset: offset, as: UInt8.self)
            if byte == 0 { offset += 1; continue }
            let id = byte >> 4
            if id == 15 { return }  // RFC 8285: stop reading the block
            let size = Int(byte & 0x0F) + 1
            let elementEnd = min(offset + 1 + size, end)
            let canonical = extensionIDs[Int(id)]
            if canonical == 0 {
                (p + offset).initializeMemory(as: UInt8.self, repeating: 0, count: elementEnd - offset)
            } else {
                p.storeBytes(of: canonical << 4 | (byte & 0x0F), toByteOffset: offset, as: UInt8.self)
            }
            offset = elementEnd
        }
    }
}
