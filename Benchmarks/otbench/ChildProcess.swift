import Glibc

/// Runs another program to completion and reports the CPU it used, from the kernel's
/// own accounting of the child (`wait4`'s rusage: user + system of every thread).
enum ChildProcess {
    /// How a child ended.
    struct Outcome {
        /// The exit status (or 128 + signal when killed).
        var status: Int32
        /// User + system CPU of the child, nanoseconds (microsecond resolution).
        var cpuNanoseconds: UInt64
        /// The tail of what it wrote on stderr (for failure messages).
        var errorText: String
    }

    /// The absolute path of `name` on the PATH, or nil.
    static func find(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments` (stdin and stdout /dev/null, stderr to a
    /// temporary file) and waits for it.
    static func run(_ executable: String, _ arguments: [String]) throws -> Outcome {
        let errorPath = "/tmp/otbench-child-\(getpid()).err"
        defer { unlink(errorPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard status == 0 else {
            throw ScenarioError("cannot start \(executable): \(String(cString: strerror(status)))")
        }
        var waitStatus: Int32 = 0
        var usage = rusage()
        while wait4(pid, &waitStatus, 0, &usage) < 0 {
            guard errno == EINTR else { throw ScenarioError("wait4 \(executable): \(String(cString: strerror(errno)))") }
        }
        let cpu = (UInt64(usage.ru_utime.tv_sec) + UInt64(usage.ru_stime.tv_sec)) * 1_000_000_000
            + (UInt64(usage.ru_utime.tv_usec) + UInt64(usage.ru_stime.tv_usec)) * 1000
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros: decode by hand.
        let signal = waitStatus & 0x7F
        let exit = signal == 0 ? (waitStatus >> 8) & 0xFF : 128 + signal
        return Outcome(status: exit, cpuNanoseconds: cpu, errorText: readTail(errorPath))
    }

    private static func readTail(_ path: String) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 2048)
        let size = lseek(fd, 0, SEEK_END)
        lseek(fd, max(0, size - 2048), SEEK_SET)
        let count = read(fd, &bytes, 2048)
        return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
    }
}
