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
    /// Packets the router resent on the leg for its NACKs.
    public var retransmissions: UInt64 = 0
    /// Bytes of those resends, as sent (SRTP-protected).
    public var retransmittedBytes: UInt64 = 0
    /// NACKed packets not resent because the leg's resend budget was spent.
    public var retransmissionsOverBudget: UInt64 = 0
    /// NACKed packets not resent because they went again within the leg's round trip.
    public var retransmissionsDuplicate: UInt64 = 0
    /// The leg's round trip as the router measured it from the client's receiver reports
    /// (the resend dedup interval follows it), nanoseconds; 0 until measured.
    public var roundTripNanoseconds: UInt64 = 0
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
    /// Resends and refusals (`SubscriberLegStatus`), added to as they happen.
    let resent = Atomic<UInt64>(0)
    let resentBytes = Atomic<UInt64>(0)
    let resendsOverBudget = Atomic<UInt64>(0)
    let resendsDuplicate = Atomic<UInt64>(0)
    /// The leg's measured round trip (ns; 0 = not yet), stored at each receiver report.
    let roundTrip = Atomic<UInt64>(0)

    /// The figures as a value (each exact, two may straddle a packet).
    var snapshot: SubscriberLegStatus {
        var status = SubscriberLegStatus(estimatedBitrate: estimate.load(ordering: .relaxed), spatialLayer: spatial.load(ordering: .relaxed),
                            temporalLayer: temporal.load(ordering: .relaxed), videoDisabledForQuality: disabled.load(ordering: .relaxed),
                            transportFeedbacks: feedbacks.load(ordering: .relaxed),
                            framesDropped: framesDropped.load(ordering: .relaxed), spatialSwitches: switches.load(ordering: .relaxed),
                            probesSent: probes.load(ordering: .relaxed))
        status.retransmissions = resent.load(ordering: .relaxed)
        status.retransmittedBytes = resentBytes.load(ordering: .relaxed)
        status.retransmissionsOverBudget = resendsOverBudget.load(ordering: .relaxed)
        status.retransmissionsDuplicate = resendsDuplicate.load(ordering: .relaxed)
        status.roundTripNanoseconds = roundTrip.load(ordering: .relaxed)
        return status
    }
}

/// Receives the router's audio-fallback decisions per subscriber leg, on a queue of the
/// router's (never the forwarding thread): "warning", "warningLifted", "disabled",
/// "enabled" as `ServerMessage.subscriberQuality` carries them.
public typealias SubscriberQualityHandler = @Sendable (SubscriberQualityEvent) -> Void
