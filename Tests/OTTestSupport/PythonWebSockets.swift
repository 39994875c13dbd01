import Foundation
import Glibc

/// The `websockets` Python library (PyPI, pinned to `version`), installed once per
/// checkout into a venv under `.build/websockets-venv`: an independent RFC 6455 client
/// (not libwebsockets, not OTNet) for tests of OTNet's WebSocket server. Like `PythonSDK`:
/// the first use costs a venv and a `pip install`; later uses one version check;
/// concurrent test processes take turns with a file lock.
public enum PythonWebSockets {
    /// The pinned version.
    public static let version = "15.0.1"

    /// Where the venv lives.
    public static var venvPath: String { PythonSDK.packageRoot + "/.build/websockets-venv" }

    /// The venv's interpreter once installed, or why it could not be (thread-safe, once per process).
    public static let availability: PythonSDK.Availability = prepare()

    /// Runs `script` with the venv's interpreter as `python -c script arguments…` and
    /// returns what it did. Throws when the library is unavailable (PyPI unreachable…),
    /// which is a test failure: the interop check is required, never skipped.
    public static func run(_ script: String, arguments: [String] = [], timeoutSeconds: Double = 60) throws(PythonSDK.Failure) -> Subprocess.Result {
        guard case .ready(let python) = availability else {
            if case .unavailable(let reason) = availability { throw .unavailable(reason) }
            throw .unavailable("unknown")
        }
        do {
            return try Subprocess.run(python, ["-W", "ignore", "-c", script] + arguments, timeoutSeconds: timeoutSeconds)
        } catch {
            throw .failed(step: "script", Subprocess.Result(status: -1, stdout: "", stderr: "could not start \(python): \(error)"))
        }
    }

    private static func prepare() -> PythonSDK.Availability {
        let venv = venvPath
        let python = venv + "/bin/python"
        let check = "import importlib.metadata as m, sys; sys.exit(0 if m.version('websockets') == '\(version)' else 1)"
        func installed() -> Bool {
            FileManager.default.isExecutableFile(atPath: python) && (try? Subprocess.run(python, ["-c", check]))?.status == 0
        }
        if installed() { return .ready(python: python) }
        guard let python3 = Subprocess.which("python3") else { return .unavailable(reason: "python3 is not on PATH") }
        try? FileManager.default.createDirectory(atPath: PythonSDK.packageRoot + "/.build", withIntermediateDirectories: true)
        let lock = open(PythonSDK.packageRoot + "/.build/websockets-venv.lock", O_CREAT | O_RDWR, 0o644)
        if lock >= 0 { _ = flock(lock, LOCK_EX) }
        defer { if lock >= 0 { close(lock) } }
        if installed() { return .ready(python: python) }
        do {
            let made = try Subprocess.run(python3, ["-m", "venv", "--clear", venv])
            guard made.status == 0 else { return .unavailable(reason: "python3 -m venv failed: \(made.stderr.suffix(600))") }
            let pip = try Subprocess.run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                                  "--timeout", "20", "--retries", "2", "websockets==\(version)"],
                                         timeoutSeconds: 300)
            guard pip.status == 0 else {
                return .unavailable(reason: "pip install websockets==\(version) failed (is PyPI reachable?): \(pip.stderr.suffix(600))")
            }
            guard installed() else { return .unavailable(reason: "websockets \(version) did not import after installing") }
            return .ready(python: python)
        } catch {
            return .unavailable(reason: "could not run python3: \(error)")
        }
    }
}
