import Synchronization

/// The time source of everything in the transport that waits or stamps: pipeline threads,
/// packet receive times, RTCP intervals, jitter buffers, the impairment proxy.
///
/// Injected so tests can drive time by hand (`ManualClock`) and get the same result on a
/// loaded machine as on an idle one. Nanoseconds from an arbitrary fixed origin; only
/// differences mean anything. Lives in Transport/ for now (issue 3); the lead may move it
/// next to `MonotonicClock` in Frames/.
public protocol MediaClock: Sendable {
    /// The current time in nanoseconds. Must never go backwards.
    func nanoseconds() -> UInt64
}

/// The real clock: `CLOCK_MONOTONIC` through `MonotonicClock`, the same clock V4L2 and ALSA
/// stamp frames with. Cost: one vDSO `clock_gettime`, no syscall, no allocation.
public struct SystemMediaClock: MediaClock {
    /// Creates the system clock (it has no state).
    public init() {}

    /// `MonotonicClock.nanoseconds()`.
    public func nanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }
}

/// A clock that moves only when a test moves it. Thread-safe: one atomic load per read.
///
/// A `PipelineThread` running on a manual clock sleeps in real time towards its next
/// deadline; after `advance(by:)` call the thread's `wake()` so it looks at the clock again.
public final class ManualClock: MediaClock {
    private let now: Atomic<UInt64>

    /// Creates a clock reading `start` nanoseconds.
    public init(start: UInt64 = 0) {
        now = Atomic(start)
    }

    /// The time the clock was last set to. Cost: one atomic load.
    public func nanoseconds() -> UInt64 { now.load(ordering: .acquiring) }

    /// Moves the clock forward by `nanoseconds`.
    public func advance(by nanoseconds: UInt64) {
        now.add(nanoseconds, ordering: .releasing)
    }

    /// Sets the clock to `nanoseconds`; ignored if that would move it backwards.
    public func set(to nanoseconds: UInt64) {
        _ = now.max(nanoseconds, ordering: .releasing)
    }
}
