import CLibWebSockets
import Glibc
import Synchronization

/// libwebsockets logs through one process-wide setting. OTNet keeps errors only (no
/// banner, no per-connection notices) and writes them to stderr with an `[lws]` prefix.
///
/// lws 4.1 meets a failed `accept` (EMFILE, ENFILE) by logging it and returning to poll
/// with the listen socket still readable: a 100 % CPU spin. Its log line is the only sign,
/// so it is caught here: counted, printed at most once a second, and flagged for the
/// server's service loop to back off.
enum LWSLogging {
    /// `accept` failures lws reported in this process.
    static let acceptFailures = Atomic<UInt64>(0)
    /// Set on each accept failure, cleared by the service loop that backs off.
    static let acceptFailed = Atomic<Bool>(false)
    /// The monotonic second of the last accept failure printed.
    private static let lastPrintedSecond = Atomic<Int>(-1)

    private static let installed: Void = {
        lws_set_log_level(Int32(LLL_ERR), { _, line in
            guard let line else { return }
            if strstr(line, "accept:") != nil {
                acceptFailures.add(1, ordering: .relaxed)
                acceptFailed.store(true, ordering: .releasing)
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                let second = Int(now.tv_sec)
                guard lastPrintedSecond.exchange(second, ordering: .relaxed) != second else { return }
            }
            _ = write(STDERR_FILENO, "[lws] ", 6)
            _ = write(STDERR_FILENO, line, strlen(line))
        })
    }()

    /// Sets the log level once; call before every `lws_create_context`.
    static func install() { _ = installed }

    /// True once after an accept failure (clears the flag).
    static func takeAcceptFailure() -> Bool {
        acceptFailed.load(ordering: .relaxed) && acceptFailed.exchange(false, ordering: .acquiringAndReleasing)
    }
}
