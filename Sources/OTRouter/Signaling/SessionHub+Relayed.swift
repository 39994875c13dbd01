import OTMedia
import OTSignaling

/// Relayed (peer-to-peer) sessions: the router carries no media of native publishers (a
/// browser's stream is routed, `StreamRecord.routed`). A native publisher announces
/// its own media leg (`PublishRequest.relayedLeg`), which each subscriber receives as its
/// `media`; subscribers' preferences become one encoding limit per stream, sent to the
/// publisher (`encodingPreferences`), since only the sender can lower what it sends.
extension SessionHub {
    /// The limit for a stream from its subscribers' preferences: per dimension the largest
    /// any subscriber wants, and no limit on a dimension as soon as one subscriber has no
    /// preference for it (or there is no subscriber). Nil: no limit at all.
    static func aggregateEncodingLimit(streamId: String, subscriptions: some Sequence<SubscriptionRecord>) -> EncodingPreferences? {
        var width: Int? = 0
        var height: Int? = 0
        var rate: Double? = 0
        var any = false
        for subscription in subscriptions where subscription.streamId == streamId {
            any = true
            let preferences = subscription.preferences
            if let w = preferences?.preferredWidth, let h = preferences?.preferredHeight, w > 0, h > 0 {
                width = width.map { max($0, w) }
                height = height.map { max($0, h) }
            } else {
                width = nil
                height = nil
            }
            if let r = preferences?.preferredFrameRate, r > 0, r.isFinite { rate = rate.map { max($0, r) } } else { rate = nil }
        }
        guard any, width != nil || rate != nil else { return nil }
        return EncodingPreferences(streamId: streamId, maxWidth: width, maxHeight: height, maxFrameRate: rate)
    }

    /// Recomputes `streamId`'s limit and sends it to the publisher when it changed
    /// (lifting a limit sends one with every field nil), and revokes the keys of
    /// subscriptions that ended (`revokeEndedReceivers`). Under the lock; runs on every
    /// subscription change of the stream.
    func updateEncodingLimit(streamId: String, in session: inout SessionRecord) {
        revokeEndedReceivers(streamId: streamId, in: &session)
        guard session.relayed, let stream = session.streams[streamId], !stream.routed else { return }
        let limit = Self.aggregateEncodingLimit(streamId: streamId, subscriptions: session.subscriptions.values)
        guard limit != stream.encodingLimit else { return }
        session.streams[streamId]!.encodingLimit = limit
        let message = limit ?? EncodingPreferences(streamId: streamId, maxWidth: nil, maxHeight: nil, maxFrameRate: nil)
        sendEvent(.encodingPreferences(message), to: stream.wire.connectionId, in: session)
        log.log(.info, "stream.encodingLimit", session: session.id, connection: stream.wire.connectionId,
                ["stream": streamId, "maxWidth": message.maxWidth.map(String.init) ?? "-",
                 "maxHeight": message.maxHeight.map(String.init) ?? "-",
                 "maxFrameRate": message.maxFrameRate.map { String($0) } ?? "-"])
    }

    /// Tells the publisher of `streamId` which receiver SSRCs no longer belong to a
    /// subscription (`relayedReceiversRevoked`): its pipeline stops sending to them and
    /// refuses their RTCP, so a subscriber that unsubscribed or was disconnected does not
    /// keep the stream by keeping its keys. A publisher away in its reconnection grace
    /// gets it when it resumes (`EventLog`). Under the lock.
    func revokeEndedReceivers(streamId: String, in session: inout SessionRecord) {
        guard session.relayed, let stream = session.streams[streamId], !stream.relayedReceivers.isEmpty else { return }
        let live = Set(session.subscriptions.values.lazy.filter { $0.streamId == streamId }.compactMap(\.relayedReceiverSSRC))
        let ended = stream.relayedReceivers.subtracting(live)
        guard !ended.isEmpty else { return }
        session.streams[streamId]!.relayedReceivers = live
        session.streams[streamId]!.revokedReceivers.formUnion(ended)
        sendEvent(.relayedReceiversRevoked(RelayedReceiversRevoked(streamId: streamId, receiverSSRCs: ended.sorted())),
                  to: stream.wire.connectionId, in: session)
        log.log(.info, "stream.receiversRevoked", session: session.id, connection: stream.wire.connectionId,
                ["stream": streamId, "count": String(ended.count)])
    }

    /// A publisher came back on a new socket: it may have missed its streams' limits.
    func resendEncodingLimits(of connectionId: String, in session: SessionRecord) {
        guard let connection = session.connections[connectionId] else { return }
        for streamId in connection.streams {
            if let limit = session.streams[streamId]?.encodingLimit { send(.encodingPreferences(limit), to: connection.peer) }
        }
    }

    /// A subscriber's leg to a relayed stream: the publisher's address and SSRCs with keys
    /// of its own, derived from the publisher's keys and a fresh receiver SSRC that no other
    /// subscription of the stream has (`SRTPLegKeys.relayedReceiver(ssrc:)`; the publisher
    /// derives the same when the subscriber's first SRTCP arrives). Nil when the stream
    /// announced no leg or its keys do not parse (checked at publish, so not expected).
    /// Cost: a few HMAC-SHA256, under the lock, once per subscribe.
    static func relayedSubscriberLeg(of stream: StreamRecord, taken: Set<UInt32>) -> WireMediaLeg? {
        guard let published = stream.relayedLeg, let profile = SRTPProfile(rfcName: published.profile),
              let publisherSends = try? SRTPKeyMaterial(profile: profile, base64: published.routerKey ?? ""),
              let publisherReceives = try? SRTPKeyMaterial(profile: profile, base64: published.clientKey ?? "") else { return nil }
        var avoid = taken.union([0, RTPProbe.ssrc])
        if let audio = published.audioSSRC { avoid.insert(audio) }
        if let video = published.videoSSRC { avoid.insert(video) }
        var generator = SystemRandomNumberGenerator()
        var ssrc: UInt32 = generator.next()
        while avoid.contains(ssrc) { ssrc = generator.next() }
        let keys = SRTPLegKeys(send: publisherSends, receive: publisherReceives).relayedReceiver(ssrc: ssrc)
        // The subscriber's view: it sends RTCP with what the publisher receives with.
        var leg = WireMediaLeg(host: published.host, port: published.port, profile: published.profile,
                               clientKey: keys.receive.base64, routerKey: keys.send.base64,
                               audioSSRC: published.audioSSRC, videoSSRC: published.videoSSRC)
        leg.receiverSSRC = ssrc
        return leg
    }

    /// Why a relayed leg cannot be handed to subscribers, or nil when it can: a plausible
    /// unicast address for a client whose signaling comes from `announcer`
    /// (`RelayedMediaAddress`), a known SRTP profile and both keys present.
    static func relayedLegProblem(_ leg: WireMediaLeg, announcer: String?) -> String? {
        if let problem = RelayedMediaAddress.problem(host: leg.host, port: leg.port, announcer: announcer) { return problem }
        guard SRTPProfile(rfcName: leg.profile) != nil else {
            return "profile \"\(leg.profile.prefix(64))\" is not a supported SRTP profile"
        }
        guard let clientKey = leg.clientKey, let routerKey = leg.routerKey, !clientKey.isEmpty, !routerKey.isEmpty,
              clientKey.count <= 256, routerKey.count <= 256 else {
            return "keys are missing or too long"
        }
        return nil
    }
}
