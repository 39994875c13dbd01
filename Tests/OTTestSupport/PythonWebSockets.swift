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
        PythonVenv.prepare(name: "websockets-venv", package: "websockets", version: version)
    }
}
