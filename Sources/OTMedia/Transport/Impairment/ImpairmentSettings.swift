/// What an `ImpairmentProxy` does to the packets of one direction. The default impairs
/// nothing. Changing settings while the proxy runs affects packets that arrive afterwards
/// (and the bandwidth of packets that reach the cap afterwards).
///
/// Stages, in the order a packet meets them (like a real path: loss and delay in the
/// network, then a bottleneck link):
/// 1. `blackhole`: everything is dropped (a cut cable).
/// 2. `lossProbability`: each packet is dropped with this probability.
/// 3. `delayNanoseconds` + uniform `0...jitterNanoseconds`: jitter larger than the packet
///    spacing reorders packets, as on a real path.
/// 4. `reorderProbability`: a packet is held back until `reorderPackets` later packets
///    have passed it or `reorderNanoseconds` have elapsed, whichever comes first (0 turns
///    either limit off; with both 0 nothing is held).
/// 5. `bandwidthBitsPerSecond`: a token bucket of `burstBytes` refilled at this rate;
///    packets wait in a FIFO of at most `queueLimitBytes` and are dropped at its tail
///    beyond that (drop-tail). nil: no cap.
public struct ImpairmentSettings: Sendable, Equatable {
    /// Drop every packet while true.
    public var blackhole: Bool
    /// Probability in 0...1 that a packet is dropped at random.
    public var lossProbability: Double
    /// Fixed one-way delay added to every packet, in nanoseconds.
    public var delayNanoseconds: UInt64
    /// Extra delay drawn uniformly from 0...jitterNanoseconds per packet.
    public var jitterNanoseconds: UInt64
    /// Probability in 0...1 that a packet is held back (reordered).
    public var reorderProbability: Double
    /// A held packet goes out after this many later packets (0: no packet limit).
    public var reorderPackets: Int
    /// A held packet goes out after this long at the latest (0: no time limit).
    public var reorderNanoseconds: UInt64
    /// The bottleneck rate in bits per second, or nil for none.
    public var bandwidthBitsPerSecond: UInt64?
    /// The token bucket's depth: how many bytes may leave back to back after a pause.
    public var burstBytes: Int
    /// The most bytes waiting at the bottleneck; a packet that would exceed it is dropped.
    public var queueLimitBytes: Int

    /// Creates settings; every argument defaults to "no impairment".
    public init(
        blackhole: Bool = false,
        lossProbability: Double = 0,
        delayNanoseconds: UInt64 = 0,
        jitterNanoseconds: UInt64 = 0,
        reorderProbability: Double = 0,
        reorderPackets: Int = 0,
        reorderNanoseconds: UInt64 = 0,
        bandwidthBitsPerSecond: UInt64? = nil,
        burstBytes: Int = 3000,
        queueLimitBytes: Int = 64 * 1024
    ) {
        self.blackhole = blackhole
        self.lossProbability = lossProbability
        self.delayNanoseconds = delayNanoseconds
        self.jitterNanoseconds = jitterNanoseconds
        self.reorderProbability = reorderProbability
        self.reorderPackets = reorderPackets
        self.reorderNanoseconds = reorderNanoseconds
        self.bandwidthBitsPerSecond = bandwidthBitsPerSecond
        self.burstBytes = burstBytes
        self.queueLimitBytes = queueLimitBytes
    }

    /// The queue limit in bytes that holds `milliseconds` of traffic at `bitsPerSecond`
    /// (routers are often sized in time rather than bytes).
    public static func queueLimitBytes(milliseconds: UInt64, bitsPerSecond: UInt64) -> Int {
        Int(clamping: bitsPerSecond / 8 * milliseconds / 1000)
    }
}
