/// A probe cluster to send: pace at `bitrate` (padding filling what media leaves) until
/// `bytes` and `packets` have left.
public struct ProbeClusterRequest: Sendable, Equatable {
    /// The controller's number for it.
    public var id: Int
    /// Rate to pace the cluster at, bits/s.
    public var bitrate: Int
    /// Bytes the cluster must carry (bitrate × the cluster duration).
    public var bytes: Int
    /// Fewest packets the cluster must carry.
    public var packets: Int

    /// Creates a request. Costs nothing.
    public init(id: Int, bitrate: Int, bytes: Int, packets: Int) {
        self.id = id
        self.bitrate = bitrate
        self.bytes = bytes
        self.packets = packets
    }
}

/// Decides when the sender probes for more bandwidth and how hard (the probing that
/// draft-ietf-rmcat-gcc-02 leaves to the sender, §5.5 notes that A_hat only grows by 8 %/s):
/// short clusters paced above the estimate whose delivered rate (``ProbeClusterEstimator``)
/// lifts the estimate at once (``BandwidthEstimator/onProbeResult(_:now:)``).
///
/// - **Start**: the first estimate triggers clusters at ``Configuration/initialMultiplier``
///   and ``Configuration/secondInitialMultiplier`` (2× and 3×) of it.
/// - **Exponential**: a result that delivered at least ``Configuration/continueFraction``
///   (0.7) of its cluster's rate while the estimate is still under the maximum triggers the
///   next cluster at ``Configuration/multiplier`` (2×) the new estimate.
/// - **Periodic** (the cap may have lifted, or the sender is application-limited): while the
///   estimate is under the maximum, no over-use was seen for ``Configuration/quietNanoseconds``
///   (2 s) and the queue in front of the path is short (the path's standing queue plus the
///   media waiting in the sender's pacer, at the estimate), a cluster at 2× the estimate every
///   ``Configuration/intervalNanoseconds`` (2 s).
/// - **At the maximum while application-limited**: a cluster at the estimate every interval
///   (quiet periods only), so a cap that appears while the media does not fill the estimate
///   still shows up as delay and loss.
/// - One cluster in flight at a time (except the start pair); a cluster without a result
///   after ``Configuration/resultTimeoutNanoseconds`` no longer blocks.
/// - Rates never exceed ``Configuration/maxProbeFactor`` × the configured maximum.
///
/// Pure and clock-injected; O(1) per call, no allocation.
public struct ProbeController: Sendable {
    /// Timing and rates.
    public struct Configuration: Sendable, Equatable {
        /// The estimate's ceiling, bits/s (no probing at or above it).
        public var maxBitrate: Int
        /// Multiplier of the first estimate for the first start cluster (2).
        public var initialMultiplier: Double = 2
        /// Multiplier of the first estimate for the second start cluster (3).
        public var secondInitialMultiplier: Double = 3
        /// Multiplier of the estimate for later clusters (2).
        public var multiplier: Double = 2
        /// A result that delivered this share of its cluster's rate continues (0.7).
        public var continueFraction: Double = 0.7
        /// Periodic probing interval, nanoseconds (2 s).
        public var intervalNanoseconds: UInt64 = 2_000_000_000
        /// No periodic probe within this long after an over-use, nanoseconds (2 s).
        public var quietNanoseconds: UInt64 = 2_000_000_000
        /// A cluster's duration at its rate, nanoseconds (100 ms: enough 300-byte padding
        /// packets that a 250 µs feedback tick, a loaded machine's scheduling and a
        /// bottleneck's token-bucket burst barely matter; 60 ms measured 730 kbps through a
        /// 500 kbps cap).
        public var clusterNanoseconds: UInt64 = 100_000_000
        /// Fewest packets per cluster (10).
        public var minPackets: Int = 10
        /// A cluster in flight stops blocking the next after this long, nanoseconds (1 s).
        public var resultTimeoutNanoseconds: UInt64 = 1_000_000_000
        /// No periodic probe while the standing queue, plus the time the pacer's backlog takes
        /// to leave at the estimate, is above this, nanoseconds (30 ms): a path with a queue
        /// is at its capacity, and a cluster at 2× would only overflow it (measured: each such
        /// probe through a 500 kbps cap cost frames and a keyframe). Media queued in the pacer
        /// means the same from the sender's side: it is sending at the estimate, not short of
        /// it, and a cluster would push that backlog into the bottleneck at 2× (otbench adapt:
        /// with ~250 ms of video queued, one cluster overflowed the 500 kbps link's 300 ms
        /// buffer, 19 packets and 7 frames lost; the clusters every 2-3 s through the drop
        /// each ended in an over-use cut, and encoder pushback then skipped 130-230 frames).
        public var maxQueueingDelayNanoseconds: UInt64 = 30_000_000
        /// Highest probe rate as a multiple of `maxBitrate` (1.25: a cluster at the maximum
        /// measures at most the maximum, whose 0.9 would never reach it).
        public var maxProbeFactor: Double = 1.25

        /// Probing up to `maxBitrate`; other fields default as documented.
        public init(maxBitrate: Int) { self.maxBitrate = maxBitrate }

    }

    /// Rules in use.
    public let configuration: Configuration
    /// Clusters requested so far.
    public private(set) var clustersRequested = 0
    private var started = false
    private var queued: (Int, Int) = (0, 0)   // start pair rates still to hand out (0: none)
    private var inFlight: (id: Int, bitrate: Int, since: UInt64)?
    private var continueAt: Int?               // an estimate to probe above at once
    private var lastProbe: UInt64 = 0

    /// A controller that has not probed; costs nothing.
    public init(configuration: Configuration) { self.configuration = configuration }

    /// Called often (each send turn): the cluster to send now, if any. `estimate` is the
    /// current target (bits/s, 0 = none yet), `lastOveruse` when the estimator last saw
    /// over-use (nil: never), `applicationLimited` whether the media sends well under the
    /// estimate, `queueingDelayNanoseconds` the estimator's standing queue and `pacerQueuedBits`
    /// the media waiting in the sender's pacer (periodic probes wait while the queue plus that
    /// backlog's time at the estimate exceeds ``Configuration/maxQueueingDelayNanoseconds``). O(1).
    public mutating func nextCluster(estimate: Int, lastOveruse: UInt64?, applicationLimited: Bool = false,
                                     queueingDelayNanoseconds: UInt64 = 0, pacerQueuedBits: Int = 0,
                                     now: UInt64) -> ProbeClusterRequest? {
        guard estimate > 0 else { return nil }
        if !started {
            started = true
            queued = (rate(estimate, configuration.initialMultiplier), rate(estimate, configuration.secondInitialMultiplier))
        }
        if queued.0 > 0 {
            let bitrate = queued.0
            queued = (queued.1, 0)
            return make(bitrate, now: now)
        }
        if let flight = inFlight {
            guard now > flight.since, now - flight.since > configuration.resultTimeoutNanoseconds else { return nil }
            inFlight = nil
        }
        let backlog = UInt64(max(0, pacerQueuedBits)) * 1_000_000_000 / UInt64(estimate)
        let quiet = (lastOveruse.map { now > $0 && now - $0 >= configuration.quietNanoseconds } ?? true)
            && queueingDelayNanoseconds &+ backlog <= configuration.maxQueueingDelayNanoseconds
        guard estimate < configuration.maxBitrate else {
            continueAt = nil
            // At the maximum a sender that does not fill it never loads the path, so a cap
            // that appears later would go unseen: a cluster at the estimate now and then
            // does (its packets' delay and loss reach the estimator like any others).
            if applicationLimited, quiet, now &- lastProbe >= configuration.intervalNanoseconds {
                return make(rate(estimate, 1), now: now)
            }
            return nil
        }
        if let base = continueAt {
            continueAt = nil
            return make(rate(max(base, estimate), configuration.multiplier), now: now)
        }
        if quiet, now &- lastProbe >= configuration.intervalNanoseconds {
            return make(rate(estimate, configuration.multiplier), now: now)
        }
        return nil
    }

    /// Tells the controller what a cluster measured and the estimate after it was applied.
    /// O(1).
    public mutating func onResult(_ result: ProbeResult, estimate: Int, now: UInt64) {
        if inFlight?.id == result.cluster.id { inFlight = nil }
        guard result.rejection == nil,
              Double(result.bitrate) >= configuration.continueFraction * Double(result.cluster.targetBitrate),
              estimate < configuration.maxBitrate else { return }
        continueAt = estimate
    }

    private func rate(_ estimate: Int, _ multiplier: Double) -> Int {
        Int(min(Double(estimate) * multiplier, Double(configuration.maxBitrate) * configuration.maxProbeFactor))
    }

    private mutating func make(_ bitrate: Int, now: UInt64) -> ProbeClusterRequest {
        clustersRequested += 1
        let id = clustersRequested
        inFlight = (id, bitrate, now)
        lastProbe = now
        let bytes = Int(Double(bitrate) * Double(configuration.clusterNanoseconds) / 8e9)
        return ProbeClusterRequest(id: id, bitrate: bitrate, bytes: bytes, packets: configuration.minPackets)
    }
}
