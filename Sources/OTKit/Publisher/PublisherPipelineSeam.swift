import OTMedia

/// The one place OTKit meets the publisher pipeline's adaptation hooks that issue 5's
/// encoder and transport work adds to OTMedia (PUBENC: audio fallback switch, quality
/// events, encoding limit, current encoding; PUBTX: relayed fan-out). Until those are
/// merged every function here is a no-op (or says "not available"); the integration
/// fills each body with one call and nothing else in OTKit changes.
enum PublisherPipelineSeam {
    /// Whether the pipeline can send one stream to several subscribers that it learns
    /// from their authenticated RTCP (relayed sessions). False until PUBTX's relayed
    /// fan-out is connected in `configureRelayedFanOut`; relayed media tests are enabled
    /// by it.
    static let relayedFanOutAvailable = false

    /// Relayed sessions: the pipeline sends to every address that sent it authenticated
    /// RTCP instead of (only) `configuration.destination`.
    /// Connect: `configuration.<PUBTX's relayed fan-out field> = true`.
    static func configureRelayedFanOut(_ configuration: inout PublisherConfiguration) {}

    /// `publisherAudioFallbackEnabled`: whether the encoder side may turn video off when
    /// the uplink cannot carry it. Connect: PUBENC's fallback switch in the configuration.
    static func configureAudioFallback(_ configuration: inout PublisherConfiguration, enabled: Bool) {}

    /// Registers `handler` for the pipeline's audio-fallback events (warning, lifted,
    /// disabled, enabled), called on a pipeline thread.
    /// Connect: `pipeline.onVideoQualityEvent(handler)` (PUBENC's hook).
    static func observeVideoQuality(_ pipeline: PublisherPipeline, _ handler: @escaping @Sendable (AudioFallbackEvent) -> Void) {}

    /// Relayed sessions' `encodingPreferences`: encode no more than this (nil: no limit
    /// on that dimension). Connect: `pipeline.setEncodingLimit(maxWidth:maxHeight:maxFrameRate:)`.
    static func setEncodingLimit(_ pipeline: PublisherPipeline, maxWidth: Int?, maxHeight: Int?, maxFrameRate: Double?) {}

    /// What the encoder produces now (after adaptation), or nil when the pipeline does
    /// not say: OTKit then reports the configured size. Connect: PUBENC's current
    /// encoding accessor.
    static func currentVideoSize(_ pipeline: PublisherPipeline) -> (width: Int, height: Int)? { nil }
}
