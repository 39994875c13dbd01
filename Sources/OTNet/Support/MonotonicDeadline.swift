import Glibc

/// A point on CLOCK_MONOTONIC, for "wait up to N seconds" loops around `poll`.
struct MonotonicDeadline {
    private let nanoseconds: UInt64

    init(secondsFromNow seconds: Double) {
        nanoseconds = Self.now() &+ UInt64(max(0, seconds) * 1e9)
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Milliseconds left (0 once passed), rounded up, for `poll`.
    var remainingMilliseconds: Int32 {
        let now = Self.now()
        guard nanoseconds > now else { return 0 }
        return Int32(min(UInt64(Int32.max), (nanoseconds - now + 999_999) / 1_000_000))
    }
}
