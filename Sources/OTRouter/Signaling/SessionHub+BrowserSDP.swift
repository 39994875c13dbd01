import OTNet
import OTSignaling

/// Browsers over signaling (routed sessions, and a browser's own stream in a relayed one,
/// which the router carries since a browser cannot meet relayed peers): the same
/// `publish` / `subscribe` as native clients, with SDP instead of a `transport` (see
/// `MediaRouter+Browser`).
///
/// - `publish` with `sdpOffer`: the media router answers it off the lock; the reply is
///   `published` with `sdpAnswer` (and the leg in `media`), or an error 1500.
/// - `subscribe` with `sdp: true`: the reply is `subscribed` with `sdpOffer`; the
///   subscription exists at once (unsubscribe and the connection's end free the pending
///   offer), its leg once `subscriberAnswer` came. That message gets NO reply on success
///   (media starts once ICE and DTLS finish), an error 1600 when the answer does not fit.
/// - SDP the router refuses (does not parse, over `SDPLimits`, cannot be negotiated) is
///   counted in `otkit_sdp_rejected_total`; the connection and every other leg stay.
/// - Unanswered offers are capped router-wide (`RouterLimits.pendingSDPOffers`, 1605).
extension SessionHub {
    func browserPublish(_ request: PublishRequest, offer: String, me: ConnectionRecord, session: inout SessionRecord,
                        requestId: Int, peer: any WebSocketPeer) {
        let streamId = Self.newID()
        session.connections[me.id]!.pendingStreams += 1
        pendingLegs += 1
        let sessionId = session.id, connectionId = me.id
        afterUnlock { [self] in
            let outcome: Result<BrowserPublisherLeg, BrowserSDPError>
            do throws(BrowserSDPError) {
                outcome = .success(try media.addBrowserPublisher(streamId: streamId, offer: offer))
            } catch {
                outcome = .failure(error)
            }
            perform {
                landBrowserPublish(request, streamId: streamId, outcome: outcome, sessionId: sessionId, connectionId: connectionId,
                                   requestId: requestId, peer: peer)
            }
        }
    }

    private func landBrowserPublish(_ request: PublishRequest, streamId: String, outcome: Result<BrowserPublisherLeg, BrowserSDPError>,
                                    sessionId: String, connectionId: String, requestId: Int, peer: any WebSocketPeer) {
        pendingLegs -= 1
        let media = media
        let opened = (try? outcome.get()) != nil
        guard var session = sessions.removeValue(forKey: sessionId) else {
            if opened { afterUnlock { media.removePublisher(streamId: streamId) } }
            return
        }
        defer { sessions[sessionId] = session }
        guard session.connections[connectionId] != nil else {
            if opened { afterUnlock { media.removePublisher(streamId: streamId) } }
            return
        }
        session.connections[connectionId]!.pendingStreams -= 1
        switch outcome {
        case .failure(let error):
            refusedSDP(error, "publish", session: sessionId, connection: connectionId)
            send(.error(ErrorReply(code: 1500, message: "unable to publish: \(error.message)")), requestId: requestId, to: peer)
        case .success(let browser):
            var request = request
            request.audioTrack = browser.audio
            request.videoTrack = browser.video
            request.hasAudio = request.hasAudio && browser.audio
            request.hasVideo = request.hasVideo && browser.video
            land(request, streamId: streamId, leg: browser.leg, connectionId: connectionId, in: &session) { message in
                guard case .published(var reply) = message else { return send(message, requestId: requestId, to: peer) }
                reply.sdpAnswer = browser.answer
                send(.published(reply), requestId: requestId, to: peer)
            }
        }
    }

    func browserSubscribe(_ request: SubscribeRequest, me: ConnectionRecord, session: inout SessionRecord, requestId: Int,
                          peer: any WebSocketPeer) {
        let subscriberId = Self.newID()
        session.connections[me.id]!.pendingSubscriptions += 1
        let record = SubscriptionRecord(id: subscriberId, streamId: request.streamId, connectionId: me.id,
                                        audio: request.subscribeToAudio, video: request.subscribeToVideo)
        let sessionId = session.id, limit = configuration.limits.pendingSDPOffers
        afterUnlock { [self] in
            let outcome: Result<String, BrowserSDPError>
            do throws(BrowserSDPError) {
                outcome = .success(try media.offerBrowserSubscriber(subscriberId: subscriberId, streamId: request.streamId,
                                                                    audio: request.subscribeToAudio, video: request.subscribeToVideo,
                                                                    pendingLimit: limit))
            } catch {
                outcome = .failure(error)
            }
            perform { landBrowserSubscription(record, outcome: outcome, sessionId: sessionId, requestId: requestId, peer: peer) }
        }
    }

    private func landBrowserSubscription(_ record: SubscriptionRecord, outcome: Result<String, BrowserSDPError>, sessionId: String,
                                         requestId: Int, peer: any WebSocketPeer) {
        let offered = (try? outcome.get()) != nil
        guard var session = sessions.removeValue(forKey: sessionId) else {
            if offered { removeLegLater(record.id) }
            return
        }
        defer { sessions[sessionId] = session }
        guard session.connections[record.connectionId] != nil else {
            if offered { removeLegLater(record.id) }
            return
        }
        session.connections[record.connectionId]!.pendingSubscriptions -= 1
        switch outcome {
        case .failure(let error):
            if error.kind == .tooManyPending {
                counters.limitRefused(.pendingSDPOffers)
                return send(.error(ErrorReply(code: 1605, message: "unable to subscribe: \(error.message)")), requestId: requestId, to: peer)
            }
            refusedSDP(error, "subscribe", session: sessionId, connection: record.connectionId)
            send(.error(ErrorReply(code: 1604, message: "unable to subscribe: \(error.message)")), requestId: requestId, to: peer)
        case .success(let offer):
            guard session.streams[record.streamId] != nil else {
                removeLegLater(record.id)
                return send(.error(ErrorReply(code: 1604, message: "unable to subscribe: stream \(record.streamId) left the session")),
                            requestId: requestId, to: peer)
            }
            land(record, leg: nil, in: &session) { message in
                guard case .subscribed(var reply) = message else { return send(message, requestId: requestId, to: peer) }
                reply.sdpOffer = offer
                send(.subscribed(reply), requestId: requestId, to: peer)
            }
        }
    }

    /// `subscriberAnswer`: the leg is opened off the lock; nothing is sent on success.
    func subscriberAnswered(_ answer: SubscriberAnswer, connectionId: String, sessionId: String, requestId: Int,
                            peer: any WebSocketPeer) {
        afterUnlock { [self] in
            do throws(BrowserSDPError) {
                try media.answerBrowserSubscriber(subscriberId: answer.subscriberId, answer: answer.sdp)
                perform {
                    // Unsubscribed (or gone) while the leg opened: it goes too.
                    if sessions[sessionId]?.subscriptions[answer.subscriberId] == nil { removeLegLater(answer.subscriberId) }
                }
            } catch {
                perform {
                    refusedSDP(error, "subscriberAnswer", session: sessionId, connection: connectionId)
                    let code = error.kind == .rejected ? 1600 : 1604
                    send(.error(ErrorReply(code: code, message: "unable to subscribe: \(error.message)")), requestId: requestId, to: peer)
                }
            }
        }
    }

    /// Counts and logs a refused browser SDP (the peer's fault) or a failed leg (ours).
    private func refusedSDP(_ error: BrowserSDPError, _ request: String, session: String, connection: String) {
        if error.kind == .rejected {
            counters.sdpRejected()
            log.log(.warning, "sdp.rejected", session: session, connection: connection, ["request": request, "error": error.message])
        } else {
            log.log(.error, "media.browserLegFailed", session: session, connection: connection,
                    ["request": request, "error": error.message])
        }
    }
}
