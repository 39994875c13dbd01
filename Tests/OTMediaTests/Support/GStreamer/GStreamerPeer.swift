import Foundation
import Glibc

/// One `gst-launch-1.0 -e <pipeline>` child process for interop tests, with its standard
/// output and error captured to files and a hard deadline.
///
/// Lifecycle: `start()`; for a receiver, `waitForListeningPorts()` before starting the
/// sender (udpsrc has bound its sockets once they show in /proc/net/udp); then either
/// `wait(timeoutSeconds:)` for a pipeline that ends by itself (a sender reaching EOS) or
/// `stop()` for one that does not (a receiver: udpsrc never ends). Both escalate like
/// `timeout -k 2 -s INT`: SIGINT (with `-e` gst-launch turns it into EOS, so muxers such
/// as wavenc finalize their files), then SIGKILL 2 s later if the process is still there
/// (rtpbin can hang on EOS when no packet ever arrived, or after RTCP BYE).
///
/// Test support only; polling costs a 20 ms sleep per check.
final class GStreamerPeer: @unchecked Sendable {
    /// How the process ended.
    enum Ending: String, Sendable {
        /// It exited by itself (EOS reached every sink), or after SIGINT within the grace.
        case exited
        /// It was still running at the deadline and ended after SIGINT.
        case interrupted
        /// It ignored SIGINT for the grace period and was killed.
        case killed
    }

    /// What a finished run left behind.
    struct Outcome: Sendable, CustomStringConvertible {
        /// The exit status, or the signal number when `signaled`.
        let status: Int32
        /// Whether a signal ended the process (then `status` is the signal).
        let signaled: Bool
        /// Whether it ended by itself, after SIGINT, or after SIGKILL.
        let ending: Ending
        /// Everything the process wrote to standard output.
        let standardOutput: String
        /// Everything the process wrote to standard error (GStreamer warnings and errors).
        let standardError: String

        /// True for a clean exit: status 0, no signal, not killed.
        var succeeded: Bool { status == 0 && !signaled && ending != .killed }

        /// True for a clean exit, or for a run that reached EOS by itself and began tearing
        /// down (gst-launch printed "EOS received" and "Setting pipeline to NULL") before a
        /// signal ended it. GStreamer 1.22's gst-launch receiver (rtpbin + srtpdec, RTCP on
        /// port + 1) crashed with SIGSEGV in that teardown once in a clean-clone CI run,
        /// after its frames were written; the frames are what the tests check.
        var reachedEndOfStream: Bool {
            if succeeded { return true }
            return signaled && ending == .exited && standardOutput.contains("EOS received")
                && standardOutput.contains("Setting pipeline to NULL")
        }

        /// A short summary with the last lines of both logs, for test failure messages.
        var description: String {
            func tail(_ text: String) -> String { text.split(separator: "\n").suffix(12).joined(separator: "\n  ") }
            return "\(signaled ? "signal" : "status") \(status), \(ending)\n stdout:\n  \(tail(standardOutput))\n stderr:\n  \(tail(standardError))"
        }
    }

    /// A name for the log files (`<name>.stdout.log`, `<name>.stderr.log`).
    let name: String
    /// The pipeline being run.
    let pipeline: GStreamerPipeline
    /// Where the log files go.
    let directory: String
    /// Seconds between SIGINT and SIGKILL.
    let killGraceSeconds: Double
    private var pid: pid_t = 0
    /// The raw `waitpid` status once the child has been reaped.
    private var waitStatus: Int32?
    private var interruptedAtDeadline = false
    private var killed = false

    /// A peer for `pipeline` that will log into `directory`; nothing runs until `start()`.
    init(name: String, pipeline: GStreamerPipeline, directory: String, killGraceSeconds: Double = 2) {
        self.name = name
        self.pipeline = pipeline
        self.directory = directory
        self.killGraceSeconds = killGraceSeconds
    }

    deinit {
        // Never leave a child behind, even when a test bails out early.
        if pid > 0 && waitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// Path of the captured standard output.
    var standardOutputPath: String { "\(directory)/\(name).stdout.log" }
    /// Path of the captured standard error.
    var standardErrorPath: String { "\(directory)/\(name).stderr.log" }

    /// Launches `gst-launch-1.0 -e --no-fault` with the pipeline's tokens as arguments.
    ///
    /// Spawned with `posix_spawn` and an empty signal mask rather than Foundation's
    /// `Process`: test threads (Dispatch workers) block SIGINT, a child inherits that mask,
    /// and gst-launch would then never see the SIGINT that makes it finish its files.
    func start() throws {
        precondition(pid == 0, "a GStreamerPeer runs once")
        guard let launcher = GStreamerAvailability.executable("gst-launch-1.0") else {
            throw GStreamerPeerError("gst-launch-1.0 is not installed")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, standardErrorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var environment = ProcessInfo.processInfo.environment
        environment["GST_DEBUG_NO_COLOR"] = "1"
        // --no-fault: gst-launch's own SIGSEGV handler prints "Spinning. Please run 'gdb
        // …'" and waits forever for a debugger, so a crash in teardown ran into the
        // deadline and ended killed (a clean-clone CI run, 2026-12-04); without it the
        // crash ends the process at once with the signal, which `reachedEndOfStream` reads.
        let argv = ([launcher, "-e", "--no-fault"] + pipeline.arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, launcher, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw GStreamerPeerError("cannot start gst-launch-1.0: \(String(cString: strerror(result)))")
        }
        pid = child
    }

    /// The process id (0 before `start()`).
    var processIdentifier: Int32 { pid }

    /// Whether the process is still running (reaps it when it has ended).
    var isRunning: Bool {
        guard pid > 0 else { return false }
        guard waitStatus == nil else { return false }
        var status: Int32 = 0
        let reaped = waitpid(pid, &status, WNOHANG)
        if reaped == pid || (reaped < 0 && errno == ECHILD) {
            waitStatus = reaped == pid ? status : 0
            return false
        }
        return true
    }

    /// Waits until every port in `pipeline.listeningPorts` is bound (UDP, IPv4 or IPv6),
    /// or the process exits, or `timeoutSeconds` pass. Returns whether all were bound.
    func waitForListeningPorts(timeoutSeconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            let bound = Self.boundUDPPorts()
            if pipeline.listeningPorts.allSatisfy(bound.contains) { return true }
            if !isRunning { return false }
            usleep(20_000)
        }
        return false
    }

    /// Sends SIGINT now (gst-launch -e: EOS, files finalized); `wait` or `stop` collects it.
    func interrupt() {
        if isRunning { kill(pid, SIGINT) }
    }

    /// Waits for the process to end by itself; at `timeoutSeconds` sends SIGINT, then
    /// SIGKILL after the grace period. Returns the outcome with both logs.
    func wait(timeoutSeconds: Double) -> GStreamerPeer.Outcome {
        if !waitForExit(seconds: timeoutSeconds) {
            interruptedAtDeadline = true
            return stop()
        }
        return outcome()
    }

    /// Stops a pipeline that would run forever: SIGINT now, SIGKILL after the grace.
    func stop() -> GStreamerPeer.Outcome {
        interrupt()
        if !waitForExit(seconds: killGraceSeconds) {
            killed = true
            kill(pid, SIGKILL)
            _ = waitForExit(seconds: 10)
        }
        return outcome()
    }

    private func waitForExit(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning {
            if Date() >= deadline { return false }
            usleep(20_000)
        }
        return true
    }

    private func outcome() -> GStreamerPeer.Outcome {
        let ending: Ending = killed ? .killed : (interruptedAtDeadline ? .interrupted : .exited)
        // The wait status: low 7 bits are the terminating signal (0 for a normal exit),
        // bits 8-15 the exit code (WIFEXITED/WEXITSTATUS are macros Swift cannot import).
        let raw = waitStatus ?? 0
        let signal = raw & 0x7F
        return Outcome(
            status: signal == 0 ? (raw >> 8) & 0xFF : signal,
            signaled: signal != 0,
            ending: ending,
            standardOutput: (try? String(contentsOfFile: standardOutputPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: standardErrorPath, encoding: .utf8)) ?? ""
        )
    }

    /// The local ports of every UDP socket on the machine (/proc/net/udp and udp6).
    static func boundUDPPorts() -> Set<UInt16> {
        var ports = Set<UInt16>()
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            // "  sl  local_address rem_address ..." then "   0: 0100007F:1F90 00000000:0000 ..."
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 1, let colon = fields[1].lastIndex(of: ":"),
                      let port = UInt16(fields[1][fields[1].index(after: colon)...], radix: 16) else { continue }
                ports.insert(port)
            }
        }
        return ports
    }
}

/// A failure to launch a GStreamer peer, with a message saying what to fix.
struct GStreamerPeerError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
    /// An error saying `description`.
    init(_ description: String) { self.description = description }
}
