import Foundation
import OTSignaling

/// Publish, unpublish, subscribe, unsubscribe.
extension OTSession {
    /// Starts publishing (`publish:error:`). Throws, in the publisher domain as the
    /// reference says (`OTPublisherErrorCode`): 1010 (`sessionDisconnected`) when not
    /// connected; 1015 (OpenTok's illegal-state number; the publisher enum has no case)
    /// when the token may not publish (subscriber role), when the session already has a
    /// publisher (OpenTok allows one per session), or when the publisher publishes in
    /// another session. The
    /// outcome arrives as `publisher(_:streamCreated:)` or `publisher(_:didFailWithError:)`.
    public func publish(_ publisher: OTPublisherKit) throws(OTError) {
        try lock.withTypedLock { () throws(OTError) in
            guard state.status == .connected else { throw OTError(OTPublisherErrorCode.sessionDisconnected, "publish needs a connected session") }
            guard state.capabilities?.canPublish == true else { throw OTError(publisherCode: 1015, "this token's role cannot publish") }
            guard state.publisher == nil else {
                throw OTError(publisherCode: 1015, "this session already has a publisher (one per session)")
            }
        }
        do throws(OTError) { try publisher.attach(to: self) } catch { throw OTError(publisherCode: error.code, error.message) }
        lock.withLock { state.publisher = publisher }
        let announced = publisher.makePublishRequest()
        work.async {
            guard let channel = self.channel else { return }
            var request = announced
            if let missing = self.missingEncryptionSecret() {
                self.publisherFailed(publisher, error: missing, unpublishStreamId: nil)
                return
            }
            if self.lock.withLock({ self.state.relayed }) {
                do throws(OTError) {
                    request.relayedLeg = try publisher.prepareRelayedMedia(settings: self.settings)
                } catch {
                    self.publisherFailed(publisher, error: error, unpublishStreamId: nil)
                    return
                }
            } else {
                // Routed: our ICE credentials and certificate fingerprint for the router's edge.
                request.transport = publisher.prepareEdgeLeg()
            }
            let sent = channel.request(.publish(request)) { reply in
                switch reply {
                case .published(let published):
                    if self.publishLanded(publisher, reply: published) { return }
                    guard let own = self.connection, self.lock.withLock({ self.state.publisher === publisher }) else { return }
                    publisher.published(published, in: self, own: own)
                case .error(let error):
                    self.publisherFailed(publisher, error: OTError(domain: .publisher, code: Int32(truncatingIfNeeded: error.code), message: error.message),
                                         unpublishStreamId: nil)
                default:
                    self.publisherFailed(publisher, error: OTError(OTPublisherErrorCode.internalError, "unexpected reply to publish"),
                                         unpublishStreamId: nil)
                }
            }
            if !sent { self.publisherFailed(publisher, error: OTError(OTPublisherErrorCode.sessionDisconnected, "the session is not connected"), unpublishStreamId: nil) }
        }
    }

    /// Stops publishing (`unpublish:error:`). Media stops at once; the router is asked
    /// to remove the stream and `publisher(_:streamDestroyed:)` follows its confirmation
    /// (or the session's end), exactly once. While reconnecting the request waits for the
    /// resume. Called while the publish is still pending, the publish is cancelled: the
    /// stream the router makes is removed, the delegate gets `streamDestroyed` (no
    /// `streamCreated`), and `await publish` throws `CancellationError`.
    /// Throws 1113 (OpenTok's publisher-not-found number, in the publisher domain as the
    /// reference says) when it does not publish in this session.
    public func unpublish(_ publisher: OTPublisherKit) throws(OTError) {
        try lock.withTypedLock { () throws(OTError) in
            guard state.publisher === publisher else { throw OTError(publisherCode: 1113, "this publisher does not publish in this session") }
            state.publisher = nil
        }
        publisher.markUnpublishing()
        work.async { self.endPublishing(publisher) }
    }

    /// Starts receiving a stream (`subscribe:error:`). Throws, in the subscriber domain as
    /// the reference says (`OTSubscriberErrorCode`): 1010 (`sessionDisconnected`) when not
    /// connected, 1015 (OpenTok's illegal-state number) when the token may not subscribe
    /// (publisheronly) or the subscriber is already subscribed, 1604 when the stream is
    /// not in the session. Your own stream (`publisher.stream`) may be subscribed to in a
    /// routed session (its media makes the round trip through the router, so its
    /// statistics are the real path's); a relayed session refuses it with 1604 (see
    /// `OwnStream`).
    /// The outcome arrives as `subscriberDidConnect(toStream:)` or `subscriber(_:didFailWithError:)`.
    public func subscribe(_ subscriber: OTSubscriberKit) throws(OTError) {
        try lock.withTypedLock { () throws(OTError) in
            guard state.status == .connected else { throw OTError(OTSubscriberErrorCode.sessionDisconnected, "subscribe needs a connected session") }
            guard state.capabilities?.canSubscribe == true else { throw OTError(subscriberCode: 1015, "this token's role cannot subscribe") }
            let streamId = subscriber.stream.streamId
            // Our own stream is not in `streams` (the reference keeps it out) but may be
            // subscribed to, through the router, to see its real network path.
            let own = state.publisher?.stream?.streamId == streamId
            guard state.streams[streamId] != nil || own else {
                throw OTError(OTSubscriberErrorCode.serverCannotFindStream, "stream \(streamId) is not in the session")
            }
            if own && state.relayed { throw OwnStream.relayedRefusal }
            guard !state.subscribers.contains(where: { $0 === subscriber }) else {
                throw OTError(subscriberCode: 1015, "this subscriber is already subscribed")
            }
            state.subscribers.append(subscriber)
        }
        subscriber.attach(to: self)
        let request = makeSubscribeRequest(subscriber)
        work.async { self.sendSubscribe(subscriber, request) }
    }

    /// The `subscribe` request for `subscriber` as it is set now. Our ICE credentials and
    /// certificate fingerprint for the router's edge go with it. A relayed session sends
    /// them too: the router carries a browser's stream there, and its reply says which
    /// kind of leg it is (`transport` for an edge leg; the publisher's own leg has none,
    /// and these credentials then go unused). Cost: fresh ICE credentials.
    func makeSubscribeRequest(_ subscriber: OTSubscriberKit) -> SubscribeRequest {
        var request = SubscribeRequest(streamId: subscriber.stream.streamId, subscribeToAudio: subscriber.subscribeToAudio,
                                       subscribeToVideo: subscriber.subscribeToVideo)
        request.transport = subscriber.prepareEdgeLeg()
        return request
    }

    /// Sends `request`; its reply sets up the subscriber's leg or fails it (a subscriber
    /// unsubscribed meanwhile is ended by it, `subscribeLanded`). Work queue.
    func sendSubscribe(_ subscriber: OTSubscriberKit, _ request: SubscribeRequest) {
        let sent = channel?.request(.subscribe(request)) { reply in
            switch reply {
            case .subscribed(let subscribed):
                if self.subscribeLanded(subscriber, reply: subscribed) { return }
                subscriber.subscribed(subscribed, requested: request, in: self)
            case .error(let error):
                self.subscriberFailed(subscriber, OTError(domain: .subscriber, code: Int32(truncatingIfNeeded: error.code), message: error.message))
            default:
                self.subscriberFailed(subscriber, OTError(OTSubscriberErrorCode.internalError, "unexpected reply to subscribe"))
            }
        } ?? false
        if !sent { subscriberFailed(subscriber, OTError(OTSubscriberErrorCode.sessionDisconnected, "the session is not connected")) }
    }

    /// Stops receiving (`unsubscribe:error:`): media stops at once and the router is
    /// asked to remove the subscription (while reconnecting, once resumed). Called while
    /// the subscribe is still pending, it cancels it: no media starts, no
    /// `subscriberDidConnect(toStream:)`, the router's subscription is removed as soon as
    /// it exists, and `await subscribe` throws `CancellationError`. As in the reference,
    /// no subscriber delegate call follows an unsubscribe. Throws 1112 (OpenTok's
    /// subscriber-not-found number, in the subscriber domain as the reference says) when
    /// the subscriber is not subscribed in this session.
    public func unsubscribe(_ subscriber: OTSubscriberKit) throws(OTError) {
        try lock.withTypedLock { () throws(OTError) in
            guard state.subscribers.contains(where: { $0 === subscriber }) else {
                throw OTError(subscriberCode: 1112, "this subscriber is not subscribed in this session")
            }
            state.subscribers.removeAll { $0 === subscriber }
        }
        work.async { self.endSubscription(subscriber) }
    }

    // MARK: - Internal

    func sendStreamChange(_ change: StreamChange) {
        work.async { self.channel?.request(.streamChanged(change)) }
    }

    func sendSubscriptionChange(_ change: SubscriptionChange) {
        work.async { self.channel?.request(.subscriptionChanged(change)) }
    }

    func sendSubscriberPreferences(_ preferences: SubscriberPreferences) {
        work.async { self.channel?.request(.subscriberPreferences(preferences)) }
    }

    func publisherFailed(_ publisher: OTPublisherKit, error: OTError, unpublishStreamId: String?) {
        lock.withLock { if state.publisher === publisher { state.publisher = nil } }
        lifecycle.cancelledPublishes.removeAll { $0 === publisher }
        if let unpublishStreamId { sendConfirmed(.unpublish(streamId: unpublishStreamId)) { _ in } }
        publisher.detach()
        log.add("publish failed: \(error)")
        onApiQueue {
            publisher.delegate?.publisher(publisher, didFailWithError: error)
            publisher.resolvePublishWaiters(error)
        }
    }

    /// `tellRouter` false: the router already removed the subscription (`mediaFailed`).
    func subscriberFailed(_ subscriber: OTSubscriberKit, _ error: OTError, tellRouter: Bool = true) {
        if relegFailed(subscriber, error, tellRouter: tellRouter) { return }  // a re-subscribe: tried again
        lock.withLock { state.subscribers.removeAll { $0 === subscriber } }
        lifecycle.cancelledSubscribes.removeAll { $0 === subscriber }
        subscriber.resolveUnsubscribeWaiters()  // cancelled while pending: nothing is left on the router
        if tellRouter, let id = subscriber.subscriberId { sendConfirmed(.unsubscribe(subscriberId: id)) { _ in } }
        subscriber.detach()
        log.add("subscribe failed: \(error)")
        onApiQueue {
            subscriber.delegate?.subscriber(subscriber, didFailWithError: error)
            subscriber.resolveSubscribeWaiters(error)
        }
    }

    /// Whether `subscriber` is still subscribed here under `subscriberId` (an edge
    /// connect that finished after an unsubscribe, a failure or the session's end is not).
    func holds(_ subscriber: OTSubscriberKit, as subscriberId: String) -> Bool {
        lock.withLock { state.subscribers.contains { $0 === subscriber } }
            && subscriber.subscriberId == subscriberId && subscriber.session === self
    }

    /// Whether `publisher` still publishes here (an edge connect that finished after an
    /// unpublish, a failure or the session's end does not).
    func holds(_ publisher: OTPublisherKit) -> Bool {
        lock.withLock { state.publisher === publisher } && publisher.session === self
    }

    func startStatsTimer() {
        statsTimer?.cancel()
        let timer = DispatchSource.makeTimerSource(queue: work)
        timer.schedule(deadline: .now() + settings.statsInterval, repeating: settings.statsInterval)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let (publisher, subscribers) = self.lock.withLock { (self.state.publisher, self.state.subscribers) }
            publisher?.deliverStats(self)
            for subscriber in subscribers { subscriber.deliverStats(self) }
        }
        statsTimer = timer
        timer.resume()
    }
}
