import Foundation

/// Runs a program to completion and returns its exit status and output (tests only).
/// Costs one fork/exec plus two pipe readers; blocks the calling thread until the child
/// exits or the timeout kills it.
public enum Subprocess {
    /// What a finished program left behind.
    public struct Result: Sendable, CustomStringConvertible {
        /// The exit status (or the signal number when it was killed, e.g. by the timeout).
        public var status: Int32
        /// Everything written to standard output, as UTF-8.
        public var stdout: String
        /// Everything written to standard error, as UTF-8.
        public var stderr: String
        /// True when the timeout ended the program.
        public var timedOut: Bool

        /// A result with every field given.
        public init(status: Int32, stdout: String, stderr: String, timedOut: Bool = false) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
            self.timedOut = timedOut
        }

        /// The status, then the tail of stderr and stdout: what a failure message needs.
        public var description: String {
            "exit status \(status)\(timedOut ? " (killed by the timeout)" : "")\n"
                + "stderr: \(stderr.suffix(2000))\nstdout: \(stdout.suffix(1000))"
        }
    }

    /// Runs `executable` with `arguments`, writes `stdin` to it and closes it, and collects
    /// both outputs. `environment` entries are added to (and override) this process's.
    /// After `timeoutSeconds` the child is killed (SIGKILL) and `timedOut` is set.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           stdin: String? = nil, timeoutSeconds: Double = 120) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // Read both pipes while the child runs so a chatty child cannot block on a full pipe.
        let outBox = DataBox(), errBox = DataBox()
        let readers = DispatchGroup()
        DispatchQueue.global().async(group: readers) { outBox.set(out.fileHandleForReading.readDataToEndOfFile()) }
        DispatchQueue.global().async(group: readers) { errBox.set(err.fileHandleForReading.readDataToEndOfFile()) }
        if let stdin, !stdin.isEmpty { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        var timedOut = false
        if exited.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            timedOut = true
            // SIGKILL, not terminate(): a child may inherit a mask that blocks SIGTERM.
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        _ = readers.wait(timeout: .now() + 5)
        return Result(status: process.terminationStatus, stdout: String(decoding: outBox.get(), as: UTF8.self),
                      stderr: String(decoding: errBox.get(), as: UTF8.self), timedOut: timedOut)
    }

    /// Finds `name` on PATH (nil when it is not there). Costs a stat per PATH entry.
    public static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

private final class DataBox: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ d: Data) { lock.withLock { data = d } }
    func get() -> Data { lock.withLock { data } }
}
