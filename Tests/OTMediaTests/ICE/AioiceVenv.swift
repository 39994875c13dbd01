import Foundation
import OTTestSupport

/// `aioice` from PyPI (pinned), an ICE/STUN implementation the project did not write,
/// installed once per checkout into `.build/aioice-venv` (like `PythonSDK`'s venv) so the
/// interop test can run it as the controlling ICE client. The first use costs a venv and
/// a `pip install` (needs PyPI); later ones a version check. Test processes in the same
/// checkout take turns with a file lock.
enum AioiceVenv {
    static let version = "0.13.0"

    static var venvPath: String { PythonSDK.packageRoot + "/.build/aioice-venv" }

    /// The venv's python, or why there is none.
    static let python: Result<String, AioiceUnavailable> = prepare()

    struct AioiceUnavailable: Error, CustomStringConvertible {
        let description: String
    }

    private static func prepare() -> Result<String, AioiceUnavailable> {
        let python = venvPath + "/bin/python"
        let check = "import importlib.metadata as m, sys; sys.exit(0 if m.version('aioice') == '\(version)' else 1)"
        func installed() -> Bool {
            FileManager.default.isExecutableFile(atPath: python) && (try? Subprocess.run(python, ["-c", check]))?.status == 0
        }
        if installed() { return .success(python) }
        guard let python3 = Subprocess.which("python3") else { return .failure(.init(description: "python3 is not on PATH")) }
        try? FileManager.default.createDirectory(atPath: PythonSDK.packageRoot + "/.build", withIntermediateDirectories: true)
        let lock = open(PythonSDK.packageRoot + "/.build/aioice-venv.lock", O_CREAT | O_RDWR, 0o644)
        if lock >= 0 { _ = flock(lock, LOCK_EX) }
        defer { if lock >= 0 { close(lock) } }
        if installed() { return .success(python) }
        do {
            let made = try Subprocess.run(python3, ["-m", "venv", "--clear", venvPath])
            guard made.status == 0 else { return .failure(.init(description: "python3 -m venv failed: \(made)")) }
            let pip = try Subprocess.run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                                  "--timeout", "20", "--retries", "2", "aioice==\(version)"],
                                         timeoutSeconds: 300)
            guard pip.status == 0 else {
                return .failure(.init(description: "pip install aioice==\(version) failed (is PyPI reachable?): \(pip)"))
            }
            guard installed() else { return .failure(.init(description: "aioice \(version) did not import after installing")) }
            return .success(python)
        } catch {
            return .failure(.init(description: "could not run python3: \(error)"))
        }
    }
}
