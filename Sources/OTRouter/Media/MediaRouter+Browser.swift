import OTMedia
import OTSignaling

/// A browser subscriber's offer while the router waits for its answer: what the leg will
/// be built with once it comes. A few strings; freed by the answer or `removeSubscriber`.
struct PendingBrowserOffer: Sendable {
    let streamId: String
    /// subscribeToAudio / subscribeToVideo, kept current until the leg exists.
    var audio: Bool
    var video: Bool
    /// The subscriber's preferences given before the leg existed (width, height, rate).
    var preferences: (width: Int?, height: Int?, frameRate: Double?)?
    /// The ICE credentials the offer announced (the edge leg checks STUN against them).
    let local: ICECredentials
    /// The SSRCs the offer announced for the router's audio and video.
    let ssrcs: (audio: UInt32, video: UInt32)
    /// The offer itself, to check the answer against.
    let offer: SessionDescription
}

/// Browsers on the one-port edge: their legs are negotiated with SDP (JSEP, unified plan,
/// BUNDLE) instead of a `WireTransport`, then are edge legs like any other.
///
/// - Publisher: the offer is parsed (``SDPLimits``) and answered by `JSEP.answer` with fresh
///   router ICE credentials, the edge's certificate fingerprint and one host candidate
///   (`publicHost`:`mediaPort`); the leg takes the browser's ICE credentials and
///   fingerprint from the offer, keeps the SSRCs the offer announced (`a=ssrc`) and gets a
///   `BrowserIngressMap` for its payload types and header-extension ids.
/// - Subscriber: an offer of the stream's tracks (audio mid `0`, video mid `1`; Opus 111,
///   VP8 96, the router's extension ids, SSRCs chosen now) is kept pending until the
///   answer, which `JSEP.readSubscriberAnswer` checks; then the edge leg is opened with
///   the offer's credentials and SSRCs. Pending offers are capped router-wide.
///
/// Rid simulcast (Chromium's `a=simulcast:send` with rids and no `a=ssrc`): the leg gets one
/// router SSRC per layer (up to 3, rids in offer order = smallest first) and the ingress map
/// learns each layer's browser SSRC from its rtp-stream-id, feeding the router's
/// per-subscriber layer selection as a native simulcast publisher does.
///
/// Cost: one parse and one negotiation per call, off the packet path.
extension MediaRouter {
    /// The router's side of every SDP it writes, with `local` credentials.
    private func localTransport(_ local: ICECredentials) throws(BrowserSDPError) -> SDPLocalTransport {
        guard let edge, let port = mediaPort else { throw BrowserSDPError(.unavailable, "this router has no media edge for browsers") }
        return SDPLocalTransport(iceUfrag: local.ufrag, icePwd: local.password,
                                 fingerprint: SDPFingerprint(algorithm: DTLSFingerprint.sha256, bytes: edge.fingerprint.bytes),
                                 candidates: [SDPHostCandidate(address: publicHost, port: UInt16(port))])
    }

    private static func parse(_ text: String, _ what: String) throws(BrowserSDPError) -> SessionDescription {
        do { return try SessionDescription(parsing: text) } catch { throw BrowserSDPError(.rejected, "the \(what) does not parse: \(error)") }
    }

    private static func sessionID() -> UInt64 { UInt64.random(in: 1 ... 1 << 62) }

    /// Opens the edge leg of a browser publisher's `offer` (SDP text) for `streamId` and
    /// answers it. Throws `.rejected` for SDP that does not parse, is over ``SDPLimits``,
    /// cannot be negotiated, receives nothing, or announces no SSRC for a section that is
    /// not rid simulcast; `.unavailable` without an edge or when the leg cannot
    /// be opened. Cost: a parse, a negotiation, then as `addPublisher`.
    public func addBrowserPublisher(streamId: String, offer text: String) throws(BrowserSDPError) -> BrowserPublisherLeg {
        let offer = try Self.parse(text, "publisher offer")
        let local = ICECredentials.generate()
        let negotiated: JSEPPublisherAnswer
        do {
            negotiated = try JSEP.answer(offer: offer, local: try localTransport(local), sessionID: Self.sessionID())
        } catch let error as SDPNegotiationError {
            throw BrowserSDPError(error.side == .local ? .unavailable : .rejected, "the publisher offer cannot be answered: \(error)")
        } catch let error as BrowserSDPError {
            throw error
        } catch {
            throw BrowserSDPError(.unavailable, "\(error)")
        }
        let receiving = negotiated.media.filter { $0.direction == .recvonly }
        let audio = receiving.first { $0.kind == .audio }
        let video = receiving.first { $0.kind == .video }
        guard audio != nil || video != nil else {
            throw BrowserSDPError(.rejected, "the publisher offer sends no audio or video (no sendonly or sendrecv section)")
        }
        let ingress = BrowserIngressMap(media: receiving)
        for section in [audio, video].compactMap({ $0 }) where section.ssrcs.isEmpty {
            // Rid simulcast: the layers' SSRCs are learned from their first packets.
            guard section.kind == .video, ingress.simulcastLayers > 0,
                  section.extensionIDs[SDPHeaderExtension.rtpStreamID] != nil else {
                throw BrowserSDPError(.rejected, "the publisher offer announces no a=ssrc for mid \(section.mid) and no simulcast rids")
            }
        }
        let remote = negotiated.remote
        let transport = WireTransport(iceUfrag: remote.iceUfrag, icePassword: remote.icePwd, fingerprint: remote.fingerprint.sdpValue)
        let leg: WireMediaLeg
        do {
            leg = try addPublisherLeg(streamId: streamId, audio: audio != nil, video: video != nil,
                                      simulcastLayers: max(ingress.simulcastLayers, 1), transport: transport, local: local,
                                      browserSSRCs: (audio?.ssrcs.first, video?.ssrcs.first), ingress: ingress)
        } catch {
            // A transport the edge refuses (a fingerprint that is not sha-256) is the offer's fault.
            throw BrowserSDPError(error.code == .invalidArgument && transport.problem != nil ? .rejected : .unavailable,
                                  "the publisher leg could not be opened: \(error)")
        }
        return BrowserPublisherLeg(leg: leg, answer: negotiated.answer.text, audio: audio != nil, video: video != nil)
    }

    /// The offer to a browser subscriber of `streamId` (one section per kind the stream
    /// carries), kept pending under `subscriberId`. Throws `.tooManyPending` when
    /// `pendingLimit` offers wait already, `.unavailable` for an unknown stream, a
    /// subscriber id in use or no edge. Cost: one offer built, a registry lock.
    public func offerBrowserSubscriber(subscriberId: String, streamId: String, audio: Bool, video: Bool,
                                       pendingLimit: Int) throws(BrowserSDPError) -> String {
        let local = ICECredentials.generate()
        let transport = try localTransport(local)
        let (kinds, ssrcs) = try registry.withLock { registry throws(BrowserSDPError) -> ([SDPMediaKind], (UInt32, UInt32)) in
            guard let group = registry.groups[streamId] else { throw BrowserSDPError(.unavailable, "no stream \(streamId) is published") }
            guard registry.subscriberStreams[subscriberId] == nil, registry.pendingOffers[subscriberId] == nil else {
                throw BrowserSDPError(.unavailable, "subscriber \(subscriberId) already has a leg")
            }
            guard registry.pendingOffers.count < pendingLimit else {
                throw BrowserSDPError(.tooManyPending, "\(registry.pendingOffers.count) browser offers wait for an answer, the router's limit")
            }
            var kinds: [SDPMediaKind] = []
            if group.publisher.audioSSRC != nil { kinds.append(.audio) }
            if group.publisher.videoSSRC != nil { kinds.append(.video) }
            return (kinds, (registry.ssrcs.next(), registry.ssrcs.next()))
        }
        let tracks = kinds.enumerated().map { index, kind in
            SDPOutgoingTrack(kind: kind, mid: String(index), ssrc: kind == .audio ? ssrcs.0 : ssrcs.1, cname: "otkit-router",
                             streamID: streamId, trackID: "\(streamId)-\(kind.rawValue)")
        }
        let offer: SessionDescription
        do {
            offer = try JSEP.subscriberOffer(tracks: tracks, local: transport, sessionID: Self.sessionID())
        } catch {
            throw BrowserSDPError(.unavailable, "the subscriber offer cannot be made: \(error)")
        }
        let pending = PendingBrowserOffer(streamId: streamId, audio: audio, video: video, local: local,
                                          ssrcs: (ssrcs.0, ssrcs.1), offer: offer)
        try registry.withLock { registry throws(BrowserSDPError) in
            guard registry.pendingOffers.count < pendingLimit else {
                throw BrowserSDPError(.tooManyPending, "\(registry.pendingOffers.count) browser offers wait for an answer, the router's limit")
            }
            registry.pendingOffers[subscriberId] = pending
        }
        return offer.text
    }

    /// Browser subscriber offers waiting for their answer. One lock.
    public var pendingBrowserOffers: Int { registry.withLock { $0.pendingOffers.count } }

    /// Reads a browser subscriber's answer to its pending offer and opens its edge leg
    /// (the offer's credentials and SSRCs, the answer's ICE credentials and fingerprint).
    /// Throws `.rejected` for an answer that does not parse or fit the offer (the offer
    /// stays pending: a corrected answer may follow), `.unavailable` for no pending offer
    /// or a leg that cannot be opened. Cost: a parse, a check, then as `addSubscriber`.
    public func answerBrowserSubscriber(subscriberId: String, answer text: String) throws(BrowserSDPError) {
        guard let pending = registry.withLock({ $0.pendingOffers[subscriberId] }) else {
            throw BrowserSDPError(.unavailable, "subscriber \(subscriberId) has no offer waiting for an answer")
        }
        let answer = try Self.parse(text, "subscriber answer")
        let read: JSEPSubscriberAnswer
        do {
            read = try JSEP.readSubscriberAnswer(answer, offer: pending.offer)
        } catch {
            throw BrowserSDPError(.rejected, "the subscriber answer does not fit the offer: \(error)")
        }
        let remote = read.remote
        let transport = WireTransport(iceUfrag: remote.iceUfrag, icePassword: remote.icePwd, fingerprint: remote.fingerprint.sdpValue)
        if let problem = transport.problem { throw BrowserSDPError(.rejected, "the subscriber answer's transport: \(problem)") }
        // Taken now: a second answer racing this one finds nothing.
        guard registry.withLock({ $0.pendingOffers.removeValue(forKey: subscriberId) }) != nil else {
            throw BrowserSDPError(.unavailable, "subscriber \(subscriberId) has no offer waiting for an answer")
        }
        do {
            _ = try addSubscriberLeg(subscriberId: subscriberId, streamId: pending.streamId, audio: pending.audio, video: pending.video,
                                     transport: transport, local: pending.local, fixedSSRCs: pending.ssrcs)
        } catch {
            throw BrowserSDPError(.unavailable, "the subscriber leg could not be opened: \(error)")
        }
        if let preferences = pending.preferences {
            setPreferences(subscriberId: subscriberId, width: preferences.width, height: preferences.height,
                           frameRate: preferences.frameRate)
        }
    }
}
