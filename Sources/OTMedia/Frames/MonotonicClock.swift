import Glibc

/// The engine's clock: `CLOCK_MONOTONIC` in nanoseconds, the same clock V4L2 stamps
/// frames with (`V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC`) and ALSA can use.
///
/// Cost: one vDSO `clock_gettime`, no syscall, no allocation.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot).
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Sleeps until the monotonic clock reads `deadline` (absolute, nanoseconds).
    /// Returns at once if the deadline has passed. Used to pace synthetic sources.
    public static func sleep(until deadline: UInt64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}

/// CPU time used by the calling thread, in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`).
/// Benchmarks use it instead of wall-clock time, which other tenants disturb.
public func threadCPUNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
