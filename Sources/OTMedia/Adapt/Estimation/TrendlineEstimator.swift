/// The arrival-time filter of the delay-based controller: estimates m(i), the trend of the
/// queueing delay, from inter-group deltas (draft-ietf-rmcat-gcc-02 §5.3).
///
/// §5.3 says m(i) "can be estimated by any adaptive filter" and describes a Kalman filter;
/// this is a trendline filter instead, which copes better with the send-side feedback's
/// bunched arrivals:
/// 1. accumulate d(i) (§5.1) into the one-way delay relative to the first group,
/// 2. smooth it exponentially: `s(i) = a * s(i-1) + (1 - a) * acc(i)`,
/// 3. keep the last `windowSize` points (arrival time in ms, s(i)) and fit a least-squares
///    line; its slope is the delay growth per millisecond of arrival time (0 steady,
///    `1 - C/R` when sending at R over a capacity C),
/// 4. output the modified trend `slope * min(samples, windowSize) * gain`, in milliseconds,
///    for the over-use detector to compare against its threshold (12.5 ms to start, §5.4).
///
/// Constants (our choices, tuned with the simulated link in AdaptEstimationLinkTests):
/// - ``Configuration/windowSize`` 20 groups: at one group per 5-33 ms (§4 burst_time to a
///   30 fps frame) that is 0.1-0.7 s, the order of the draft's R_hat window (§5.5, 0.5-1 s),
///   long enough that one jittery group does not tip the fit, short enough to react within
///   a few hundred milliseconds.
/// - ``Configuration/smoothing`` 0.9: a ~10-group memory, which removes per-packet
///   serialization jitter but lags the queue by well under the window.
/// - ``Configuration/gain`` 4: with 20 samples, a sender 15 % over capacity (slope 0.13)
///   yields ~10.5 ms, right at the draft's initial 12.5 ms threshold and above its 6 ms
///   floor; a 2x over-send (slope 0.5) yields 40 ms, far above it, so large drops are
///   detected on the first rising samples. Below the window the sample count scales the
///   trend down, so the first few noisy groups cannot trigger over-use.
///
/// Cost: O(windowSize) per delta for the fit (20 multiply-adds), storage preallocated once
/// in `init`; no allocation per packet.
public struct TrendlineEstimator: Sendable {
    /// Tuning of the filter; see the type's documentation for why these defaults.
    public struct Configuration: Sendable, Equatable {
        /// Points in the least-squares fit.
        public var windowSize: Int
        /// Exponential smoothing factor of the accumulated delay, in 0..<1.
        public var smoothing: Double
        /// Multiplier from slope x sample count to the detector's milliseconds.
        public var gain: Double
        /// Creates a configuration; the defaults are the documented choices.
        public init(windowSize: Int = 20, smoothing: Double = 0.9, gain: Double = 4) {
            self.windowSize = max(2, windowSize)
            self.smoothing = smoothing
            self.gain = gain
        }
    }

    /// The tuning in use.
    public let configuration: Configuration
    private var xs: [Double]
    private var ys: [Double]
    private var head = 0
    private var count = 0
    private var firstArrival: UInt64?
    private var accumulatedDelayMilliseconds = 0.0
    private var smoothedDelayMilliseconds = 0.0
    /// Deltas fed since creation or reset.
    public private(set) var samples = 0
    /// Slope of the last fit (ms of delay per ms of arrival time); 0 until two points.
    public private(set) var slope = 0.0
    /// The last output: slope x min(samples, windowSize) x gain, in milliseconds.
    public private(set) var modifiedTrend = 0.0

    /// Creates an empty filter; allocates its two `windowSize` arrays once.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        xs = [Double](repeating: 0, count: configuration.windowSize)
        ys = [Double](repeating: 0, count: configuration.windowSize)
    }

    /// Forgets every sample (keeps the storage). O(1).
    public mutating func reset() {
        head = 0; count = 0; firstArrival = nil
        accumulatedDelayMilliseconds = 0; smoothedDelayMilliseconds = 0
        samples = 0; slope = 0; modifiedTrend = 0
    }

    /// Feeds one inter-group delta and returns the new modified trend (ms). O(windowSize).
    public mutating func update(_ delta: InterGroupDelta) -> Double {
        let start = firstArrival ?? delta.arrivalNanoseconds
        firstArrival = start
        samples += 1
        accumulatedDelayMilliseconds += Double(delta.delayVariationNanoseconds) / 1e6
        let a = configuration.smoothing
        smoothedDelayMilliseconds = a * smoothedDelayMilliseconds + (1 - a) * accumulatedDelayMilliseconds
        let x = Double(Int64(bitPattern: delta.arrivalNanoseconds &- start)) / 1e6
        xs[head] = x
        ys[head] = smoothedDelayMilliseconds
        head = (head + 1) % configuration.windowSize
        count = min(count + 1, configuration.windowSize)
        if count >= 2, let fitted = fitSlope() { slope = fitted }
        modifiedTrend = slope * Double(min(samples, configuration.windowSize)) * configuration.gain
        return modifiedTrend
    }

    /// Least-squares slope of the stored points; nil when all x are equal.
    private func fitSlope() -> Double? {
        var sumX = 0.0, sumY = 0.0
        for i in 0..<count { sumX += xs[i]; sumY += ys[i] }
        let meanX = sumX / Double(count), meanY = sumY / Double(count)
        var numerator = 0.0, denominator = 0.0
        for i in 0..<count {
            let dx = xs[i] - meanX
            numerator += dx * (ys[i] - meanY)
            denominator += dx * dx
        }
        return denominator > 0 ? numerator / denominator : nil
    }
}
