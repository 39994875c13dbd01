import OTSignaling

/// Subscribers' preferredResolution / preferredFrameRate reaching the media: a routed
/// session's SFU picks layers within them per subscriber; a relayed session's publisher
/// is asked to encode no more than the most any of its subscribers wants.
extension SessionHub {
    /// Routed: hands one subscriber's preferences to the SFU's layer selection.
    func routedPreferencesChanged(_ preferences: SubscriberPreferences) {
        // Wired to MediaForwarding by issue 5's router work.
    }

    /// Relayed: recomputes what the publisher of `streamId` should encode at most and
    /// tells it (`encodingPreferences`) when that changed (`SessionHub+Relayed.swift`).
    func relayedPreferencesChanged(streamId: String, in session: inout SessionRecord) {
        updateEncodingLimit(streamId: streamId, in: &session)
    }
}
