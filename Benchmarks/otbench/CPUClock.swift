import Glibc

/// The CPU clocks the pipeline rows read. Whole-process figures are used because a
/// pipeline runs on threads of its own that otbench cannot name; the one thread otbench
/// adds (the packet sink's drain) is read separately and subtracted.
enum CPUClock {
    /// CPU time of the whole process, all threads, user + system, in nanoseconds
    /// (`CLOCK_PROCESS_CPUTIME_ID`: the scheduler's exact runtime, not ticks).
    /// Cost: one system call (~0.6 µs under KVM).
    static func process() -> UInt64 { read(CLOCK_PROCESS_CPUTIME_ID) }

    /// The CPU-time clock of another thread of this process.
    static func clock(of thread: pthread_t) -> clockid_t {
        var id = clockid_t()
        let status = pthread_getcpuclockid(thread, &id)
        precondition(status == 0, "pthread_getcpuclockid failed: \(status)")
        return id
    }

    /// Reads a CPU-time clock in nanoseconds. Cost: one system call.
    static func read(_ clock: clockid_t) -> UInt64 {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// A counting semaphore for "the capture thread says the run is over".
final class RunSemaphore: @unchecked Sendable {
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Wakes one waiter. Async-signal-safe, allocation-free.
    func signal() { sem_post(semaphore) }

    /// Waits up to `milliseconds`; true when signalled, false on timeout.
    func wait(milliseconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let total = deadline.tv_nsec + (milliseconds % 1000) * 1_000_000
        deadline.tv_sec += milliseconds / 1000 + total / 1_000_000_000
        deadline.tv_nsec = total % 1_000_000_000
        while true {
            if sem_timedwait(semaphore, &deadline) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}

/// Sleeps the calling thread for `milliseconds` of wall time.
func sleepMilliseconds(_ milliseconds: Int) {
    var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}
