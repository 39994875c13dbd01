import Synchronization

/// Congestion-control counters of one pipeline's transport, written by its network
/// thread with relaxed atomics and readable from any thread (network stats, tests,
/// `otbench adapt`). A publisher fills the sender's fields, a subscriber the receiver's.
///
/// Cost: one relaxed atomic per update; `snapshot()` is a handful of loads.
public final class TransportCounters: Sendable {
    /// A copy of the counters at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// The bandwidth estimate (sender), bits/s; 0 before the first feedback.
        public var estimateBitsPerSecond: UInt64
        /// The video's share of it (estimate minus audio, minus packet overhead), bits/s.
        public var videoTargetBitsPerSecond: UInt64
        /// The pacer's rate now (sender), bits/s.
        public var pacingBitsPerSecond: UInt64
        /// The padding (probe) rate now (sender), bits/s; 0 when not probing.
        public var paddingBitsPerSecond: UInt64
        /// Transport-wide feedback packets received (sender) or sent (receiver).
        public var feedbackPackets: UInt64
        /// Probe packets sent (sender) or received and dropped (receiver).
        public var probePackets: UInt64
        /// Their bytes (after SRTP).
        public var probeBytes: UInt64
        /// Media packets that left through the pacer (sender).
        public var pacedPackets: UInt64
        /// Packets dropped before the wire: pacer or hand-over queue full (sender).
        public var droppedPackets: UInt64
        /// Send turns that put more bytes on the wire at once than the pacer's bound
        /// (burst time × pacing rate + one packet of debt + one audio packet) (sender).
        public var burstsOverBound: UInt64
        /// The most bytes one send turn put on the wire (sender).
        public var largestBurstBytes: UInt64
        /// Packets recorded with a transport-wide sequence number (receiver).
        public var recordedPackets: UInt64
        /// Relayed destinations the publisher sends to now (0 when routed).
        public var relayedDestinations: UInt64
        /// Probe clusters sent (sender).
        public var probeClusters: UInt64
        /// Probe clusters whose feedback gave a usable measurement (sender).
        public var probeClustersMeasured: UInt64
        /// Probe results that raised the estimate (sender).
        public var probeClustersApplied: UInt64
        /// The last cluster's delivered rate, bits/s (sender).
        public var lastProbeBitsPerSecond: UInt64
        /// NACKed packets not resent because retransmissions were over their budget (sender).
        public var retransmissionsSkipped: UInt64
        /// Queued video packets dropped because their receiver asked for a keyframe while
        /// they would have left late (sender; `PublisherTransport.keyframeRequested`).
        public var staleVideoDropped: UInt64
        /// Relayed receivers that moved to a new address after its probation (sender;
        /// `LegAddressGuard`).
        public var relayedAddressMoves: UInt64
        /// Authenticated RTCP from a relayed receiver's new address while that address was
        /// in probation: answered at the receiver's current address, not the new one (sender).
        public var relayedAddressHeld: UInt64
    }

    let estimate = Atomic<UInt64>(0)
    let videoTarget = Atomic<UInt64>(0)
    let pacingRate = Atomic<UInt64>(0)
    let paddingRate = Atomic<UInt64>(0)
    let feedbackPackets = Atomic<UInt64>(0)
    let probePackets = Atomic<UInt64>(0)
    let probeBytes = Atomic<UInt64>(0)
    let pacedPackets = Atomic<UInt64>(0)
    let droppedPackets = Atomic<UInt64>(0)
    let burstsOverBound = Atomic<UInt64>(0)
    let largestBurstBytes = Atomic<UInt64>(0)
    let recordedPackets = Atomic<UInt64>(0)
    let relayedDestinations = Atomic<UInt64>(0)
    let probeClusters = Atomic<UInt64>(0)
    let probeClustersMeasured = Atomic<UInt64>(0)
    let probeClustersApplied = Atomic<UInt64>(0)
    let lastProbeBitrate = Atomic<UInt64>(0)
    let retransmissionsSkipped = Atomic<UInt64>(0)
    let staleVideoDropped = Atomic<UInt64>(0)
    let relayedAddressMoves = Atomic<UInt64>(0)
    let relayedAddressHeld = Atomic<UInt64>(0)
    /// Frames (per encoding) the video capture thread sent itself, the transport thread
    /// not woken for them (`PublisherTransportAccess.sendDirect`); internal, for tests.
    let directSends = Atomic<UInt64>(0)

    /// All zeros.
    public init() {}

    /// The counters now.
    public func snapshot() -> Snapshot {
        Snapshot(estimateBitsPerSecond: estimate.load(ordering: .relaxed),
                 videoTargetBitsPerSecond: videoTarget.load(ordering: .relaxed),
                 pacingBitsPerSecond: pacingRate.load(ordering: .relaxed),
                 paddingBitsPerSecond: paddingRate.load(ordering: .relaxed),
                 feedbackPackets: feedbackPackets.load(ordering: .relaxed),
                 probePackets: probePackets.load(ordering: .relaxed), probeBytes: probeBytes.load(ordering: .relaxed),
                 pacedPackets: pacedPackets.load(ordering: .relaxed), droppedPackets: droppedPackets.load(ordering: .relaxed),
                 burstsOverBound: burstsOverBound.load(ordering: .relaxed),
                 largestBurstBytes: largestBurstBytes.load(ordering: .relaxed),
                 recordedPackets: recordedPackets.load(ordering: .relaxed),
                 relayedDestinations: relayedDestinations.load(ordering: .relaxed),
                 probeClusters: probeClusters.load(ordering: .relaxed),
                 probeClustersMeasured: probeClustersMeasured.load(ordering: .relaxed),
                 probeClustersApplied: probeClustersApplied.load(ordering: .relaxed),
                 lastProbeBitsPerSecond: lastProbeBitrate.load(ordering: .relaxed),
                 retransmissionsSkipped: retransmissionsSkipped.load(ordering: .relaxed),
                 staleVideoDropped: staleVideoDropped.load(ordering: .relaxed),
                 relayedAddressMoves: relayedAddressMoves.load(ordering: .relaxed),
                 relayedAddressHeld: relayedAddressHeld.load(ordering: .relaxed))
    }
}
