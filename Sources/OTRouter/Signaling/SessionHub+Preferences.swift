import OTSignaling

/// Subscribers' preferredResolution / preferredFrameRate reaching the media: a routed
/// session's SFU picks layers within them per subscriber; a relayed session's publisher
/// is asked to encode no more than the most any of its subscribers wants.
extension SessionHub {
    /// Routed: hands one subscriber's preferences to the SFU's layer selection.
    func routedPreferencesChanged(_ preferences: SubscriberPreferences) {
        media.setPreferences(subscriberId: preferences.subscriberId, width: preferences.preferredWidth,
                             height: preferences.preferredHeight, frameRate: preferences.preferredFrameRate)
    }

    /// Routes the SFU's audio-fallback decisions to the subscribing connections
    /// (`ServerMessage.subscriberQuality`). Called once, from `init`.
    func installQualityHandler() {
        media.setSubscriberQualityHandler { [weak self] event in self?.subscriberQualityChanged(event) }
    }

    /// Sends one audio-fallback decision to the connection that holds the subscription
    /// (dropped if the subscription is gone; kept for a resume if its socket is). Takes the hub's lock once.
    func subscriberQualityChanged(_ event: SubscriberQualityEvent) {
        perform {
            for session in sessions.values {
                guard let subscription = session.subscriptions[event.subscriberId] else { continue }
                sendEvent(.subscriberQuality(event), to: subscription.connectionId, in: session)
                log.log(.info, "subscriber.quality", session: session.id, connection: subscription.connectionId,
                        ["subscriber": event.subscriberId, "state": event.state])
                return
            }
        }
    }

    /// Relayed: recomputes what the publisher of `streamId` should encode at most and
    /// tells it (`encodingPreferences`) when that changed (`SessionHub+Relayed.swift`).
    func relayedPreferencesChanged(streamId: String, in session: inout SessionRecord) {
        updateEncodingLimit(streamId: streamId, in: &session)
    }
}
