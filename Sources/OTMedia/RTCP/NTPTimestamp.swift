import Glibc

/// A 64-bit NTP timestamp (RFC 3550 section 4; RFC 5905): seconds since 1900-01-01 UTC in
/// the high 32 bits, the fraction of a second in the low 32.
///
/// SR packets carry it; reception reports echo its middle 32 bits (`middle32`, the LSR
/// field). Conversions are integer arithmetic, exact to within a nanosecond.
public struct NTPTimestamp: RawRepresentable, Hashable, Comparable, Sendable {
    /// Seconds from 1900 (NTP era 0) to 1970 (the Unix epoch).
    public static let unixEpochOffsetSeconds: UInt64 = 2_208_988_800
    static let nanosecondsPerSecond: UInt64 = 1_000_000_000

    /// The raw 64-bit value.
    public var rawValue: UInt64
    /// Wraps a raw value.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Builds a timestamp from whole seconds and a 1/2^32 s fraction.
    public init(seconds: UInt32, fraction: UInt32) {
        rawValue = UInt64(seconds) << 32 | UInt64(fraction)
    }

    /// The timestamp for a Unix time in nanoseconds (fraction rounded down).
    /// The seconds wrap in 2036 as NTP era 1 begins, as on the wire.
    public init(unixNanoseconds: UInt64) {
        let seconds = unixNanoseconds / Self.nanosecondsPerSecond + Self.unixEpochOffsetSeconds
        let fraction = ((unixNanoseconds % Self.nanosecondsPerSecond) << 32) / Self.nanosecondsPerSecond
        rawValue = (seconds & 0xFFFF_FFFF) << 32 | fraction
    }

    /// Whole seconds since 1900.
    public var seconds: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 32) }
    /// Fraction of a second in 1/2^32 s.
    public var fraction: UInt32 { UInt32(truncatingIfNeeded: rawValue) }
    /// The middle 32 bits (16.16 fixed point seconds): what the LSR field echoes.
    public var middle32: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) }

    /// Unix time in nanoseconds (era 0; fraction rounded down), 0 before 1970.
    public var unixNanoseconds: UInt64 {
        let seconds = UInt64(self.seconds)
        guard seconds >= Self.unixEpochOffsetSeconds else { return 0 }
        let nanos = (UInt64(fraction) * Self.nanosecondsPerSecond) >> 32
        return (seconds - Self.unixEpochOffsetSeconds) * Self.nanosecondsPerSecond + nanos
    }

    /// Compares raw values (valid within one NTP era).
    public static func < (lhs: NTPTimestamp, rhs: NTPTimestamp) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Maps the engine's monotonic clock to NTP wall-clock time for SR packets.
///
/// RTCP wants wall-clock time, but the pipelines time everything with `MonotonicClock`
/// (which does not jump when the wall clock is set). The mapping samples both clocks once
/// and then derives NTP from monotonic readings, so an SR's NTP time moves exactly with the
/// media clock. Cost: arithmetic only.
public struct NTPClock: Sendable, Equatable {
    /// Unix time in nanoseconds at the anchor.
    public let unixNanoseconds: UInt64
    /// Monotonic nanoseconds at the same instant.
    public let monotonicNanoseconds: UInt64

    /// A mapping from a pair of readings taken at the same instant.
    public init(unixNanoseconds: UInt64, monotonicNanoseconds: UInt64) {
        self.unixNanoseconds = unixNanoseconds
        self.monotonicNanoseconds = monotonicNanoseconds
    }

    /// Samples `CLOCK_REALTIME` now and pairs it with `monotonicNanoseconds`, the same
    /// instant on the caller's media clock (an injected clock in tests; `MonotonicClock`
    /// by default). Two vDSO reads; do it once per session, not per packet.
    public static func system(monotonicNanoseconds monotonic: UInt64 = MonotonicClock.nanoseconds()) -> NTPClock {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return NTPClock(unixNanoseconds: UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec),
                        monotonicNanoseconds: monotonic)
    }

    /// Unix nanoseconds for a monotonic reading (readings before the anchor work too).
    public func unixNanoseconds(atMonotonic monotonic: UInt64) -> UInt64 {
        if monotonic >= monotonicNanoseconds { return unixNanoseconds &+ (monotonic - monotonicNanoseconds) }
        let back = monotonicNanoseconds - monotonic
        return back > unixNanoseconds ? 0 : unixNanoseconds - back
    }

    /// The NTP timestamp for a monotonic reading.
    public func timestamp(atMonotonic monotonic: UInt64) -> NTPTimestamp {
        NTPTimestamp(unixNanoseconds: unixNanoseconds(atMonotonic: monotonic))
    }
}

/// Round-trip time from reception reports, RFC 3550 section 6.4.1: the sender of an SR
/// gets back LSR (the SR's middle-32 NTP time) and DLSR (how long the reporter held it);
/// RTT = A − LSR − DLSR, where A is the report's arrival time in middle-32 NTP. All three
/// are 16.16 fixed-point seconds (1/65536 s), compared modulo 2^32.
public enum RTCPRoundTrip {
    /// Converts 1/65536 s units to nanoseconds (exact to a nanosecond, rounded down).
    public static func nanoseconds(fromCompact value: UInt32) -> UInt64 {
        (UInt64(value) * 1_000_000_000) >> 16
    }

    /// Converts nanoseconds to 1/65536 s units (rounded down), saturating at `UInt32.max`
    /// (about 18 hours), as the DLSR field needs.
    public static func compact(fromNanoseconds nanoseconds: UInt64) -> UInt32 {
        guard nanoseconds < ((UInt64(UInt32.max) + 1) * 1_000_000_000) >> 16 else { return .max }
        return UInt32((nanoseconds << 16) / 1_000_000_000)
    }

    /// The round-trip time in nanoseconds, or nil when the report has no SR to refer to
    /// (LSR = 0) or the result is negative (clocks or a stale report disagree).
    /// - Parameters:
    ///   - arrival: when the report block arrived, as NTP (its middle 32 bits are used).
    ///   - lastSenderReport: the block's LSR.
    ///   - delaySinceLastSenderReport: the block's DLSR.
    public static func nanoseconds(arrival: NTPTimestamp, lastSenderReport: UInt32,
                                   delaySinceLastSenderReport: UInt32) -> UInt64? {
        guard lastSenderReport != 0 else { return nil }
        let rtt = arrival.middle32 &- lastSenderReport &- delaySinceLastSenderReport
        // Modulo 2^32: a "negative" result shows up as a huge one.
        guard rtt < 0x8000_0000, arrival.middle32 &- lastSenderReport >= delaySinceLastSenderReport else { return nil }
        return nanoseconds(fromCompact: rtt)
    }
}
