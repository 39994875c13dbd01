import OTSignaling

/// The router ended one of our media legs by itself (`mediaFailed`: the leg's DTLS
/// handshake on its one-port edge failed or did not finish in time), as the reference
/// reports a media connection that fails: the publisher gets
/// `publisher(_:didFailWithError:)` with `OTPublisherWebRTCError` (1610) and then, if its
/// `streamCreated` had come, `publisher(_:streamDestroyed:)` (the router removed the
/// stream; the others get `streamDestroyed`); a subscriber gets
/// `subscriber(_:didFailWithError:)` with `OTSubscriberWebRTCError` (1600). Either is
/// detached (media stopped) as after any failure. A subscriber's failure marked
/// `resubscribe` (the router that served its leg went away, the stream goes on) is not a
/// failure: the subscriber subscribes again by itself (`OTSession+Resubscribe.swift`).
/// Work queue only.
extension OTSession {
    func mediaFailed(_ failure: MediaFailure) {
        if let subscriberId = failure.subscriberId {
            guard let subscriber = lock.withLock({ state.subscribers.first { $0.subscriberId == subscriberId } }) else {
                log.add("the router ended subscriber \(subscriberId)'s media leg, which is no longer ours")
                return
            }
            if failure.resubscribe == true {
                resubscribe(subscriber, reason: failure.message)
                return
            }
            subscriberFailed(subscriber, OTError(OTSubscriberErrorCode.webRTCError, failure.message), tellRouter: false)
            return
        }
        let publisher = lock.withLock { () -> OTPublisherKit? in
            guard let publisher = state.publisher, publisher.ownsStream(failure.streamId) else { return nil }
            state.publisher = nil
            return publisher
        }
        guard let publisher else {
            log.add("the router ended the media leg of stream \(failure.streamId), which we no longer publish")
            return
        }
        let error = OTError(OTPublisherErrorCode.webRTCError, failure.message)
        let stream = publisher.detach()
        dropSubscribers(ofOwnStream: failure.streamId)
        log.add("publish failed: \(error)")
        onApiQueue {
            publisher.delegate?.publisher(publisher, didFailWithError: error)
            if let stream { publisher.delegate?.publisher(publisher, streamDestroyed: stream) }
            publisher.resolvePublishWaiters(error)
        }
    }
}
