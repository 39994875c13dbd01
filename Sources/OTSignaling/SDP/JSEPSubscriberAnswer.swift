/// What a browser subscriber's answer settled on.
public struct JSEPSubscriberAnswer: Sendable, Equatable {
    /// The browser's ICE credentials, fingerprint and setup role (always `active`).
    public var remote: SDPRemoteTransport
    /// The sections it accepted (direction `sendonly` from the router, or `inactive`), in
    /// offer order; those it rejected (port 0) are absent.
    public var media: [SDPNegotiatedMedia]
    /// The mids it rejected.
    public var rejectedMids: [String]
}

extension JSEP {
    /// Reads a browser SUBSCRIBER's answer to `offer` (made by ``subscriberOffer(tracks:local:sessionID:sessionVersion:)``).
    ///
    /// The answer must have the offer's sections in order (same kind and mid); an accepted
    /// one must be `recvonly` or `inactive`, have `a=rtcp-mux`, use only offered payload
    /// types (at least the codec), and the transport must be `a=setup:active` (the router is
    /// the DTLS server) with ICE credentials and a sha-256/384/512 fingerprint. Accepted
    /// header extensions are those whose id and URI both match the offer's.
    ///
    /// - Throws: ``SDPNegotiationError`` on side `.subscriberAnswer` (1600).
    /// - Cost: linear in the descriptions.
    public static func readSubscriberAnswer(_ answer: SessionDescription, offer: SessionDescription)
        throws(SDPNegotiationError) -> JSEPSubscriberAnswer {
        func fail(_ reason: SDPNegotiationError.Reason, _ mid: String? = nil) -> SDPNegotiationError {
            SDPNegotiationError(.subscriberAnswer, reason, mid: mid)
        }
        guard answer.media.count == offer.media.count else { throw fail(.answerDoesNotMatchOffer) }
        var remote: SDPRemoteTransport?
        var media: [SDPNegotiatedMedia] = []
        var rejected: [String] = []
        for (offered, answered) in zip(offer.media, answer.media) {
            let mid = offered.mid ?? ""
            guard answered.kind == offered.kind, answered.mid == nil || answered.mid == offered.mid else {
                throw fail(.answerDoesNotMatchOffer, mid)
            }
            guard answered.port != 0 else {
                rejected.append(mid)
                continue
            }
            guard answered.mid == offered.mid, let kind = SDPMediaKind(rawValue: offered.kind) else {
                throw fail(.answerDoesNotMatchOffer, mid)
            }
            let transport = try SDPRemoteTransport.read(answered, in: answer, allowed: [.active], side: .subscriberAnswer)
            if remote == nil { remote = transport }
            guard answered.rtcpMux else { throw fail(.rtcpMuxRequired, mid) }
            let direction = answered.direction ?? .sendrecv
            guard direction == .recvonly || direction == .inactive else { throw fail(.unexpectedDirection(direction), mid) }
            let offeredPTs = Set(offered.payloadTypes)
            let answeredPTs = answered.payloadTypes
            guard let main = offered.payloadTypes.first, answeredPTs.contains(main),
                  answeredPTs.allSatisfy({ offeredPTs.contains($0) }) else { throw fail(.payloadTypeNotOffered, mid) }
            let rtx = offered.payloadTypes.dropFirst().first { answeredPTs.contains($0) }
            var extensionIDs: [String: UInt8] = [:]
            let offeredExtensions = offered.extmaps
            for extmap in answered.extmaps where offeredExtensions.contains(where: { $0.id == extmap.id && $0.uri == extmap.uri }) {
                extensionIDs[extmap.uri] = extmap.id
            }
            let feedback = answered.rtcpFeedback(for: main).filter { SDPRouterCodecs.supports($0, kind: kind) }
                .map { SDPRTCPFeedback(payloadType: main, type: $0.type, parameter: $0.parameter) }
            let ssrcs = offered.ssrcs.map(\.ssrc)
            let primary = ssrcs.first.map { [$0] } ?? []
            let (_, rtxSSRCs) = announcedSources(offered)
            media.append(SDPNegotiatedMedia(mid: mid, kind: kind, direction: direction == .recvonly ? .sendonly : .inactive,
                                            payloadType: main, rtxPayloadType: rtx, extensionIDs: extensionIDs,
                                            rtcpFeedback: feedback, ssrcs: primary, rtxSSRCs: rtxSSRCs))
        }
        guard let remote else { throw fail(.noAcceptableMedia) }
        if media.count > 1 {
            guard let bundle = answer.bundle, media.allSatisfy({ bundle.contains($0.mid) }) else { throw fail(.bundleRequired) }
        }
        return JSEPSubscriberAnswer(remote: remote, media: media, rejectedMids: rejected)
    }
}
