/// Timing and size limits of the video jitter buffer.
///
/// The defaults follow what browsers do on a LAN: a complete frame leaves at once; an
/// incomplete one is waited for at most `maximumWait` (time for a NACK and its
/// retransmission), then dropped; a keyframe is requested when the frames after it
/// cannot do without it (see `TemporalLayerDependencies`).
public struct JitterBufferConfiguration: Sendable, Equatable {
    /// Packets the buffer holds (a power of two). 1024 packets is ~8 s of 1 Mbps video.
    public var capacity: Int = 1024
    /// How long a hole may stay open before it is NACKed: reordering tolerance.
    public var nackDelayNanoseconds: UInt64 = 5_000_000
    /// The least time between two NACKs of one packet when the RTT is unknown.
    public var nackRetryIntervalNanoseconds: UInt64 = 40_000_000
    /// NACKs sent for one packet before giving up on it.
    public var maximumNACKsPerPacket: Int = 8
    /// The longest an incomplete frame blocks the ones behind it while no retransmission
    /// round trip has been measured, and the least wait once one has.
    public var maximumWaitNanoseconds: UInt64 = 150_000_000
    /// The ceiling of the wait that follows the measured retransmission round trip
    /// (about 2 × RTT + its variation): a lost packet on a long path still gets a NACK,
    /// a retry and their answers, and a frozen period stays well under a second.
    public var maximumAdaptiveWaitNanoseconds: UInt64 = 600_000_000
    /// The ceiling of the wait of a frame whose loss would cost a keyframe (a keyframe or
    /// TL0 frame, or any frame of a stream without temporal layers): about 3 × RTT, so a
    /// second retry fits. Giving such a frame up freezes the picture for a keyframe round
    /// on top of the wait; still under a second.
    public var maximumBaseLayerWaitNanoseconds: UInt64 = 900_000_000
    /// The least time between two keyframe requests (PLI).
    public var keyframeRequestIntervalNanoseconds: UInt64 = 250_000_000

    /// The defaults above.
    public init() {}
}
