import OTSignaling

/// The publisher's `subscriberAudioFallbackEnabled` (OpenTok: a publisher setting that
/// applies to every subscriber of its stream; routed sessions only). The hub records it
/// per stream (`StreamRecord.subscriberAudioFallback`); the SFU must not turn a stream's
/// video off for a subscriber when it is false.
extension SessionHub {
    /// Publish-time hook: tells the SFU whether it may turn `streamId`'s video off for
    /// subscribers whose leg cannot carry it. Connect (issue 5 integration): the SFU's
    /// per-stream audio-fallback switch in `MediaForwarding`.
    func subscriberAudioFallbackConfigured(streamId: String, enabled: Bool) {}

    /// Whether a `subscriberQuality` event about `streamId` may be sent (false: the
    /// publisher turned subscriber audio fallback off, so no warning and no disabling).
    /// Under the lock.
    func subscriberAudioFallbackAllowed(streamId: String, in session: SessionRecord) -> Bool {
        !session.relayed && (session.streams[streamId]?.subscriberAudioFallback ?? true)
    }
}
