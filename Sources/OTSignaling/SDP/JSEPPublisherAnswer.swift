/// The router's answer to a browser publisher's offer, and what it settled on.
public struct JSEPPublisherAnswer: Sendable, Equatable {
    /// The answer to send back (``SessionDescription/text`` for the wire).
    public var answer: SessionDescription
    /// The browser's ICE credentials, fingerprint and setup role (from the BUNDLE tag section).
    public var remote: SDPRemoteTransport
    /// The accepted sections, in offer order; rejected ones (port 0 in the answer) are absent.
    public var media: [SDPNegotiatedMedia]
}

/// JSEP (RFC 8829) offer/answer with browsers, unified plan, on one BUNDLE transport.
public enum JSEP {
    /// The transport every accepted section must use.
    public static let proto = "UDP/TLS/RTP/SAVPF"

    /// Answers a browser PUBLISHER's offer as an ICE-lite, DTLS-server router that receives.
    ///
    /// Accepted: audio sections offering Opus/48000/2, video sections offering VP8/90000
    /// (with its RTX when an `apt` names it), on `UDP/TLS/RTP/SAVPF`, in the offer's BUNDLE
    /// group. Each is answered `recvonly` (`inactive` if the browser offered `recvonly` or
    /// `inactive`), with the offer's payload types, the offered ids of the supported header
    /// extensions (``SDPHeaderExtension/audio`` / ``SDPHeaderExtension/video``, one-byte ids
    /// 1-14 only: the answer has no `extmap-allow-mixed`), the offered feedback among nack,
    /// nack pli, ccm fir, goog-remb, transport-cc, and — when the browser offers
    /// `a=simulcast:send` with its `a=rid`s and the rtp-stream-id extension — `a=rid:<id> recv`
    /// and `a=simulcast:recv` with the same rids. Session: `a=group:BUNDLE` of the accepted
    /// mids, `a=ice-lite`; sections: `a=setup:passive`, `a=rtcp-mux`, the router's candidates.
    /// Everything else (data channels, H.264-only video, other transports, sections outside
    /// BUNDLE) is rejected with port 0.
    ///
    /// - Throws: ``SDPNegotiationError`` on side `.publisherOffer` (1610): no acceptable
    ///   section, missing ICE credentials / fingerprint / mid, `a=setup:passive` (or
    ///   holdconn, or none), no `a=rtcp-mux`, several sections without BUNDLE; side `.local`
    ///   (2000) when `local` is invalid.
    /// - Cost: linear in the offer; a few small allocations per section. Call it once per
    ///   negotiation, off the packet path.
    public static func answer(offer: SessionDescription, local: SDPLocalTransport, sessionID: UInt64,
                              sessionVersion: UInt64 = 2) throws(SDPNegotiationError) -> JSEPPublisherAnswer {
        try local.validate()
        let bundle = offer.bundle
        var acceptable: [Int: (SDPMediaKind, UInt8, UInt8?)] = [:]
        for (index, section) in offer.media.enumerated() {
            guard let kind = SDPMediaKind(rawValue: section.kind), section.proto == proto,
                  section.port != 0 || section.has("bundle-only"),
                  let codec = SDPRouterCodecs.choose(in: section, kind: kind) else { continue }
            guard let mid = section.mid else { throw SDPNegotiationError(.publisherOffer, .missingMid) }
            if let bundle, !bundle.contains(mid) { continue }
            acceptable[index] = (kind, codec.0, codec.1)
        }
        guard let tagIndex = acceptable.keys.min() else { throw SDPNegotiationError(.publisherOffer, .noAcceptableMedia) }
        if bundle == nil, acceptable.count > 1 { throw SDPNegotiationError(.publisherOffer, .bundleRequired) }
        let remote = try SDPRemoteTransport.read(offer.media[tagIndex], in: offer, allowed: [.actpass, .active], side: .publisherOffer)

        var answer = SessionDescription(origin: SDPOrigin(sessionID: sessionID, sessionVersion: sessionVersion))
        var accepted: [SDPNegotiatedMedia] = []
        var sections: [SDPMediaDescription] = []
        for (index, section) in offer.media.enumerated() {
            guard let (kind, pt, rtx) = acceptable[index] else {
                sections.append(rejected(section))
                continue
            }
            // Every bundled section must be usable on its own terms too (RFC 8843 §7.3.3).
            _ = try SDPRemoteTransport.read(section, in: offer, allowed: [.actpass, .active], side: .publisherOffer)
            guard section.rtcpMux else { throw SDPNegotiationError(.publisherOffer, .rtcpMuxRequired, mid: section.mid) }
            let (answered, negotiated) = answerSection(section, kind: kind, pt: pt, rtx: rtx, local: local)
            sections.append(answered)
            accepted.append(negotiated)
        }
        answer.append(SDPGroup(semantics: "BUNDLE", mids: accepted.map(\.mid)))
        answer.append("ice-lite")
        answer.media = sections
        return JSEPPublisherAnswer(answer: answer, remote: remote, media: accepted)
    }

    /// A rejected section: port 0, the offered formats and mid (JSEP §5.3.1).
    static func rejected(_ offered: SDPMediaDescription) -> SDPMediaDescription {
        var section = SDPMediaDescription(kind: offered.kind, port: 0, proto: offered.proto, formats: offered.formats,
                                          lines: [SDPLine("c", "IN IP4 0.0.0.0")])
        if let mid = offered.mid { section.append("mid", mid) }
        return section
    }

    /// One accepted section of the answer and what it settled on.
    private static func answerSection(_ offered: SDPMediaDescription, kind: SDPMediaKind, pt: UInt8, rtx: UInt8?,
                                      local: SDPLocalTransport) -> (SDPMediaDescription, SDPNegotiatedMedia) {
        let mid = offered.mid ?? ""
        let (connection, port) = local.defaultDestination
        var section = SDPMediaDescription(kind: offered.kind, port: port, proto: proto,
                                          formats: [pt] .map(String.init) + (rtx.map { [String($0)] } ?? []), lines: [connection])
        section.attributes = local.transportAttributes(setup: .passive)
        section.append("mid", mid)
        let supported = kind == .audio ? SDPHeaderExtension.audio : SDPHeaderExtension.video
        var extensionIDs: [String: UInt8] = [:]
        for extmap in offered.extmaps where supported.contains(extmap.uri) && extmap.id <= 14 && extensionIDs[extmap.uri] == nil {
            extensionIDs[extmap.uri] = extmap.id
            section.append(SDPExtmap(id: extmap.id, uri: extmap.uri))
        }
        let offeredDirection = offered.direction ?? .sendrecv
        let direction: SDPDirection = offeredDirection == .sendonly || offeredDirection == .sendrecv ? .recvonly : .inactive
        section.append(direction.rawValue)
        section.append("rtcp-mux")
        if let map = offered.rtpMap(for: pt) { section.append(map) }
        let feedback = offered.rtcpFeedback(for: pt).filter { SDPRouterCodecs.supports($0, kind: kind) }
        var agreed: [SDPRTCPFeedback] = []
        for item in feedback where !agreed.contains(where: { $0.type == item.type && $0.parameter == item.parameter }) {
            agreed.append(SDPRTCPFeedback(payloadType: pt, type: item.type, parameter: item.parameter))
        }
        for item in agreed { section.append(item) }
        if let fmtp = offered.formatParameters(for: pt) { section.append(fmtp) }
        if let rtx {
            if let map = offered.rtpMap(for: rtx) { section.append(map) }
            section.append(SDPFormatParameters(payloadType: rtx, parameters: "apt=\(pt)"))
        }
        var rids: [String] = []
        if kind == .video, extensionIDs[SDPHeaderExtension.rtpStreamID] != nil, let send = offered.simulcast?.send {
            let offeredRids = Set(offered.rids.filter { $0.direction == .send }.map(\.id))
            let streams = send.map { $0.filter { offeredRids.contains($0.rid) } }.filter { !$0.isEmpty }
            if !streams.isEmpty {
                rids = SDPSimulcast.rids(streams)
                for rid in rids { section.append(SDPRid(id: rid, direction: .recv)) }
                section.append(SDPSimulcast(recv: streams))
            }
        }
        section.attributes += local.candidateAttributes()
        let (ssrcs, rtxSSRCs) = announcedSources(offered)
        let negotiated = SDPNegotiatedMedia(mid: mid, kind: kind, direction: direction, payloadType: pt, rtxPayloadType: rtx,
                                            extensionIDs: extensionIDs, rtcpFeedback: agreed, rids: rids,
                                            ssrcs: ssrcs, rtxSSRCs: rtxSSRCs)
        return (section, negotiated)
    }

    /// The SSRCs a section announces (`a=ssrc`, in order, deduplicated) and its FID pairs.
    static func announcedSources(_ section: SDPMediaDescription) -> ([UInt32], [UInt32: UInt32]) {
        var rtxSSRCs: [UInt32: UInt32] = [:]
        for group in section.ssrcGroups where group.semantics == "FID" && group.ssrcs.count == 2 {
            rtxSSRCs[group.ssrcs[0]] = group.ssrcs[1]
        }
        let repairs = Set(rtxSSRCs.values)
        var ssrcs: [UInt32] = []
        for item in section.ssrcs where !ssrcs.contains(item.ssrc) && !repairs.contains(item.ssrc) { ssrcs.append(item.ssrc) }
        return (ssrcs, rtxSSRCs)
    }
}
