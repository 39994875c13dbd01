/// The link between a stream's RTP timestamps and the sender's wall clock, from the
/// NTP/RTP pair of its latest sender report (RFC 3550 6.4.1). Two streams from one
/// sender share the wall clock, which is what lines audio and video up.
///
/// Cost: a value type; mapping a timestamp is a few integer operations.
public struct SenderClockMapping: Sendable, Equatable {
    /// The SR's NTP timestamp as nanoseconds (any fixed epoch works: only differences
    /// between two mappings of one sender are used).
    public var senderNanoseconds: Int64
    /// The SR's RTP timestamp.
    public var rtpTimestamp: UInt32
    /// The stream's RTP clock rate.
    public var clockRate: Int

    /// A mapping from one sender report.
    public init(senderNanoseconds: Int64, rtpTimestamp: UInt32, clockRate: Int) {
        self.senderNanoseconds = senderNanoseconds
        self.rtpTimestamp = rtpTimestamp
        self.clockRate = clockRate
    }

    /// A mapping from a 64-bit NTP timestamp (32.32 fixed point seconds).
    public init(ntp: UInt64, rtpTimestamp: UInt32, clockRate: Int) {
        let seconds = Int64(ntp >> 32)
        let fraction = Int64(((ntp & 0xFFFF_FFFF) * 1_000_000_000) >> 32)  // Swift binds >> tighter than *
        self.init(senderNanoseconds: seconds * 1_000_000_000 + fraction, rtpTimestamp: rtpTimestamp, clockRate: clockRate)
    }

    /// The sender's wall-clock time (ns) of the sample stamped `rtp`: timestamps within
    /// ±2^31 of the report's, forwards or backwards, map correctly across the wrap.
    public func senderTime(of rtp: UInt32) -> Int64 {
        let ticks = Int64(RTPSerial.distance(from: rtpTimestamp, to: rtp))
        return senderNanoseconds + ticks * 1_000_000_000 / Int64(clockRate)
    }
}
