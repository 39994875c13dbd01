import Foundation
import Glibc

/// A real `redis-server` (Debian's) for tests: its own free loopback port, no persistence
/// (`--save "" --appendonly no`), its own scratch directory. A missing `redis-server`
/// throws: the cluster tests fail without it, never skip. ``restart()`` stops it and
/// starts it again on the same port, empty (a restart without persistence).
/// Cost: one child process (~10 MB).
public final class RedisServer: @unchecked Sendable {
    /// The TCP port it listens on (127.0.0.1).
    public let port: Int
    private let executable: String
    private let directory: String
    private let lock = NSLock()
    private var process: Process?

    /// Why a Redis server could not be started.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// Starts a server on a free port and waits (up to 30 s) until it answers PING.
    public init() throws {
        guard let executable = Subprocess.which("redis-server") ?? (FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-server") ? "/usr/bin/redis-server" : nil) else {
            throw Failure(description: "redis-server is not installed (Debian package redis-server; scripts/install-deps.sh installs it)")
        }
        self.executable = executable
        directory = NSTemporaryDirectory() + "otkit-redis-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var lastError = "no attempt"
        var started: Process?
        var chosen: Int?
        for _ in 0..<5 {
            let candidate = Self.freePort()
            do {
                try Self.launch(executable, port: candidate, directory: directory, into: &started)
                chosen = candidate
                break
            } catch {
                lastError = "\(error)"
                if let started, started.isRunning { kill(started.processIdentifier, SIGKILL) }
                started = nil
            }
        }
        guard let chosen else { throw Failure(description: "redis-server did not start: \(lastError)") }
        port = chosen
        process = started
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `redis://127.0.0.1:<port>` plus `/db` when given.
    public func url(database: Int? = nil) -> String { "redis://127.0.0.1:\(port)" + (database.map { "/\($0)" } ?? "") }

    /// Kills the server (SIGKILL) and waits for it to exit. Idempotent.
    public func stop() {
        lock.withLock {
            guard let process else { return }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            self.process = nil
        }
    }

    /// Stops the server and starts a new, empty one on the same port (waiting until it answers).
    public func restart() throws {
        stop()
        try lock.withLock {
            var lastError: Error?
            // The port was just freed; a few attempts cover a slow release.
            for _ in 0..<20 {
                do {
                    try Self.launch(executable, port: port, directory: directory, into: &process)
                    return
                } catch {
                    lastError = error
                    process = nil
                    usleep(200_000)
                }
            }
            throw lastError ?? Failure(description: "redis-server did not restart")
        }
    }

    private static func launch(_ executable: String, port: Int, directory: String, into slot: inout Process?) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", directory, "--daemonize", "no", "--logfile", directory + "/redis-\(port).log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // Not the test run's allocation counter (scripts/test preloads it into `swift test`,
        // and children inherit it): redis-server's jemalloc crashes under it at start.
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "LD_PRELOAD" }
        try process.run()
        slot = process
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard process.isRunning else {
                let log = (try? String(contentsOfFile: directory + "/redis-\(port).log", encoding: .utf8)) ?? ""
                throw Failure(description: "redis-server exited on port \(port): \(log.suffix(500))")
            }
            if ping(port: port) { return }
            usleep(20_000)
        }
        throw Failure(description: "redis-server on port \(port) did not answer PING within 30 s")
    }

    /// Whether 127.0.0.1:`port` answers an inline PING with +PONG.
    public static func ping(port: Int) -> Bool {
        guard let connection = RawTCPConnection(port: port) else { return false }
        guard connection.send("PING\r\n") else { return false }
        var descriptor = pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 2000) == 1 else { return false }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { recv(connection.descriptor, $0.baseAddress, $0.count, 0) }
        return n >= 5 && String(decoding: buffer[0..<n], as: UTF8.self).hasPrefix("+PONG")
    }

    /// A TCP port the kernel reports free on 127.0.0.1 now.
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
