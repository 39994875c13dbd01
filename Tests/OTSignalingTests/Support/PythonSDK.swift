import Foundation

/// The real `opentok` Python server SDK (PyPI, pinned), installed once per checkout into a
/// venv under `.build/`, so interop tests run OTKit against code the project did not write.
enum PythonSDK {
    static let version = "3.15.0"

    enum Availability {
        case ready(python: String)
        case unavailable(reason: String)
    }

    /// Installed on first use (a static let: initialised once, thread-safely).
    static let availability: Availability = prepare()

    static var isReady: Bool {
        if case .ready = availability { return true }
        return false
    }

    static var unavailableReason: String? {
        if case .unavailable(let reason) = availability { return reason }
        return nil
    }

    /// Whether a CI run is asking for every test to run (then a missing SDK is a failure).
    static var requiredByCI: Bool { ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } ?? false }

    /// The package root, from this file's path (Tests/OTSignalingTests/Support/…).
    static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
    }

    private static func prepare() -> Availability {
        let venv = packageRoot + "/.build/opentok-sdk-venv"
        let python = venv + "/bin/python"
        let check = "import importlib.metadata as m, sys; sys.exit(0 if m.version('opentok') == '\(version)' else 1)"
        if FileManager.default.isExecutableFile(atPath: python),
           (try? Subprocess.run(python, ["-c", check]))?.status == 0 {
            return .ready(python: python)
        }
        guard let python3 = Subprocess.which("python3") else { return .unavailable(reason: "python3 is not on PATH") }
        do {
            let made = try Subprocess.run(python3, ["-m", "venv", "--clear", venv])
            guard made.status == 0 else { return .unavailable(reason: "python3 -m venv failed: \(made.stderr)") }
            let pip = try Subprocess.run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                                  "--timeout", "20", "--retries", "2", "opentok==\(version)"])
            guard pip.status == 0 else {
                return .unavailable(reason: "pip install opentok==\(version) failed (is PyPI reachable?): \(pip.stderr.suffix(600))")
            }
            guard try Subprocess.run(python, ["-c", check]).status == 0 else {
                return .unavailable(reason: "opentok \(version) did not import after installing")
            }
            return .ready(python: python)
        } catch {
            return .unavailable(reason: "could not run python3: \(error)")
        }
    }

    /// Runs `script` in the SDK's venv with `input` (JSON) on stdin; returns the parsed
    /// JSON it prints. Fails the test (throws) on a non-zero exit.
    static func run(_ script: String, input: Any) throws -> Any {
        guard case .ready(let python) = availability else { throw SDKError.unavailable(unavailableReason ?? "") }
        let stdin = String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)
        let result = try Subprocess.run(python, ["-W", "ignore", "-c", script], stdin: stdin)
        guard result.status == 0 else { throw SDKError.failed(result.stderr) }
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    enum SDKError: Error {
        case unavailable(String)
        case failed(String)
    }
}
