import OTSignaling
import Synchronization

/// Where one subscriber leg's adaptation stands, as `MediaRouter.status(subscriberId:)`
/// reports it (for tests, logs and stats).
public struct SubscriberLegStatus: Sendable, Equatable {
    /// The leg's bandwidth estimate, bits per second (until the subscriber sends
    /// transport-wide feedback: the loss-based part from its receiver reports).
    public var estimatedBitrate: Int
    /// The encoding forwarded (0 = smallest) and the highest temporal layer forwarded.
    public var spatialLayer: Int
    /// Highest temporal layer forwarded (0 = TL0 only).
    public var temporalLayer: Int
    /// Whether audio fallback has turned this leg's video off.
    public var videoDisabledForQuality: Bool
    /// Transport-wide feedback messages the subscriber sent that the router took.
    public var transportFeedbacks: UInt64
    /// Video frames not forwarded because of their temporal layer.
    public var framesDropped: UInt64
    /// Completed switches between simulcast encodings.
    public var spatialSwitches: UInt64
    /// Padding probes sent on the leg.
    public var probesSent: UInt64
}

/// The atomics a forwarding thread publishes a leg's adaptation through (relaxed stores a
/// few times a second; any thread loads).
final class LegStatusAtomics: Sendable {
    let estimate = Atomic<Int>(LegAdaptation.estimatorConfiguration.initialBitrate)
    let spatial = Atomic<Int>(0)
    let temporal = Atomic<Int>(0)
    let disabled = Atomic<Bool>(false)
    let feedbacks = Atomic<UInt64>(0)
    let framesDropped = Atomic<UInt64>(0)
    let switches = Atomic<UInt64>(0)
    let probes = Atomic<UInt64>(0)

    var snapshot: SubscriberLegStatus {
        SubscriberLegStatus(estimatedBitrate: estimate.load(ordering: .relaxed), spatialLayer: spatial.load(ordering: .relaxed),
                            temporalLayer: temporal.load(ordering: .relaxed), videoDisabledForQuality: disabled.load(ordering: .relaxed),
                            transportFeedbacks: feedbacks.load(ordering: .relaxed),
                            framesDropped: framesDropped.load(ordering: .relaxed), spatialSwitches: switches.load(ordering: .relaxed),
                            probesSent: probes.load(ordering: .relaxed))
    }
}

/// Receives the router's audio-fallback decisions per subscriber leg, on a queue of the
/// router's (never the forwarding thread): "warning", "warningLifted", "disabled",
/// "enabled" as `ServerMessage.subscriberQuality` carries them.
public typealias SubscriberQualityHandler = @Sendable (SubscriberQualityEvent) -> Void
