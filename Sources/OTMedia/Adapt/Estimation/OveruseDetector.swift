/// What the over-use detector concludes about the bottleneck (draft-ietf-rmcat-gcc-02 §5.4).
public enum BandwidthUsage: Sendable, Equatable {
    /// The delay trend is within the threshold: the queue is steady.
    case normal
    /// The trend has been above the threshold long enough and is still rising: a queue is
    /// building; the rate must come down.
    case overusing
    /// The trend is below minus the threshold: a queue is draining.
    case underusing
}

/// Compares the delay trend m(i) with an adaptive threshold del_var_th(i) (draft-ietf-rmcat-
/// gcc-02 §5.4).
///
/// - Over-use is signaled only when m(i) > del_var_th(i) has held for at least
///   overuse_time_th = 10 ms of group time AND over more than one group AND m(i) >= m(i-1)
///   ("if m(i) < m(i-1), over-use will not be signaled", §5.4).
/// - Under-use when m(i) < -del_var_th(i); normal otherwise.
/// - The threshold follows |m(i)|: `del_var_th(i) = del_var_th(i-1) + (t(i)-t(i-1)) * K(i) *
///   (|m(i)| - del_var_th(i-1))`, K = K_u = 0.01 when |m(i)| is outside the threshold,
///   K_d = 0.00018 inside it, time in milliseconds; not updated when |m(i)| - del_var_th(i)
///   > 15 (a spike, not a competing flow); clamped to [6, 600] ms; del_var_th(0) = 12.5 ms
///   (all §5.4 and Table 1 of §5.6). The time step is capped at 100 ms (our choice) so a
///   pause in feedback does not swing the threshold in one update.
///
/// Cost: O(1) per sample, a few doubles of state.
public struct OveruseDetector: Sendable {
    /// The draft's constants, overridable for tests.
    public struct Configuration: Sendable, Equatable {
        /// del_var_th(0), ms (§5.6: 12.5 ms).
        public var initialThresholdMilliseconds: Double
        /// K_u (§5.4: 0.01).
        public var kUp: Double
        /// K_d (§5.4: 0.00018).
        public var kDown: Double
        /// Clamp of del_var_th, ms (§5.4: [6, 600]).
        public var thresholdRange: ClosedRange<Double>
        /// overuse_time_th, ms (§5.4: 10 ms).
        public var overuseTimeThresholdMilliseconds: Double
        /// |m| - del_var_th beyond which the threshold is not updated, ms (§5.4: 15).
        public var maximumThresholdStepMilliseconds: Double
        /// Longest time step one threshold update uses, ms (our choice: 100).
        public var maximumTimeStepMilliseconds: Double
        /// Creates a configuration with the draft's recommended values.
        public init(initialThresholdMilliseconds: Double = 12.5, kUp: Double = 0.01, kDown: Double = 0.00018,
                    thresholdRange: ClosedRange<Double> = 6...600, overuseTimeThresholdMilliseconds: Double = 10,
                    maximumThresholdStepMilliseconds: Double = 15, maximumTimeStepMilliseconds: Double = 100) {
            self.initialThresholdMilliseconds = initialThresholdMilliseconds
            self.kUp = kUp
            self.kDown = kDown
            self.thresholdRange = thresholdRange
            self.overuseTimeThresholdMilliseconds = overuseTimeThresholdMilliseconds
            self.maximumThresholdStepMilliseconds = maximumThresholdStepMilliseconds
            self.maximumTimeStepMilliseconds = maximumTimeStepMilliseconds
        }
    }

    /// The constants in use.
    public let configuration: Configuration
    /// del_var_th(i), ms.
    public private(set) var thresholdMilliseconds: Double
    /// The last conclusion.
    public private(set) var usage: BandwidthUsage = .normal
    private var overuseMilliseconds = 0.0
    private var overuseSamples = 0
    private var previousTrend = 0.0
    private var lastUpdate: UInt64?

    /// A detector at the initial threshold. Costs nothing.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        thresholdMilliseconds = configuration.initialThresholdMilliseconds
    }

    /// Judges one trend sample. `trend` is m(i) in ms (the trendline's modified trend),
    /// `sendDeltaMilliseconds` the group's inter-departure time (how long this sample
    /// stands for), `now` in nanoseconds on any monotonic clock: the threshold's time step is
    /// the difference between two calls (§5.4 uses t(i) - t(i-1), the groups' arrival times,
    /// which is what ``BandwidthEstimator`` passes). O(1).
    public mutating func detect(trend: Double, sendDeltaMilliseconds: Double, now: UInt64) -> BandwidthUsage {
        let threshold = thresholdMilliseconds
        if trend > threshold {
            overuseMilliseconds += max(0, sendDeltaMilliseconds)
            overuseSamples += 1
            if overuseMilliseconds >= configuration.overuseTimeThresholdMilliseconds, overuseSamples > 1,
               trend >= previousTrend {
                usage = .overusing
            } else if usage == .overusing && trend < previousTrend {
                usage = .normal
            }
        } else if trend < -threshold {
            overuseMilliseconds = 0
            overuseSamples = 0
            usage = .underusing
        } else {
            overuseMilliseconds = 0
            overuseSamples = 0
            usage = .normal
        }
        previousTrend = trend
        updateThreshold(trend: trend, now: now)
        return usage
    }

    private mutating func updateThreshold(trend: Double, now: UInt64) {
        defer { lastUpdate = now }
        guard let last = lastUpdate, now > last else { return }
        let magnitude = abs(trend)
        if magnitude - thresholdMilliseconds > configuration.maximumThresholdStepMilliseconds { return }
        let k = magnitude < thresholdMilliseconds ? configuration.kDown : configuration.kUp
        let step = min(Double(now - last) / 1e6, configuration.maximumTimeStepMilliseconds)
        let next = thresholdMilliseconds + step * k * (magnitude - thresholdMilliseconds)
        thresholdMilliseconds = min(max(next, configuration.thresholdRange.lowerBound),
                                    configuration.thresholdRange.upperBound)
    }
}
