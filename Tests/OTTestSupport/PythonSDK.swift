import Foundation

/// The real `opentok` Python server SDK (PyPI, pinned to `version`), installed once per
/// checkout into a venv under `.build/opentok-sdk-venv` and reused by every later run, so
/// tests can drive OTKit with server code the project did not write.
///
/// The first use in a checkout costs a `python3 -m venv` and a `pip install` (seconds,
/// needs PyPI); later uses cost one version check. Concurrent test processes in the same
/// checkout serialise the install with a file lock.
public enum PythonSDK {
    /// The pinned SDK version.
    public static let version = "3.15.0"

    /// Whether the SDK can be used, and the venv's interpreter when it can.
    public enum Availability: Sendable {
        /// Installed and importable: run scripts with this interpreter.
        case ready(python: String)
        /// Why not (no python3, PyPI unreachable, …).
        case unavailable(reason: String)
    }

    /// Why a script run failed.
    public enum Failure: Error, CustomStringConvertible {
        /// The SDK is not installed (see `unavailableReason`).
        case unavailable(String)
        /// The script exited non-zero, timed out, or printed something that is not the expected JSON.
        case failed(step: String, Subprocess.Result)

        /// A readable account: which step, its exit status, stderr (the Python traceback) and stdout.
        public var description: String {
            switch self {
            case .unavailable(let reason): "the opentok Python SDK is not available: \(reason)"
            case .failed(let step, let result): "python \(step) failed: \(result)"
            }
        }
    }

    /// The package root (from this file's path: Tests/OTTestSupport/…).
    public static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// Where the venv lives.
    public static var venvPath: String { packageRoot + "/.build/opentok-sdk-venv" }

    /// Installed on first use (a static let: initialised once, thread-safely, per process).
    public static let availability: Availability = prepare()

    /// True when scripts can run (installs the SDK on first use).
    public static var isReady: Bool {
        if case .ready = availability { return true }
        return false
    }

    /// Why the SDK is unavailable, or nil when it is ready.
    public static var unavailableReason: String? {
        if case .unavailable(let reason) = availability { return reason }
        return nil
    }

    /// Whether the run demands the SDK (`TestRequirements.dependenciesRequired`: always under
    /// scripts/test): then a missing SDK is a failure, not a skip.
    public static var isRequired: Bool { TestRequirements.dependenciesRequired }

    /// Whether the SDK's suites run at all: where it is installed, or where it is required
    /// (there `run` throws `.unavailable` and the test fails with the reason).
    public static var shouldRun: Bool { isReady || isRequired }

    /// Runs `script` (Python source) in the venv as `python -W ignore -c script arguments…`
    /// with `stdin`, and returns what it did whatever its exit status. Throws only when the
    /// SDK is unavailable or the interpreter could not be started.
    public static func run(_ script: String, arguments: [String] = [], stdin: String = "",
                           timeoutSeconds: Double = 60) throws(Failure) -> Subprocess.Result {
        guard case .ready(let python) = availability else { throw .unavailable(unavailableReason ?? "") }
        do {
            return try Subprocess.run(python, ["-W", "ignore", "-c", script] + arguments, stdin: stdin,
                                      timeoutSeconds: timeoutSeconds)
        } catch {
            throw .failed(step: arguments.first ?? "script",
                          Subprocess.Result(status: -1, stdout: "", stderr: "could not start \(python): \(error)"))
        }
    }

    /// Runs `script` like `run` and requires exit status 0; returns its stdout.
    public static func output(_ script: String, arguments: [String] = [], stdin: String = "",
                              timeoutSeconds: Double = 60) throws(Failure) -> String {
        let result = try run(script, arguments: arguments, stdin: stdin, timeoutSeconds: timeoutSeconds)
        guard result.status == 0, !result.timedOut else { throw .failed(step: arguments.first ?? "script", result) }
        return result.stdout
    }

    /// Runs `script` with `input` serialised as JSON on stdin, requires exit status 0 and
    /// returns the JSON value it printed (a dictionary, array, string or number).
    public static func json(_ script: String, input: Any, arguments: [String] = [],
                            timeoutSeconds: Double = 60) throws(Failure) -> Any {
        let stdin: String
        do {
            stdin = String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)
        } catch {
            throw .failed(step: "encode input", Subprocess.Result(status: -1, stdout: "", stderr: "\(error)"))
        }
        let result = try run(script, arguments: arguments, stdin: stdin, timeoutSeconds: timeoutSeconds)
        guard result.status == 0, !result.timedOut,
              let value = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed])
        else { throw .failed(step: arguments.first ?? "script", result) }
        return value
    }

    private static func prepare() -> Availability {
        PythonVenv.prepare(name: "opentok-sdk-venv", package: "opentok", version: version)
    }
}
