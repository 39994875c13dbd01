/// One probe cluster as the sender sent it: every packet with a transport-wide number in
/// `firstSequence...lastSequence` (media and padding alike) left while the pacer ran at
/// `targetBitrate`.
public struct ProbeCluster: Sendable, Equatable {
    /// The sender's number for the cluster.
    public var id: Int
    /// The rate the cluster was paced at, bits/s.
    public var targetBitrate: Int
    /// First transport-wide sequence number of the cluster (unwrapped).
    public var firstSequence: UInt64
    /// Last one.
    public var lastSequence: UInt64
    /// When its last packet left (sender's clock, nanoseconds).
    public var endNanoseconds: UInt64

    /// Creates a cluster record. Costs nothing.
    public init(id: Int, targetBitrate: Int, firstSequence: UInt64, lastSequence: UInt64, endNanoseconds: UInt64) {
        self.id = id
        self.targetBitrate = targetBitrate
        self.firstSequence = firstSequence
        self.lastSequence = lastSequence
        self.endNanoseconds = endNanoseconds
    }
}

/// What a probe cluster measured.
public struct ProbeResult: Sendable, Equatable {
    /// Why a cluster's measurement is not usable.
    public enum Rejection: Sendable, Equatable {
        /// More than ``ProbeClusterEstimator/Configuration/maxLossFraction`` of it was lost.
        case loss
        /// Fewer than ``ProbeClusterEstimator/Configuration/minReceivedPackets`` arrived.
        case tooFewPackets
        /// Its sends or arrivals spanned no measurable time.
        case noSpan
        /// Feedback never covered its end within the timeout.
        case timedOut
        /// Its packets queued: the arrivals spread over more than
        /// ``ProbeClusterEstimator/Configuration/risingDelayFactor`` × the send span plus
        /// ``ProbeClusterEstimator/Configuration/risingDelaySlackNanoseconds``. The cluster
        /// exceeded the path, and its receive rate (the bottleneck's, in theory) is in
        /// practice blurred by a token bucket's burst and by the receiver's batched reads.
        case risingDelay
    }

    /// The cluster.
    public var cluster: ProbeCluster
    /// Bytes (minus the last sent) over the send span, bits/s.
    public var sendBitrate: Int
    /// Bytes (minus the first to arrive) over the arrival span, bits/s.
    public var receiveBitrate: Int
    /// Packets reported received and lost.
    public var received: Int
    /// See `received`.
    public var lost: Int
    /// nil: usable; otherwise why not.
    public var rejection: Rejection?

    /// Creates a result (the estimator makes them; tests and other senders may too).
    public init(cluster: ProbeCluster, sendBitrate: Int, receiveBitrate: Int, received: Int, lost: Int,
                rejection: Rejection?) {
        self.cluster = cluster
        self.sendBitrate = sendBitrate
        self.receiveBitrate = receiveBitrate
        self.received = received
        self.lost = lost
        self.rejection = rejection
    }

    /// The delivered rate: min(send, receive), bits/s. When the probe exceeded the path its
    /// packets queued at the bottleneck (rising delay) and left it at the bottleneck's rate,
    /// so the receive rate is the measurement; when the arrivals came compressed (a burst
    /// released by a queue ahead of the cluster) the send rate bounds it.
    public var bitrate: Int { min(sendBitrate, receiveBitrate) }
}

/// Measures probe clusters from transport-wide feedback (in the manner of
/// draft-ietf-rmcat-gcc-02's probing and the "acknowledged bitrate", but per cluster): for
/// each cluster the sender registered, the results of its packets give a send rate (bytes
/// but the last over first-to-last send time) and a receive rate (bytes but the first over
/// first-to-last arrival); the delivered rate is the smaller. A cluster is judged once
/// feedback has reported its last packet (or a later one); clusters with too much loss,
/// too few arrivals or rising delay (arrivals spread well beyond the sends) are rejected; a cluster not covered within `timeoutNanoseconds` is
/// rejected as timed out.
///
/// Pure, clock-injected; O(clusters) per result (clusters ≤ ``Configuration/capacity``, 4);
/// fixed storage, nothing allocated after `init`.
public struct ProbeClusterEstimator: Sendable {
    /// Acceptance rules.
    public struct Configuration: Sendable, Equatable {
        /// Largest lost share of a usable cluster (0.1, §6's "high loss" threshold).
        public var maxLossFraction: Double = 0.1
        /// Fewest received packets of a usable cluster (5).
        public var minReceivedPackets: Int = 5
        /// A cluster not reported within this long after its end is dropped (1 s).
        public var timeoutNanoseconds: UInt64 = 1_000_000_000
        /// Clusters tracked at once (4).
        public var capacity: Int = 4
        /// Arrival span over send span beyond which the delay rose (1.2).
        public var risingDelayFactor: Double = 1.2
        /// Slack added to that bound, nanoseconds (10 ms: a receiver's batched reads).
        public var risingDelaySlackNanoseconds: UInt64 = 10_000_000
        /// The defaults documented on each property.
        public init() {}
    }

    private struct Tracked: Sendable {
        var cluster: ProbeCluster
        var received = 0
        var lost = 0
        var bytes = 0
        var firstSend: UInt64 = .max
        var lastSend: UInt64 = 0
        var lastSendSize = 0
        var firstArrival: UInt64 = .max
        var firstArrivalSize = 0
        var lastArrival: UInt64 = 0
        var complete = false
    }

    /// Rules in use.
    public let configuration: Configuration
    private var slots: [Tracked?]

    /// An estimator tracking nothing; allocates its slots once.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        slots = Array(repeating: nil, count: max(1, configuration.capacity))
    }

    /// Clusters registered and not yet judged.
    public var pendingCount: Int { slots.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }

    /// Starts tracking a cluster when its first packet leaves (feedback about its first
    /// packets can come back before its last one leaves): `lastSequence` stays open
    /// (UInt64.max) until ``end(id:lastSequence:now:)``; the oldest pending cluster makes
    /// room when full. O(capacity).
    public mutating func begin(id: Int, targetBitrate: Int, firstSequence: UInt64, now: UInt64) {
        register(ProbeCluster(id: id, targetBitrate: targetBitrate, firstSequence: firstSequence,
                              lastSequence: .max, endNanoseconds: now))
    }

    /// Closes cluster `id` at `lastSequence` (its last packet left at `now`). O(capacity).
    public mutating func end(id: Int, lastSequence: UInt64, now: UInt64) {
        for index in slots.indices where slots[index]?.cluster.id == id {
            slots[index]!.cluster.lastSequence = lastSequence
            slots[index]!.cluster.endNanoseconds = now
        }
    }

    /// Starts tracking a cluster already sent in full (the oldest pending one makes room
    /// when full). O(capacity).
    public mutating func register(_ cluster: ProbeCluster) {
        let free = slots.firstIndex { $0 == nil }
            ?? slots.indices.min { slots[$0]!.cluster.endNanoseconds < slots[$1]!.cluster.endNanoseconds }!
        slots[free] = Tracked(cluster: cluster)
    }

    /// Feeds one feedback message's results; calls `judged` for each cluster it completes
    /// (or that timed out by `now`), oldest first. O(results × capacity), no allocation.
    public mutating func add(_ results: some Collection<PacketResult>, now: UInt64, judged: (ProbeResult) -> Void) {
        for result in results {
            for index in slots.indices {
                guard var tracked = slots[index] else { continue }
                let sequence = result.sequenceNumber
                if sequence >= tracked.cluster.firstSequence && sequence <= tracked.cluster.lastSequence {
                    if let arrival = result.arrivalNanoseconds {
                        tracked.received += 1
                        tracked.bytes += result.size
                        if result.sendNanoseconds < tracked.firstSend { tracked.firstSend = result.sendNanoseconds }
                        if result.sendNanoseconds >= tracked.lastSend {
                            tracked.lastSend = result.sendNanoseconds
                            tracked.lastSendSize = result.size
                        }
                        if arrival < tracked.firstArrival {
                            tracked.firstArrival = arrival
                            tracked.firstArrivalSize = result.size
                        }
                        if arrival > tracked.lastArrival { tracked.lastArrival = arrival }
                    } else {
                        tracked.lost += 1
                    }
                }
                if sequence >= tracked.cluster.lastSequence { tracked.complete = true }
                slots[index] = tracked
            }
        }
        for index in slots.indices {
            guard let tracked = slots[index] else { continue }
            if tracked.complete {
                slots[index] = nil
                judged(judge(tracked))
            } else if now > tracked.cluster.endNanoseconds, now - tracked.cluster.endNanoseconds > configuration.timeoutNanoseconds {
                slots[index] = nil
                var result = judge(tracked)
                result.rejection = .timedOut
                judged(result)
            }
        }
    }

    private func judge(_ tracked: Tracked) -> ProbeResult {
        let sendSpan = tracked.lastSend > tracked.firstSend ? tracked.lastSend - tracked.firstSend : 0
        let arrivalSpan = tracked.lastArrival > tracked.firstArrival ? tracked.lastArrival - tracked.firstArrival : 0
        let send = sendSpan > 0 ? Int(Double(tracked.bytes - tracked.lastSendSize) * 8e9 / Double(sendSpan)) : 0
        let receive = arrivalSpan > 0 ? Int(Double(tracked.bytes - tracked.firstArrivalSize) * 8e9 / Double(arrivalSpan)) : 0
        var result = ProbeResult(cluster: tracked.cluster, sendBitrate: send, receiveBitrate: receive,
                                 received: tracked.received, lost: tracked.lost, rejection: nil)
        let total = tracked.received + tracked.lost
        if total > 0, Double(tracked.lost) / Double(total) > configuration.maxLossFraction {
            result.rejection = .loss
        } else if tracked.received < configuration.minReceivedPackets {
            result.rejection = .tooFewPackets
        } else if sendSpan == 0 || arrivalSpan == 0 {
            result.rejection = .noSpan
        } else if Double(arrivalSpan) > Double(sendSpan) * configuration.risingDelayFactor
                    + Double(configuration.risingDelaySlackNanoseconds) {
            result.rejection = .risingDelay
        }
        return result
    }
}
