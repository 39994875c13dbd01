import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program started in a process group of its own with its output going to a file, so
/// that everything it forks (Chromium's zygotes, renderers, GPU and network processes)
/// can be killed at once and what it wrote read back for failure messages. Tests only.
/// Cost: one `posix_spawn`; `kill()` is one `kill(-pgid)` and a `waitpid`.
final class ChromiumProcess: @unchecked Sendable {
    /// The leader's process id, which is also the group's id.
    let pid: pid_t
    /// Where standard output and standard error go.
    let logPath: String
    private let lock = NSLock()
    private var reaped = false
    private var killed = false

    /// Starts `executable` with `arguments` (argv[0] is added), stdin from /dev/null and
    /// both outputs appended to `logPath`, in a new process group with no signal blocked.
    init(executable: String, arguments: [String], logPath: String) throws(ChromiumError) {
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Group id 0: the child leads a new group (its pid), so kill(-pid) reaches all it forks.
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        guard status == 0 else {
            throw ChromiumError("cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
    }

    deinit { kill() }

    /// Whether the leader is still running (reaps it if it exited). Cost: one `waitpid`.
    var isRunning: Bool {
        lock.withLock {
            guard !reaped else { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { reaped = true }
            return !reaped
        }
    }

    /// Kills the whole group with SIGKILL and reaps the leader. Idempotent.
    func kill() {
        lock.withLock {
            guard !killed else { return }
            killed = true
            // The group outlives its leader when children are left: kill it even after the
            // leader was reaped (the group id stays unused until all its members are gone).
            _ = Glibc.kill(-pid, SIGKILL)
            guard !reaped else { return }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            reaped = true
        }
    }

    /// Process ids of members of the group still alive (read from /proc), for checks
    /// that nothing was left behind. Cost: one pass over /proc.
    func livingMembers() -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { name -> pid_t? in
            guard let id = pid_t(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8) else { return nil }
            // Fields after the command name (in parentheses, which may hold spaces): state ppid pgrp ...
            guard let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", pid_t(fields[2]) == pid else { return nil }
            return id
        }
    }

    /// The last `bytes` of what the program wrote (both outputs), as text.
    func outputTail(_ bytes: Int = 3000) -> String {
        guard let data = FileManager.default.contents(atPath: logPath) else { return "(no output file)" }
        return String(decoding: data.suffix(bytes), as: UTF8.self)
    }
}
