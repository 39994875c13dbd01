import Foundation
import OTSignaling

/// Requests the router must hear even when the path drops (unpublish, unsubscribe), and
/// the publishes and subscribes an app cancelled before the router answered them.
///
/// A confirmed request is sent at once when connected. While reconnecting it waits for
/// the resume; one whose answer was lost with the path is sent again after resuming (a
/// repeat the router already carried out is answered 1113/1112, which also counts as
/// done). The session's end settles every one still waiting, at the point where the
/// session's teardown reports the publisher (`finishDisconnect`), so the reference's
/// order holds: `didFailWithError`, then the publisher's `streamDestroyed`, then
/// `sessionDidDisconnect`. Work queue only.
extension OTSession {
    /// How a confirmed request ended.
    enum Confirmation {
        /// The router's answer (`.ok`, or an error such as 1112/1113 when there was
        /// nothing left to remove).
        case answered(ServerMessage)
        /// The session ended first (disconnect, or reconnection given up): the router
        /// drops the connection's streams and subscriptions itself.
        case sessionEnded
    }

    /// One request waiting for its confirmation.
    struct ConfirmedRequest {
        let message: ClientMessage
        let done: (Confirmation) -> Void
    }

    /// What waits on the router or on the session's resume (work queue only).
    struct LifecycleRequests {
        /// Requests to send when the session resumes (or to settle when it ends).
        var parked: [ConfirmedRequest] = []
        /// Publishers unpublished while their publish request was out: its reply ends them.
        var cancelledPublishes: [OTPublisherKit] = []
        /// Subscribers unsubscribed while their subscribe request was out: its reply ends them.
        var cancelledSubscribes: [OTSubscriberKit] = []
    }

    /// Sends `message` and calls `done` once with its outcome (see the extension's notes).
    func sendConfirmed(_ message: ClientMessage, done: @escaping (Confirmation) -> Void) {
        let request = ConfirmedRequest(message: message, done: done)
        switch sessionConnectionStatus {
        case .connected:
            break
        case .reconnecting:
            lifecycle.parked.append(request)
            return
        default:
            done(.sessionEnded)
            return
        }
        let sent = channel?.request(message, answerOnClose: true) { [weak self] reply in
            guard let self else { return }
            if case .error(let error) = reply, Self.isLocalLoss(error.code) {
                // Lost (1022) or closed by us (1010): the resume resends it, or the
                // session's end settles it in the reference's order.
                self.lifecycle.parked.append(request)
                return
            }
            done(.answered(reply))
        } ?? false
        // The path is gone and its loss is being reported: wait for the resume.
        if !sent { lifecycle.parked.append(request) }
    }

    /// A reply the channel made up itself: the path was lost (1022) or we closed it (1010).
    private static func isLocalLoss(_ code: Int) -> Bool {
        code == Int(OTSessionErrorCode.connectionDropped.rawValue) || code == Int(OTSessionErrorCode.notConnected.rawValue)
    }

    /// The session resumed: send what waited, then end own streams the router kept that
    /// no publisher here owns (a publish whose answer was lost with the path).
    func resumeConfirmedRequests(ownStreams: [WireStream]) {
        let parked = lifecycle.parked
        lifecycle.parked = []
        for request in parked { sendConfirmed(request.message, done: request.done) }
        let current = lock.withLock { state.publisher?.stream?.streamId }
        let asked = Set(parked.compactMap { request -> String? in
            if case .unpublish(let streamId) = request.message { return streamId }
            return nil
        })
        for stream in ownStreams where stream.streamId != current && !asked.contains(stream.streamId) {
            log.add("unpublishing orphan stream \(stream.streamId) left by a lost publish answer")
            sendConfirmed(.unpublish(streamId: stream.streamId)) { _ in }
        }
    }

    /// The session ended: every waiting request and cancelled publish/subscribe is settled.
    func endConfirmedRequests() {
        let waiting = lifecycle
        lifecycle = LifecycleRequests()
        for request in waiting.parked { request.done(.sessionEnded) }
        for publisher in waiting.cancelledPublishes { publisher.publishCancelled(self, stream: nil) }
        for subscriber in waiting.cancelledSubscribes {
            subscriber.detach()
            subscriber.resolveUnsubscribeWaiters()
            onApiQueue { subscriber.resolveSubscribeWaiters(CancellationError()) }
        }
    }

    // MARK: - Unpublish

    /// Work queue, after `unpublish` took the publisher out of the session: media stops
    /// now (camera and microphone released at once); `publisher(_:streamDestroyed:)`
    /// follows the router's confirmation. A publish still waiting for its answer is
    /// ended by that answer (`publishLanded(_:reply:)`).
    func endPublishing(_ publisher: OTPublisherKit) {
        publisher.stopMedia()
        guard let stream = publisher.routerStream else {  // its edge leg may still be connecting
            lifecycle.cancelledPublishes.append(publisher)
            return
        }
        unpublishConfirmed(publisher, stream: stream)
    }

    /// The publish answer for a publisher the app unpublished meanwhile: the router made
    /// the stream, so it is removed there, and the publisher hears `streamDestroyed` once
    /// that is confirmed; `await publish` throws `CancellationError`. Returns false when
    /// the publisher was not cancelled.
    func publishLanded(_ publisher: OTPublisherKit, reply: PublishedReply) -> Bool {
        guard let index = lifecycle.cancelledPublishes.firstIndex(where: { $0 === publisher }) else { return false }
        lifecycle.cancelledPublishes.remove(at: index)
        guard let own = connection else {  // the session already ended: the router dropped the stream with it
            publisher.publishCancelled(self, stream: nil)
            return true
        }
        let stream = OTStream(reply.stream, connection: own, session: self)
        log.add("publish of \(stream.streamId) answered after unpublish: removing it")
        sendConfirmed(.unpublish(streamId: stream.streamId)) { [weak self] _ in
            guard let self else { return }
            publisher.publishCancelled(self, stream: stream)
        }
        return true
    }

    private func unpublishConfirmed(_ publisher: OTPublisherKit, stream: OTStream) {
        sendConfirmed(.unpublish(streamId: stream.streamId)) { [weak self] outcome in
            guard let self else { return }
            if case .answered(.error(let error)) = outcome { self.log.add("unpublish answered \(error.code): \(error.message)") }
            publisher.streamEnded(self, reason: "unpublished")
        }
    }

    /// Subscribers of our own stream stop with it (the router removed their legs).
    func dropSubscribers(ofOwnStream streamId: String) {
        let gone = lock.withLock { () -> [OTSubscriberKit] in
            let gone = state.subscribers.filter { $0.stream.streamId == streamId }
            state.subscribers.removeAll { $0.stream.streamId == streamId }
            return gone
        }
        for subscriber in gone { subscriber.detach() }
    }

    // MARK: - Unsubscribe

    /// Work queue, after `unsubscribe` took the subscriber out of the session: media
    /// stops now; the router is told (and confirms). A subscribe still waiting for its
    /// answer is ended by that answer: no media, no `subscriberDidConnect(toStream:)`.
    func endSubscription(_ subscriber: OTSubscriberKit) {
        guard let subscriberId = subscriber.subscriberId else {
            lifecycle.cancelledSubscribes.append(subscriber)
            return
        }
        subscriber.detach()
        sendConfirmed(.unsubscribe(subscriberId: subscriberId)) { _ in subscriber.resolveUnsubscribeWaiters() }
    }

    /// The subscribe answer for a subscriber the app unsubscribed meanwhile: the router
    /// made the subscription, so it is removed there; `await subscribe` throws
    /// `CancellationError`. Returns false when the subscriber was not cancelled.
    func subscribeLanded(_ subscriber: OTSubscriberKit, reply: SubscribedReply) -> Bool {
        guard let index = lifecycle.cancelledSubscribes.firstIndex(where: { $0 === subscriber }) else { return false }
        lifecycle.cancelledSubscribes.remove(at: index)
        log.add("subscribe to \(reply.streamId) answered after unsubscribe: removing \(reply.subscriberId)")
        subscriber.detach()
        sendConfirmed(.unsubscribe(subscriberId: reply.subscriberId)) { [weak self] _ in
            subscriber.resolveUnsubscribeWaiters()
            self?.onApiQueue { subscriber.resolveSubscribeWaiters(CancellationError()) }
        }
        return true
    }
}
