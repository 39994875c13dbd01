/// The loss-based controller: As_hat from the fraction of packets lost (draft-ietf-rmcat-gcc-02
/// §6).
///
/// Per report of a loss fraction p (RTCP receiver report "fraction lost", RFC 3550 §6.4.1,
/// or the share of packets a transport-wide feedback interval reports lost):
/// - p < 2 %: As = 1.05 x As (§6),
/// - 2 % <= p <= 10 %: As unchanged (§6: such losses, if they do not grow, are not
///   self-inflicted congestion),
/// - p > 10 %: As = As x (1 - 0.5 p) (§6), once two reports in a row were over 10 % or
///   this one is at least ``Configuration/severeAbove`` (20 %; our addition, see below), at
///   most once per ``responseTimeNanoseconds``
///   (our choice, as for the delay-based decrease: one congestion event seen in several
///   reports cuts once). When the acknowledged bitrate (else the ceiling) is given and As is
///   above it, the cut starts from there: cutting an As that was never in force would change
///   nothing, and the acknowledged bitrate is what the lossy path actually carried (the
///   delay-based cut may already be below it; min() then keeps that one).
/// - Why a moderate loss needs a second report: a report judges ~50 packets
///   (``BandwidthEstimatorConfiguration/lossReportPackets``), and 5 % random loss puts 6 or
///   more of 50 over 10 % in about 4 % of reports (binomial), with no congestion at all.
///   Since the cut starts from the acknowledged bitrate, one such report put a router leg
///   whose acknowledged rate was 183 kbps at 172 kbps, under the 185 kbps its full stream
///   needs. The router then dropped a temporal layer the path had room for
///   (AdaptiveQualityAcceptanceLossTests: 97.7 % of frames, goal 98 %). Two such reports
///   in a row happen in about 0.14 % of report pairs. A congested queue or a policer loses in
///   every report until the rate falls, and usually at far more than 20 %: its cut is
///   not delayed.
///
/// An increase never lifts As above `ceiling` when one is given: §6 has the loss-based
/// controller work from the delay-based estimate A_hat, and without a ceiling a loss-free
/// path would let As run off to the maximum, where it would mean nothing when losses
/// start. The final target is min(A_hat, As) (§6), taken by ``BandwidthEstimator``.
///
/// Cost: O(1) per report.
public struct LossBasedController: Sendable {
    /// Thresholds and factors; defaults are §6's.
    public struct Configuration: Sendable, Equatable {
        /// Below this loss fraction, increase (§6: 0.02).
        public var increaseBelow: Double
        /// Above this loss fraction, decrease (§6: 0.10) when the previous report was above
        /// it too.
        public var decreaseAbove: Double
        /// At or above this loss fraction, decrease on one report (our choice: 0.20, twice
        /// §6's threshold; 5 % random loss reaches it in 50 packets about once in 6,000).
        public var severeAbove: Double
        /// Increase factor per report (§6: 1.05).
        public var increaseFactor: Double
        /// Lowest estimate, bits/s.
        public var minBitrate: Int
        /// Highest estimate, bits/s.
        public var maxBitrate: Int
        /// Creates a configuration with §6's thresholds.
        public init(minBitrate: Int, maxBitrate: Int, increaseBelow: Double = 0.02, decreaseAbove: Double = 0.10,
                    severeAbove: Double = 0.20, increaseFactor: Double = 1.05) {
            self.minBitrate = max(1, minBitrate)
            self.maxBitrate = max(self.minBitrate, maxBitrate)
            self.increaseBelow = increaseBelow
            self.decreaseAbove = decreaseAbove
            self.severeAbove = severeAbove
            self.increaseFactor = increaseFactor
        }
    }

    /// What the last report did.
    public enum Action: Sendable, Equatable {
        /// p < 2 %: raised (possibly held at the ceiling).
        case increase
        /// 2-10 %: unchanged.
        case hold
        /// p > 10 %: cut by (1 - 0.5 p).
        case decrease
        /// p > 10 % but within a response time of the last cut: unchanged.
        case decreaseSuppressed
        /// 10 % < p < 20 % with the previous report at most 10 %: unchanged until the next
        /// report confirms it.
        case decreasePending
    }

    /// Thresholds in use.
    public let configuration: Configuration
    /// As_hat, bits/s.
    public private(set) var estimate: Double
    /// The last loss fraction reported, 0...1.
    public private(set) var lastLossFraction = 0.0
    /// Time between two cuts, nanoseconds (100 ms + rtt; set with ``setRTT(nanoseconds:)``).
    public private(set) var responseTimeNanoseconds: UInt64 = 200_000_000
    private var lastDecrease: UInt64?
    private var previousOverThreshold = false

    /// A controller at `initialBitrate` (clamped). Costs nothing.
    public init(initialBitrate: Int, configuration: Configuration) {
        self.configuration = configuration
        estimate = Double(min(max(initialBitrate, configuration.minBitrate), configuration.maxBitrate))
    }

    /// Sets the round-trip time; the response time becomes 100 ms + rtt. O(1).
    public mutating func setRTT(nanoseconds: UInt64) {
        responseTimeNanoseconds = 100_000_000 + nanoseconds
    }

    /// Raises As to `bitrate` (clamped) when higher: a probe carried that rate with less
    /// loss than the decrease threshold, so the loss-based limit is at least that. Never
    /// lowers. O(1).
    public mutating func raise(to bitrate: Int) {
        estimate = max(estimate, min(max(Double(bitrate), Double(configuration.minBitrate)), Double(configuration.maxBitrate)))
    }

    /// Applies one loss report. `fractionLost` in 0...1 (clamped), `ceiling` the most an
    /// increase may reach (bits/s, usually the delay-based estimate), `acknowledgedBitrate`
    /// the most a cut starts from (bits/s), `now` the caller's clock in nanoseconds. Returns
    /// what it did. O(1).
    @discardableResult
    public mutating func update(fractionLost: Double, ceiling: Int? = nil, acknowledgedBitrate: Int? = nil,
                                now: UInt64) -> Action {
        let p = min(max(fractionLost.isNaN ? 0 : fractionLost, 0), 1)
        lastLossFraction = p
        let confirmed = previousOverThreshold || p >= configuration.severeAbove
        previousOverThreshold = p > configuration.decreaseAbove
        let action: Action
        if p < configuration.increaseBelow {
            var next = estimate * configuration.increaseFactor
            if let ceiling { next = min(next, max(estimate, Double(ceiling))) }
            estimate = next
            action = .increase
        } else if p <= configuration.decreaseAbove {
            action = .hold
        } else if !confirmed {
            action = .decreasePending
        } else if let last = lastDecrease, now >= last, now - last < responseTimeNanoseconds {
            action = .decreaseSuppressed
        } else {
            let inForce = acknowledgedBitrate ?? ceiling
            let base = inForce.map { min(estimate, Double($0)) } ?? estimate
            estimate = base * (1 - 0.5 * p)
            lastDecrease = now
            action = .decrease
        }
        estimate = min(max(estimate, Double(configuration.minBitrate)), Double(configuration.maxBitrate))
        return action
    }
}
