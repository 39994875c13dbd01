import Synchronization

/// Per-stream counters of a pipeline, written by its threads with relaxed atomics and
/// readable from any thread at any time without touching the hot path's locks.
///
/// Cost: one relaxed atomic add per update; `snapshot()` is a handful of loads.
public final class StreamCounters: Sendable {
    /// A copy of the counters at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// RTP packets sent or received (retransmissions included).
        public var packets: UInt64
        /// RTP bytes sent or received (after SRTP).
        public var bytes: UInt64
        /// Packets the receiver counted lost (RFC 3550), or that a receiver reported lost.
        public var packetsLost: Int64
        /// Sequence numbers asked for again (NACKs sent by a receiver, received by a sender).
        public var nacks: UInt64
        /// Packets sent again in answer to NACKs.
        public var retransmissions: UInt64
        /// Keyframe requests (PLI/FIR) sent by a receiver, received by a sender.
        public var keyframeRequests: UInt64
        /// Keyframes encoded (sender) or decoded (receiver).
        public var keyframes: UInt64
        /// Frames encoded (sender) or decoded (receiver).
        public var frames: UInt64
        /// Interarrival jitter (receiver), nanoseconds.
        public var jitterNanoseconds: UInt64
        /// Round-trip time from RTCP, nanoseconds (0 until known).
        public var roundTripNanoseconds: UInt64
        /// Packets dropped as bad: failed SRTP authentication, replays, malformed.
        public var badPackets: UInt64
    }

    let packets = Atomic<UInt64>(0)
    let bytes = Atomic<UInt64>(0)
    let packetsLost = Atomic<Int64>(0)
    let nacks = Atomic<UInt64>(0)
    let retransmissions = Atomic<UInt64>(0)
    let keyframeRequests = Atomic<UInt64>(0)
    let keyframes = Atomic<UInt64>(0)
    let frames = Atomic<UInt64>(0)
    let jitter = Atomic<UInt64>(0)
    let roundTrip = Atomic<UInt64>(0)
    let badPackets = Atomic<UInt64>(0)

    /// All zeros.
    public init() {}

    /// The counters now.
    public func snapshot() -> Snapshot {
        Snapshot(packets: packets.load(ordering: .relaxed), bytes: bytes.load(ordering: .relaxed),
                 packetsLost: packetsLost.load(ordering: .relaxed), nacks: nacks.load(ordering: .relaxed),
                 retransmissions: retransmissions.load(ordering: .relaxed),
                 keyframeRequests: keyframeRequests.load(ordering: .relaxed), keyframes: keyframes.load(ordering: .relaxed),
                 frames: frames.load(ordering: .relaxed), jitterNanoseconds: jitter.load(ordering: .relaxed),
                 roundTripNanoseconds: roundTrip.load(ordering: .relaxed), badPackets: badPackets.load(ordering: .relaxed))
    }
}
