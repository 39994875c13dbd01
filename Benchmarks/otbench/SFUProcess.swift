import Foundation
import Glibc

/// A server the `otbench sfu` scenario starts as a process of its own (Janus, or otbench
/// itself as the OTKit router): its pid, optional pipes to its stdin/stdout, and what the
/// kernel says about its CPU (`/proc/PID/stat` utime + stime) and memory (`VmRSS`).
/// Cost: one `posix_spawn`; each reading opens one small `/proc` file.
final class SFUProcess {
    /// The child's process id.
    let pid: pid_t
    /// Where the child's stderr (and stdout when not piped) goes.
    let logPath: String
    private var input: UnsafeMutablePointer<FILE>?
    private var output: UnsafeMutablePointer<FILE>?
    private var exited = false

    /// Starts `executable` with `arguments`; with `piped`, its stdin and stdout are pipes
    /// this object writes lines to and reads lines from; otherwise stdin is /dev/null.
    init(_ executable: String, _ arguments: [String], logPath: String, piped: Bool) throws {
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        if piped {
            guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw ScenarioError("pipe: \(String(cString: strerror(errno)))") }
            posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
            posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
            for fd in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, fd) }
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | (piped ? O_TRUNC : O_APPEND), 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child = pid_t()
        let status = posix_spawn(&child, executable, &actions, nil, argv, environ)
        if piped {
            close(toChild[0])
            close(fromChild[1])
        }
        guard status == 0 else {
            if piped { close(toChild[1]); close(fromChild[0]) }
            throw ScenarioError("cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        input = piped ? fdopen(toChild[1], "w") : nil
        output = piped ? fdopen(fromChild[0], "r") : nil
    }

    deinit { stop() }

    /// Writes one line to the child's stdin and reads its one-line answer (nil at EOF).
    func request(_ line: String) -> String? {
        guard let input, let output else { return nil }
        fputs(line + "\n", input)
        fflush(input)
        var buffer = [CChar](repeating: 0, count: 4096)
        guard fgets(&buffer, Int32(buffer.count), output) != nil else { return nil }
        let text = String(cString: buffer)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// Reads one line the child wrote on its own (e.g. "ready"); nil at EOF.
    func readLine() -> String? {
        guard let output else { return nil }
        var buffer = [CChar](repeating: 0, count: 4096)
        guard fgets(&buffer, Int32(buffer.count), output) != nil else { return nil }
        let text = String(cString: buffer)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// Whether the child is still running (reaps it when it has exited).
    var isRunning: Bool {
        if exited { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return !exited
    }

    /// SIGTERM, up to 5 s to exit, then SIGKILL; reaps the child.
    func stop() {
        if let input { fclose(input) }
        input = nil
        defer {
            if let output { fclose(output) }
            output = nil
        }
        guard !exited else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<500 {
            if waitpid(pid, &status, WNOHANG) == pid { exited = true; break }
            usleep(10_000)
        }
        if !exited {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            exited = true
        }
    }

    /// User + system CPU of every thread of the child so far, nanoseconds (`/proc/PID/stat`
    /// fields 14 and 15, in clock ticks: 10 ms resolution at the usual 100 Hz).
    func cpuNanoseconds() throws -> UInt64 {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { throw ScenarioError("cannot read /proc/\(pid)/stat") }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else {
            throw ScenarioError("unexpected /proc/\(pid)/stat")
        }
        let ticks = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
        return (user + system) * 1_000_000_000 / ticks
    }

    /// The child's resident memory (`VmRSS` of `/proc/PID/status`), bytes.
    func residentBytes() throws -> UInt64 {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
            throw ScenarioError("cannot read /proc/\(pid)/status")
        }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            if let kib = line.split(separator: " ").dropFirst().first.flatMap({ UInt64($0) }) { return kib * 1024 }
        }
        throw ScenarioError("no VmRSS in /proc/\(pid)/status")
    }

    /// The last `bytes` of the child's log (for failure messages).
    func logTail(_ bytes: Int = 1500) -> String {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return "" }
        return String(text.suffix(bytes))
    }
}
