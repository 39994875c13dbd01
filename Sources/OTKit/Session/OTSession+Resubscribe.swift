import Foundation
import OTSignaling
import Synchronization

/// Subscribing again by itself when the router says a subscriber's leg is gone but its
/// stream goes on (`mediaFailed` with `resubscribe`: the router that served the leg for a
/// proxied client went away with the client's old socket, e.g. SIGKILLed, and the client
/// resumed through another; docs/scale.md, "Failover"). The same subscriber object sends a
/// new `subscribe` (through whichever router the socket is on now, which serves the new
/// leg) and its delegate hears only what OpenTok's SDK says of a subscriber that
/// reconnects to its stream: `subscriberDidDisconnect(fromStream:)`, then
/// `subscriberDidReconnect(toStream:)` once the new leg carries media. A re-subscribe that
/// fails (an error reply, ICE/DTLS on the new leg) is tried again after a second, up to
/// `resubscribeLimit` in a row; then the subscriber fails with the last error, as before.
/// While the session is reconnecting the attempt waits (uncounted) for the resume.
/// Cost: nothing per packet; per lost leg, one request and one ICE + DTLS exchange.
/// Work queue only.
extension OTSession {
    /// Re-subscribes one subscriber tries in a row before it fails.
    static let resubscribeLimit = 3
    /// Seconds between a failed re-subscribe and the next (and between checks while reconnecting).
    static let resubscribeRetrySeconds = 1.0

    /// The router ended `subscriber`'s leg with `resubscribe` for `reason`: subscribe again.
    func resubscribe(_ subscriber: OTSubscriberKit, reason: String) {
        log.add("subscriber to \(subscriber.stream.streamId) lost its leg (\(reason)): subscribing again")
        relegAttempt(subscriber, lastError: OTError(OTSubscriberErrorCode.webRTCError, reason))
    }

    /// One attempt, unless the app unsubscribed meanwhile (then nothing is left to do),
    /// the session is away (wait) or ended (its teardown detached the subscriber), or the
    /// attempts are used up (fail with `lastError`).
    private func relegAttempt(_ subscriber: OTSubscriberKit, lastError: OTError) {
        guard lock.withLock({ state.subscribers.contains { $0 === subscriber } }) else {
            if let index = lifecycle.cancelledSubscribes.firstIndex(where: { $0 === subscriber }) {
                lifecycle.cancelledSubscribes.remove(at: index)  // unsubscribed between attempts: no subscription at the router
                subscriber.detach()
                subscriber.resolveUnsubscribeWaiters()
            }
            return
        }
        switch sessionConnectionStatus {
        case .connected:
            break
        case .reconnecting:
            work.asyncAfter(deadline: .now() + Self.resubscribeRetrySeconds) { [weak self] in
                self?.relegAttempt(subscriber, lastError: lastError)
            }
            return
        default:
            return
        }
        guard subscriber.beginRelegging(limit: Self.resubscribeLimit) else {
            resubscribes.givenUp.add(1, ordering: .relaxed)
            subscriber.endRelegging()
            log.add("subscriber to \(subscriber.stream.streamId): \(Self.resubscribeLimit) re-subscribes failed")
            subscriberFailed(subscriber, lastError, tellRouter: false)
            return
        }
        resubscribes.attempts.add(1, ordering: .relaxed)
        sendSubscribe(subscriber, makeSubscribeRequest(subscriber))
    }

    /// A failure of `subscriber` while it re-subscribes: the subscription the router made,
    /// if any, is removed and the next attempt follows in a second. False when the
    /// subscriber is not re-subscribing (an ordinary failure).
    func relegFailed(_ subscriber: OTSubscriberKit, _ error: OTError, tellRouter: Bool) -> Bool {
        guard subscriber.isRelegging else { return false }
        if tellRouter, let id = subscriber.subscriberId { sendConfirmed(.unsubscribe(subscriberId: id)) { _ in } }
        subscriber.dropLeg()
        log.add("re-subscribe to \(subscriber.stream.streamId) failed: \(error)")
        work.asyncAfter(deadline: .now() + Self.resubscribeRetrySeconds) { [weak self] in
            self?.relegAttempt(subscriber, lastError: error)
        }
        return true
    }
}

/// How often a session's subscribers subscribed again by themselves (tests, logs).
/// Cost: three relaxed atomics.
final class ResubscribeCounters: Sendable {
    /// Re-subscribe requests sent.
    let attempts = Atomic<Int>(0)
    /// Re-subscribes whose new leg carried media.
    let restored = Atomic<Int>(0)
    /// Subscribers that failed after `OTSession.resubscribeLimit` attempts in a row.
    let givenUp = Atomic<Int>(0)
}
