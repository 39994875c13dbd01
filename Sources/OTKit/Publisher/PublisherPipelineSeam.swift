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
}
