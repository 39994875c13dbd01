import Glibc

/// The state of the delay-based rate controller (draft-ietf-rmcat-gcc-02 §5.5).
public enum RateControlState: Sendable, Equatable {
    /// Keep the estimate: queues are draining or settling.
    case hold
    /// Raise the estimate, multiplicatively far from convergence, additively near it.
    case increase
    /// Cut the estimate to beta x the acknowledged bitrate.
    case decrease
}

/// The delay-based rate controller: turns the over-use detector's signal into A_hat, the
/// delay-based bandwidth estimate (draft-ietf-rmcat-gcc-02 §5.5).
///
/// Transitions are the draft's table: over-use -> decrease (from hold or increase); normal
/// -> increase from hold, hold from decrease; under-use -> hold from increase or decrease;
/// otherwise stay. Starts in increase.
///
/// - Increase, far from convergence: multiplicative, `eta = 1.08^min(dt_s, 1)` (at most 8 %
///   per second, §5.5). Before the first over-use of the session there is no evidence of
///   the capacity at all; the controller then ramps at ``Configuration/startupIncreasePerSecond``
///   (our addition, default 1.25/s — the draft has no start-up phase; libraries that follow
///   it probe instead, which this layer cannot yet do). It reaches 0.7 x 2 Mbps from
///   300 kbps in about 7 s instead of 20.
/// - Increase, near convergence (the acknowledged bitrate within 3 standard deviations of the
///   average acknowledged bitrate at past decreases, both an exponential moving average with
///   smoothing 0.95, §5.5): additive, half a packet per response time, at least 1000 bps
///   per update (§5.5: `alpha = 0.5 * min(dt / (100 ms + rtt), 1)`, `A += max(1000, alpha *
///   expected_packet_size_bits)`, packet size from 30 fps and 1200-byte packets). An
///   acknowledged bitrate above that band means the path changed: the average is reset and
///   the increase is multiplicative again (§5.5).
/// - Increases never take the estimate above `1.5 x acknowledged + 10 kbps` (§5.5: "A_hat(i)
///   < 1.5 * R_hat(i)"; the 10 kbps lets a near-idle sender still grow). The bound stops
///   growth; it does not itself cut an estimate the sender has not used (cutting is the
///   detector's job).
/// - Decrease: `A = beta * acknowledged`, beta = 0.85 (§5.5, Table 1), never raising the
///   estimate, at most once per response time (100 ms + the smallest rtt reported, §5.5; the
///   smallest because a queue inflates the rtt exactly when the controller must act) plus half
///   the standing queueing delay (our addition: packets sent after a cut reach the receiver
///   only behind that queue; the whole of it would slow the drain of a sender that follows
///   the target at once, half keeps a lagging encoder from spiralling the estimate down with
///   the acknowledged bitrate), so one congestion event, reported in several feedback
///   messages, cuts once.
/// - Drain (our addition): when the caller reports a standing queue above
///   ``Configuration/queueDelayTargetNanoseconds`` (100 ms, LEDBAT's TARGET, RFC 6817 §2.4.2 and
///   §3.3), the decrease also takes off the rate that empties the excess within
///   ``Configuration/drainNanoseconds`` (1 s): `A = beta * R - (q - target) * R / drain`,
///   but never below ``Configuration/drainFloor`` x R (0.5, the deepest cut of §6's loss
///   rule, at p = 1). Without it, a drop-tail queue that filled before the over-use was
///   detected drains at only (1 - beta) = 15 % of the capacity: seconds of delay. The drain
///   is temporary: once the queue is back under the target (and the controller is out of
///   decrease), the estimate returns to at least the plain `beta * R` it would have had.
/// - Latency budget (our addition, DESIGN.md: "a latency budget beats a queue"): while the
///   standing queue exceeds the target the estimate does not increase, and beyond
///   ``Configuration/queueDelayLimitNanoseconds`` (200 ms) the update counts as an over-use
///   (and so as a decrease with drain). The adaptive threshold (§5.4) rises with the trend
///   during a large over-use and then decays with K_d over ~5 s, during which a slow
///   additive climb above the capacity goes unseen by the trend; the queue estimate sees it.
///   The price: a competing loss-based flow (TCP) that keeps the queue above 200 ms would
///   push this flow down, which is the starvation §5.4 adapts the threshold against. Set the
///   limit to nil to rely on the draft's detector alone.
/// - Always clamped to [minBitrate, maxBitrate].
///
/// Cost: O(1) per update, a few doubles of state.
public struct AIMDRateController: Sendable {
    /// Bounds and constants.
    public struct Configuration: Sendable, Equatable {
        /// Estimate before any feedback, bits/s.
        public var initialBitrate: Int
        /// Lowest estimate, bits/s.
        public var minBitrate: Int
        /// Highest estimate, bits/s.
        public var maxBitrate: Int
        /// beta of §5.5 (0.85).
        public var beta: Double
        /// Multiplicative increase per second far from convergence (§5.5: 1.08).
        public var increasePerSecond: Double
        /// Multiplicative increase per second before the first over-use (our choice: 1.25).
        public var startupIncreasePerSecond: Double
        /// Upper bound factor over the acknowledged bitrate (§5.5: 1.5).
        public var acknowledgedHeadroomFactor: Double
        /// Added to the bound, bits/s (10 kbps).
        public var acknowledgedHeadroomBits: Int
        /// Queueing delay above which a decrease also drains, nanoseconds (100 ms).
        public var queueDelayTargetNanoseconds: UInt64
        /// Time a decrease aims to empty the excess queue in, nanoseconds (1 s).
        public var drainNanoseconds: UInt64
        /// Deepest decrease, as a fraction of the acknowledged bitrate (0.5).
        public var drainFloor: Double
        /// Standing queue that counts as over-use, nanoseconds (200 ms); nil: never.
        public var queueDelayLimitNanoseconds: UInt64?
        /// Creates a configuration; defaults as documented on the type.
        public init(initialBitrate: Int, minBitrate: Int, maxBitrate: Int, beta: Double = 0.85,
                    increasePerSecond: Double = 1.08, startupIncreasePerSecond: Double = 1.25,
                    acknowledgedHeadroomFactor: Double = 1.5, acknowledgedHeadroomBits: Int = 10_000,
                    queueDelayTargetNanoseconds: UInt64 = 100_000_000, drainNanoseconds: UInt64 = 1_000_000_000,
                    drainFloor: Double = 0.5, queueDelayLimitNanoseconds: UInt64? = 200_000_000) {
            self.minBitrate = max(1, minBitrate)
            self.maxBitrate = max(self.minBitrate, maxBitrate)
            self.initialBitrate = min(max(initialBitrate, self.minBitrate), self.maxBitrate)
            self.beta = beta
            self.increasePerSecond = increasePerSecond
            self.startupIncreasePerSecond = startupIncreasePerSecond
            self.acknowledgedHeadroomFactor = acknowledgedHeadroomFactor
            self.acknowledgedHeadroomBits = acknowledgedHeadroomBits
            self.queueDelayTargetNanoseconds = queueDelayTargetNanoseconds
            self.drainNanoseconds = max(1, drainNanoseconds)
            self.drainFloor = drainFloor
            self.queueDelayLimitNanoseconds = queueDelayLimitNanoseconds
        }
    }

    /// Bounds and constants in use.
    public let configuration: Configuration
    /// Current state.
    public private(set) var state: RateControlState = .increase
    /// A_hat, bits/s.
    public private(set) var estimate: Double
    /// True once an over-use has cut the estimate (ends the start-up ramp).
    public private(set) var hasDecreased = false
    /// Whether the last increase was additive (near convergence).
    public private(set) var nearConvergence = false
    /// The smallest round-trip time reported, nanoseconds (100 ms until told); sets the
    /// response time.
    public private(set) var rttNanoseconds: UInt64 = 100_000_000
    private var rttKnown = false
    private var averageMaxBitrate: Double?
    private var varianceMaxBitrate = 0.0
    private var lastUpdate: UInt64?
    private var lastDecrease: UInt64?
    private var restoreAfterDrain: Double?

    /// Response time of §5.5: 100 ms + rtt, nanoseconds.
    public var responseTimeNanoseconds: UInt64 { 100_000_000 + rttNanoseconds }

    /// A controller at the initial bitrate, in the increase state. Costs nothing.
    public init(configuration: Configuration) {
        self.configuration = configuration
        estimate = Double(configuration.initialBitrate)
    }

    /// Reports a round-trip time; the smallest one reported drives the response time. O(1).
    public mutating func setRTT(nanoseconds: UInt64) {
        rttNanoseconds = rttKnown ? min(rttNanoseconds, nanoseconds) : nanoseconds
        rttKnown = true
    }

    /// Raises the estimate to `bitrate` (clamped) when that is higher, after a probe
    /// measured the path carrying it (``BandwidthEstimator/onProbeResult(_:now:)``): the
    /// convergence band of past decreases no longer describes the path, so it is forgotten
    /// and increases are multiplicative again. Never lowers; state unchanged. Returns
    /// whether the estimate rose. O(1).
    @discardableResult
    public mutating func raise(to bitrate: Int) -> Bool {
        let value = clamp(Double(bitrate))
        guard value > estimate else { return false }
        estimate = value
        averageMaxBitrate = nil
        varianceMaxBitrate = 0
        nearConvergence = false
        restoreAfterDrain = nil
        return true
    }

    /// One control step: applies the state table to `usage`, then moves the estimate
    /// according to the new state. `acknowledgedBitrate` is R_hat (bits/s), nil while
    /// unknown; `queueingDelayNanoseconds` the standing queue if known (drives the drain);
    /// `now` is the caller's clock (nanoseconds). Returns the estimate (bits/s). O(1).
    @discardableResult
    public mutating func update(usage: BandwidthUsage, acknowledgedBitrate: Int?, queueingDelayNanoseconds: UInt64 = 0,
                                now: UInt64) -> Int {
        var usage = usage
        if let limit = configuration.queueDelayLimitNanoseconds, queueingDelayNanoseconds > limit { usage = .overusing }
        state = Self.transition(from: state, on: usage)
        let elapsed = lastUpdate.map { now > $0 ? Double(now - $0) : 0 } ?? 0
        lastUpdate = now
        let acknowledged = acknowledgedBitrate.map(Double.init)
        if let restore = restoreAfterDrain, state != .decrease,
           queueingDelayNanoseconds <= configuration.queueDelayTargetNanoseconds {
            estimate = max(estimate, restore)
            restoreAfterDrain = nil
        }
        switch state {
        case .hold:
            break
        case .increase:
            if queueingDelayNanoseconds <= configuration.queueDelayTargetNanoseconds {
                increase(elapsedNanoseconds: elapsed, acknowledged: acknowledged)
            }
        case .decrease:
            decrease(acknowledged: acknowledged, queueingDelay: queueingDelayNanoseconds, now: now)
        }
        estimate = clamp(estimate)
        return Int(estimate)
    }

    /// The draft's state table (§5.5); blank cells keep the state.
    public static func transition(from state: RateControlState, on usage: BandwidthUsage) -> RateControlState {
        switch (usage, state) {
        case (.overusing, _): return .decrease
        case (.normal, .hold): return .increase
        case (.normal, .decrease): return .hold
        case (.normal, .increase): return .increase
        case (.underusing, _): return .hold
        }
    }

    private mutating func increase(elapsedNanoseconds: Double, acknowledged: Double?) {
        let seconds = min(elapsedNanoseconds / 1e9, 1)
        if let r = acknowledged, let average = averageMaxBitrate {
            let deviation = 3 * varianceMaxBitrate.squareRoot()
            if r > average + deviation {
                averageMaxBitrate = nil
                varianceMaxBitrate = 0
                nearConvergence = false
            } else {
                nearConvergence = abs(r - average) <= deviation
            }
        } else {
            nearConvergence = false
        }
        var next: Double
        if nearConvergence {
            // §5.5 additive increase: half an expected packet per response time.
            let bitsPerFrame = estimate / 30
            let packetsPerFrame = max(1, (bitsPerFrame / (1200 * 8)).rounded(.up))
            let packetBits = bitsPerFrame / packetsPerFrame
            let alpha = 0.5 * min(elapsedNanoseconds / Double(responseTimeNanoseconds), 1)
            next = estimate + max(1000, alpha * packetBits)
        } else {
            let factor = hasDecreased ? configuration.increasePerSecond : configuration.startupIncreasePerSecond
            next = estimate * pow(factor, seconds)
        }
        if let r = acknowledged {
            let bound = configuration.acknowledgedHeadroomFactor * r + Double(configuration.acknowledgedHeadroomBits)
            next = min(next, max(estimate, bound))
        }
        estimate = next
    }

    private mutating func decrease(acknowledged: Double?, queueingDelay: UInt64, now: UInt64) {
        // Feedback about packets sent after a cut comes back only behind the queue in front of
        // them: within response time + half the standing queue, a further over-use signal is
        // mostly the old congestion (cutting again would spiral with the acknowledged bitrate,
        // which falls as the sender slows).
        if let last = lastDecrease, now >= last, now - last < responseTimeNanoseconds + queueingDelay / 2 { return }
        lastDecrease = now
        hasDecreased = true
        guard let r = acknowledged else {
            estimate *= configuration.beta
            return
        }
        let plain = configuration.beta * r
        var target = plain
        if queueingDelay > configuration.queueDelayTargetNanoseconds {
            let excess = Double(queueingDelay - configuration.queueDelayTargetNanoseconds)
            target = max(configuration.drainFloor * r, plain - excess / Double(configuration.drainNanoseconds) * r)
            restoreAfterDrain = min(restoreAfterDrain ?? plain, plain)
        }
        estimate = min(estimate, target)
        if let restore = restoreAfterDrain { restoreAfterDrain = min(restore, max(estimate, plain)) }
        // §5.5: average and deviation of the incoming bitrate at decreases, EMA 0.95.
        if let average = averageMaxBitrate {
            let alpha = 0.05
            let next = (1 - alpha) * average + alpha * r
            varianceMaxBitrate = (1 - alpha) * varianceMaxBitrate + alpha * (r - next) * (r - next)
            averageMaxBitrate = next
        } else {
            averageMaxBitrate = r
            varianceMaxBitrate = (0.05 * r) * (0.05 * r)   // a first band of +-15 % (3 sigma)
        }
    }

    private func clamp(_ value: Double) -> Double {
        min(max(value, Double(configuration.minBitrate)), Double(configuration.maxBitrate))
    }
}
