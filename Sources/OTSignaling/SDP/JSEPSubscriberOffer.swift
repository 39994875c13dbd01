/// One track the router sends to a browser subscriber: a section of its offer.
public struct SDPOutgoingTrack: Sendable, Equatable, Hashable {
    /// Audio (Opus 111) or video (VP8 96 + RTX 97).
    public var kind: SDPMediaKind
    /// The section's mid (unique in the offer; a token such as `0`, `1`).
    public var mid: String
    /// The SSRC the router sends the track's media with.
    public var ssrc: UInt32
    /// The SSRC of its retransmissions (video), nil for none.
    public var rtxSSRC: UInt32?
    /// The RTCP CNAME of the router's sources.
    public var cname: String
    /// The MediaStream id (the OpenTok stream id: audio and video of a stream share it).
    public var streamID: String
    /// The track id.
    public var trackID: String

    /// A track to offer.
    public init(kind: SDPMediaKind, mid: String, ssrc: UInt32, rtxSSRC: UInt32? = nil, cname: String, streamID: String,
                trackID: String) {
        self.kind = kind
        self.mid = mid
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.cname = cname
        self.streamID = streamID
        self.trackID = trackID
    }
}

extension JSEP {
    /// The router's OFFER to a browser SUBSCRIBER: one `sendonly` section per track, all in
    /// one BUNDLE group, `a=ice-lite`, `a=setup:actpass` (the browser must answer `active`:
    /// the router stays the DTLS server), Opus 111 / VP8 96 + RTX 97 with the router's
    /// feedback and header extensions (``SDPRouterCodecs``), `a=msid`, `a=ssrc` cname/msid
    /// lines and `a=ssrc-group:FID` for RTX.
    ///
    /// - Throws: ``SDPNegotiationError`` on side `.local` when `local` is invalid, there are
    ///   no tracks, or two tracks share a mid or a mid / id is not a token.
    /// - Cost: linear in the number of tracks.
    public static func subscriberOffer(tracks: [SDPOutgoingTrack], local: SDPLocalTransport, sessionID: UInt64,
                                       sessionVersion: UInt64 = 2) throws(SDPNegotiationError) -> SessionDescription {
        try local.validate()
        guard !tracks.isEmpty, tracks.count <= SDPLimits.maximumMediaSections else {
            throw SDPNegotiationError(.local, .invalidLocalTransport(field: "tracks"))
        }
        var mids: Set<String> = []
        for track in tracks {
            guard SDPScalar.isToken(Substring(track.mid)), mids.insert(track.mid).inserted,
                  SDPScalar.isVisible(Substring(track.cname)), SDPScalar.isVisible(Substring(track.streamID)),
                  SDPScalar.isVisible(Substring(track.trackID)) else {
                throw SDPNegotiationError(.local, .invalidLocalTransport(field: "track \(track.mid)"), mid: track.mid)
            }
        }
        var offer = SessionDescription(origin: SDPOrigin(sessionID: sessionID, sessionVersion: sessionVersion))
        offer.append(SDPGroup(semantics: "BUNDLE", mids: tracks.map(\.mid)))
        offer.append("ice-lite")
        offer.append("msid-semantic", " WMS *")
        let (connection, port) = local.defaultDestination
        for track in tracks {
            let video = track.kind == .video
            let pts = video ? [SDPRouterCodecs.vp8PayloadType, SDPRouterCodecs.rtxPayloadType] : [SDPRouterCodecs.opusPayloadType]
            var section = SDPMediaDescription(kind: track.kind.rawValue, port: port, proto: proto, formats: pts.map(String.init),
                                              lines: [connection])
            section.attributes = local.transportAttributes(setup: .actpass)
            section.append("mid", track.mid)
            for (id, uri) in video ? SDPRouterCodecs.videoExtensions : SDPRouterCodecs.audioExtensions {
                section.append(SDPExtmap(id: id, uri: uri))
            }
            section.append(SDPDirection.sendonly.rawValue)
            section.append(SDPMsid(stream: track.streamID, track: track.trackID))
            section.append("rtcp-mux")
            let main = pts[0]
            if video {
                section.append(SDPRtpMap(payloadType: main, encoding: "VP8", clockRate: 90_000))
            } else {
                section.append(SDPRtpMap(payloadType: main, encoding: "opus", clockRate: 48_000, channels: 2))
            }
            for (type, parameter) in video ? SDPRouterCodecs.videoFeedback : SDPRouterCodecs.audioFeedback {
                section.append(SDPRTCPFeedback(payloadType: main, type: type, parameter: parameter))
            }
            if video {
                section.append(SDPRtpMap(payloadType: SDPRouterCodecs.rtxPayloadType, encoding: "rtx", clockRate: 90_000))
                section.append(SDPFormatParameters(payloadType: SDPRouterCodecs.rtxPayloadType, parameters: "apt=\(main)"))
            } else {
                section.append(SDPFormatParameters(payloadType: main, parameters: "minptime=10;useinbandfec=1"))
            }
            if let rtx = track.rtxSSRC, video { section.append(SDPSSRCGroup(semantics: "FID", ssrcs: [track.ssrc, rtx])) }
            for ssrc in [track.ssrc] + (video ? track.rtxSSRC.map { [$0] } ?? [] : []) {
                section.append(SDPSSRCAttribute(ssrc: ssrc, attribute: "cname", value: track.cname))
                section.append(SDPSSRCAttribute(ssrc: ssrc, attribute: "msid", value: "\(track.streamID) \(track.trackID)"))
            }
            section.attributes += local.candidateAttributes()
            offer.media.append(section)
        }
        return offer
    }
}
