import OTSignaling

/// The publisher's `subscriberAudioFallbackEnabled` (OpenTok: a publisher setting that
/// applies to every subscriber of its stream; routed sessions only). The hub records it
/// per stream (`StreamRecord.subscriberAudioFallback`); the SFU must not turn a stream's
/// video off for a subscriber when it is false.
extension SessionHub {
    /// Publish time: tells the SFU whether it may turn `streamId`'s video off for
    /// subscribers whose leg cannot carry it.
    func subscriberAudioFallbackConfigured(streamId: String, enabled: Bool) {
        media.setSubscriberAudioFallback(streamId: streamId, enabled: enabled)
    }

}
