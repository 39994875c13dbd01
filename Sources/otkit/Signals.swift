import Glibc
import Synchronization

/// SIGINT/SIGTERM for the long-running commands: blocked in every thread (call
/// `StopSignal.install()` before any thread starts, so threads inherit the mask) and
/// taken by one `sigwait` thread that records which arrived. The main loop polls
/// `received` and shuts down in order (unpublish, disconnect) instead of dying mid-send.
enum StopSignal {
    private static let signal = Atomic<Int32>(0)

    /// Blocks SIGINT and SIGTERM and starts the waiting thread. Call once, first.
    static func install() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        var thread = pthread_t()
        pthread_create(&thread, nil, { _ in
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            while true {
                var number: Int32 = 0
                if sigwait(&set, &number) == 0 { StopSignal.signal.store(number, ordering: .releasing) }
            }
        }, nil)
        pthread_detach(thread)
    }

    /// The signal that asked to stop (SIGINT or SIGTERM), nil while none has.
    static var received: Int32? {
        let value = signal.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }

    /// "SIGINT" or "SIGTERM".
    static var name: String { received == SIGINT ? "SIGINT" : "SIGTERM" }

    /// Sleeps up to `seconds` in small steps; returns early (true) when a stop signal came.
    static func sleep(_ seconds: Double) -> Bool {
        let end = MonotonicTime.now() + seconds
        while MonotonicTime.now() < end {
            if received != nil { return true }
            usleep(50_000)
        }
        return received != nil
    }
}

/// Seconds on the monotonic clock, as a Double (for timers in the command loops).
enum MonotonicTime {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
