import OTSignaling

/// Where a subscriber stands whose leg went away while its stream goes on (the router that
/// served the leg went with the client's old socket: docs/scale.md, "Failover"). Under the
/// subscriber's lock.
struct Relegging {
    /// The router serving our leg (the `subscribed` reply's `mediaNode`; nil: the owner).
    /// Such a leg goes with that router's socket, so a resume loses it.
    var servedBy: String?
    /// A new leg is being made: the stream counts as disconnected meanwhile.
    var moving = false
    /// A re-subscribe is out or waiting: its success is `subscriberDidReconnect(toStream:)`
    /// (not a first connect), its failure is tried again.
    var active = false
    /// Re-subscribes tried since the leg was lost (a success resets it).
    var attempts = 0
}

/// The subscriber's half of subscribing again by itself (`OTSession+Resubscribe.swift`):
/// the app sees `subscriberDidDisconnect(fromStream:)` when the leg is lost and
/// `subscriberDidReconnect(toStream:)` when the new one carries media, as OpenTok reports
/// a subscriber that reconnects to its stream; the same object, delegate and renderer
/// carry on. Work queue only.
extension OTSubscriberKit {
    /// The session resumed: a leg another router served is gone with the old socket, so
    /// the stream stays disconnected (no `subscriberDidReconnect` yet) until the owner's
    /// `mediaFailed` with `resubscribe` and the new leg. Call before `reportReconnected`.
    func resumedWithoutOwnerLeg() {
        if lock.withLock({ relegging.servedBy != nil }) { pathChanged(publisherAway: nil, consentLost: nil, moving: true) }
    }

    /// Takes the next of `limit` attempts (false: all used): the old leg's media stops, its
    /// subscription id is forgotten (an unsubscribe meanwhile then waits for the new
    /// reply, as during a first subscribe) and the stream is reported disconnected (once).
    func beginRelegging(limit: Int) -> Bool {
        let taken = lock.withLock { () -> Bool in
            guard relegging.attempts < limit else { return false }
            relegging.attempts += 1
            relegging.active = true
            return true
        }
        guard taken else { return false }
        dropLeg()
        pathChanged(publisherAway: nil, consentLost: nil, moving: true)
        return true
    }

    /// Whether a re-subscribe is out or waiting.
    var isRelegging: Bool { lock.withLock { relegging.active } }

    /// Gives up: the next failure is reported as such.
    func endRelegging() { lock.withLock { relegging.active = false } }

    /// The new leg carries media: true when it was a re-subscribe, reported as
    /// `subscriberDidReconnect(toStream:)` (unless the stream is still away for another
    /// reason) and counted; false for a first subscribe.
    func releggedConnected(as subscriberId: String, in session: OTSession) -> Bool {
        let again = lock.withLock { () -> Bool in
            guard relegging.active else { return false }
            relegging.active = false
            relegging.attempts = 0
            return true
        }
        guard again else { return false }
        session.resubscribes.restored.add(1, ordering: .relaxed)
        session.log.add("subscribed again to \(stream.streamId) as \(subscriberId)")
        pathChanged(publisherAway: nil, consentLost: nil, moving: false)
        return true
    }
}
