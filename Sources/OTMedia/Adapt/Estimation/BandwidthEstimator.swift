/// Bounds and tuning of a ``BandwidthEstimator``.
public struct BandwidthEstimatorConfiguration: Sendable, Equatable {
    /// Target before any feedback, bits/s.
    public var initialBitrate: Int
    /// Lowest target, bits/s.
    public var minBitrate: Int
    /// Highest target, bits/s.
    public var maxBitrate: Int
    /// The trendline filter's tuning.
    public var trendline: TrendlineEstimator.Configuration
    /// The over-use detector's constants (draft-ietf-rmcat-gcc-02 §5.4).
    public var detector: OveruseDetector.Configuration
    /// The acknowledged-bitrate window.
    public var acknowledged: AcknowledgedBitrateEstimator.Configuration
    /// Transport-wide feedback loss is judged at each feedback message (§6: the loss-based
    /// controller "SHOULD run every time feedback from the receiver is received") once the
    /// messages since the last judgment cover at least this many packets (our choice: 50, so
    /// one loss reads as 2 %, §6's increase bound, and 5 % random loss rarely crosses 10 %) ...
    public var lossReportPackets: Int
    /// ... or over this long, whichever comes first (our choice: 1 s, an RTCP receiver
    /// report's usual period), nanoseconds.
    public var lossReportIntervalNanoseconds: UInt64
    /// A usable probe result lifts the estimates to this share of its delivered rate (0.9:
    /// what a cluster carried in 60 ms, less a margin for the media's own variation).
    public var probeAcceptFactor: Double
    /// RTCP receiver-report loss is used only when transport-wide feedback has not judged
    /// loss for this long (draft-ietf-rmcat-gcc-02 §7: receiver reports are the fallback),
    /// nanoseconds (our choice: 2 s).
    public var receiverReportFallbackNanoseconds: UInt64

    /// Creates a configuration; the stages use their documented defaults.
    public init(initialBitrate: Int, minBitrate: Int, maxBitrate: Int) {
        self.minBitrate = max(1, minBitrate)
        self.maxBitrate = max(self.minBitrate, maxBitrate)
        self.initialBitrate = min(max(initialBitrate, self.minBitrate), self.maxBitrate)
        trendline = TrendlineEstimator.Configuration()
        detector = OveruseDetector.Configuration()
        acknowledged = AcknowledgedBitrateEstimator.Configuration()
        lossReportPackets = 50
        lossReportIntervalNanoseconds = 1_000_000_000
        receiverReportFallbackNanoseconds = 2_000_000_000
        probeAcceptFactor = 0.9
    }
}

/// A snapshot of every stage of a ``BandwidthEstimator``, for tests and network stats.
public struct BandwidthEstimatorState: Sendable, Equatable {
    /// min(delay-based, loss-based), clamped to the bounds, bits/s.
    public var targetBitrate: Int
    /// A_hat of the delay-based controller, bits/s.
    public var delayBasedBitrate: Int
    /// As_hat of the loss-based controller, bits/s.
    public var lossBasedBitrate: Int
    /// R_hat, bits/s; nil until enough arrivals.
    public var acknowledgedBitrate: Int?
    /// The over-use detector's last conclusion.
    public var usage: BandwidthUsage
    /// The delay-based rate controller's state.
    public var rateControl: RateControlState
    /// The trendline's modified trend, ms.
    public var trendMilliseconds: Double
    /// The adaptive threshold del_var_th, ms.
    public var thresholdMilliseconds: Double
    /// The last loss fraction the loss-based controller used, 0...1.
    public var lossFraction: Double
    /// The round-trip time last reported, nanoseconds.
    public var rttNanoseconds: UInt64
    /// The standing queueing delay estimate, nanoseconds (``QueueDelayEstimator``).
    public var queueingDelayNanoseconds: UInt64
}

/// Google Congestion Control, send side (draft-ietf-rmcat-gcc-02 §3 first variant): the one
/// API the pipelines and the router call per leg.
///
/// Transport-wide feedback runs every packet through the acknowledged-bitrate window and the
/// inter-arrival grouping (§5.2); each completed group pair goes through the trendline
/// (§5.3) and the over-use detector (§5.4); after each feedback message the AIMD controller
/// (§5.5) takes one step with the strongest signal of the message (over-use wins), the
/// current acknowledged bitrate and the standing queueing delay (``QueueDelayEstimator``). Losses in the feedback are judged by the loss-based controller (§6) at each feedback message that brings the
/// count since the last judgment to ``BandwidthEstimatorConfiguration/lossReportPackets``; RTCP receiver-report loss (``onLossReport(fractionLost:now:)``) is used when no
/// transport-wide feedback judged loss recently (§7). The target is min(delay-based,
/// loss-based) (§6).
///
/// All time comes from the caller (`now`, nanoseconds, one monotonic clock; arrival times
/// only as differences). Single-threaded value type.
///
/// Cost: per packet O(1) plus O(20) for each completed group; per feedback O(1); storage
/// (about 70 KB of rings) allocated once in `init`, nothing per packet.
public struct BandwidthEstimator: Sendable {
    /// Bounds and tuning in use.
    public let configuration: BandwidthEstimatorConfiguration
    private var groups = InterArrivalGroups()
    private var trendline: TrendlineEstimator
    private var detector: OveruseDetector
    private var rateControl: AIMDRateController
    private var acknowledged: AcknowledgedBitrateEstimator
    private var loss: LossBasedController
    private var queueDelay = QueueDelayEstimator()
    private var lossPackets = 0
    private var lostPackets = 0
    private var lossWindowStart: UInt64?
    private var lastFeedbackLossReport: UInt64?
    /// Send time from which losses count again after a loss-based cut (one congestion
    /// event, reported over several feedback messages, cuts once).
    private var lossCutSendNanoseconds: UInt64 = 0
    private var rtt: UInt64 = 100_000_000
    /// When the delay-based controller last decreased (over-use, or the latency budget), on
    /// the caller's clock; nil: never. Probing waits for a quiet period after it.
    public private(set) var lastOveruseNanoseconds: UInt64?
    /// Probe results that raised the estimate.
    public private(set) var probesApplied = 0

    /// Creates an estimator at `configuration.initialBitrate`; allocates its rings once.
    public init(configuration: BandwidthEstimatorConfiguration) {
        self.configuration = configuration
        trendline = TrendlineEstimator(configuration: configuration.trendline)
        detector = OveruseDetector(configuration: configuration.detector)
        rateControl = AIMDRateController(configuration: AIMDRateController.Configuration(
            initialBitrate: configuration.initialBitrate, minBitrate: configuration.minBitrate,
            maxBitrate: configuration.maxBitrate))
        acknowledged = AcknowledgedBitrateEstimator(configuration: configuration.acknowledged)
        // The loss-based estimate starts at the maximum: until losses say otherwise it imposes
        // no limit, and its first cut starts from the acknowledged bitrate (LossBasedController).
        loss = LossBasedController(initialBitrate: configuration.maxBitrate, configuration: LossBasedController.Configuration(
            minBitrate: configuration.minBitrate, maxBitrate: configuration.maxBitrate))
    }

    /// Feeds one transport-wide feedback message's results (in sequence order) received at
    /// `now`. O(packets), no allocation.
    public mutating func onTransportFeedback(_ results: some Collection<PacketResult>, now: UInt64) {
        var overuse = false
        for packet in results {
            acknowledged.add(packet)
            queueDelay.add(packet)
            // Losses of packets sent before the last loss cut were already answered by it.
            if packet.sendNanoseconds >= lossCutSendNanoseconds {
                lossPackets += 1
                if packet.arrivalNanoseconds == nil { lostPackets += 1 }
            }
            let resets = groups.resets
            let delta = groups.add(packet)
            if groups.resets != resets { queueDelay.reset() }   // the receiver's clock jumped
            guard let delta else { continue }
            let trend = trendline.update(delta)
            let usage = detector.detect(trend: trend, sendDeltaMilliseconds: Double(delta.sendDeltaNanoseconds) / 1e6,
                                        now: delta.arrivalNanoseconds)
            if usage == .overusing { overuse = true }
        }
        let usage: BandwidthUsage = overuse ? .overusing : detector.usage
        rateControl.update(usage: usage, acknowledgedBitrate: acknowledged.bitrate,
                           queueingDelayNanoseconds: queueDelay.queueingDelayNanoseconds, now: now)
        if rateControl.state == .decrease { lastOveruseNanoseconds = now }

        if lossWindowStart == nil { lossWindowStart = now }
        if lossPackets > 0, let start = lossWindowStart,
           lossPackets >= configuration.lossReportPackets || now &- start >= configuration.lossReportIntervalNanoseconds {
            let action = loss.update(fractionLost: Double(lostPackets) / Double(lossPackets), ceiling: Int(rateControl.estimate),
                                     acknowledgedBitrate: acknowledged.bitrate, now: now)
            if action == .decrease { lossCutSendNanoseconds = now }
            lossPackets = 0
            lostPackets = 0
            lossWindowStart = now
            lastFeedbackLossReport = now
        }
    }

    /// Feeds an RTCP receiver report's fraction lost (0...1, RFC 3550 §6.4.1 "fraction lost"
    /// divided by 256) received at `now`; used only while transport-wide feedback does not
    /// report loss (§7). O(1).
    public mutating func onLossReport(fractionLost: Double, now: UInt64) {
        if let last = lastFeedbackLossReport, now &- last < configuration.receiverReportFallbackNanoseconds { return }
        loss.update(fractionLost: fractionLost, ceiling: Int(rateControl.estimate), acknowledgedBitrate: acknowledged.bitrate,
                    now: now)
    }

    /// Feeds a probe cluster's measurement (``ProbeClusterEstimator``). A usable result,
    /// arriving while the delay-based controller is not decreasing and the detector does not
    /// see over-use, raises the delay-based estimate (and the loss-based one: the cluster's
    /// loss was under 10 %) to ``BandwidthEstimatorConfiguration/probeAcceptFactor`` × its
    /// delivered rate at once, instead of the 8 %/s of §5.5's multiplicative increase. A
    /// result during over-use is ignored (the probe itself may have caused it). Returns
    /// whether the target rose. O(1).
    @discardableResult
    public mutating func onProbeResult(_ result: ProbeResult, now: UInt64) -> Bool {
        guard result.rejection == nil, rateControl.state != .decrease, detector.usage != .overusing else { return false }
        let value = Int(Double(result.bitrate) * configuration.probeAcceptFactor)
        let before = targetBitrate
        guard rateControl.raise(to: value) || value > before else { return false }
        loss.raise(to: value)
        let raised = targetBitrate > before
        if raised { probesApplied += 1 }
        return raised
    }

    /// Feeds what padding showed (the router's legs, which pad without measuring clusters):
    /// while the sender probes (padding on top of its media), what
    /// the path delivered is a rate it demonstrably carries. The probe's rate is the smaller
    /// of the acknowledged bitrate and `sentBitrate` (what the sender sent lately, media and
    /// padding): arrivals compressed by a draining queue overstate the acknowledged rate, a
    /// path cannot deliver more than was sent. If the detector sees no over-use, the
    /// standing queue is under the drain target (100 ms) and that rate is above the
    /// delay-based estimate, the estimate moves up to it at once instead of climbing 8 % a
    /// second (gcc-02 leaves probing to the sender; senders that probe take the probe's
    /// rate, the lesser of sent and received, as the estimate). The loss-based part is
    /// raised to it too while the last loss report was under 2 % (else it would climb 5 %
    /// per report from the cut the congestion left). Never lowers either. Call only while
    /// probing (a sender that merely keeps up with an estimate learns nothing new). O(1).
    public mutating func onProbeResult(sentBitrate: Int, now: UInt64) {
        guard let acknowledgedRate = acknowledged.bitrate, detector.usage != .overusing,
              queueDelay.queueingDelayNanoseconds < rateControl.configuration.queueDelayTargetNanoseconds else { return }
        let delivered = min(acknowledgedRate, sentBitrate)
        guard Double(delivered) > min(rateControl.estimate, loss.estimate) else { return }
        rateControl.raise(to: delivered)
        if loss.lastLossFraction < loss.configuration.increaseBelow { loss.raise(to: delivered) }
    }

    /// Sets the round-trip time (from RTCP, RFC 3550 §6.4.1, or the feedback), which sets the
    /// controllers' response time (100 ms + rtt, §5.5). O(1).
    public mutating func onRTT(nanoseconds: UInt64) {
        rtt = nanoseconds
        rateControl.setRTT(nanoseconds: nanoseconds)
        loss.setRTT(nanoseconds: nanoseconds)
    }

    /// The target sending bitrate, bits/s: min(delay-based, loss-based) within the bounds. O(1).
    public var targetBitrate: Int {
        let target = min(rateControl.estimate, loss.estimate)
        return min(max(Int(target), configuration.minBitrate), configuration.maxBitrate)
    }

    /// Every stage's current value. O(1).
    public var state: BandwidthEstimatorState {
        BandwidthEstimatorState(
            targetBitrate: targetBitrate, delayBasedBitrate: Int(rateControl.estimate),
            lossBasedBitrate: Int(loss.estimate), acknowledgedBitrate: acknowledged.bitrate,
            usage: detector.usage, rateControl: rateControl.state, trendMilliseconds: trendline.modifiedTrend,
            thresholdMilliseconds: detector.thresholdMilliseconds, lossFraction: loss.lastLossFraction,
            rttNanoseconds: rtt, queueingDelayNanoseconds: queueDelay.queueingDelayNanoseconds)
    }
}
