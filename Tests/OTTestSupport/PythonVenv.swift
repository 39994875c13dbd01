import Foundation
import Glibc

/// One pinned PyPI package in its own venv under the checkout's `.build/<name>`: how the
/// interop tests get implementations the project did not write (the OpenTok server SDK,
/// websockets, aioice, pyOpenSSL). The first use costs a venv and a `pip install` (needs
/// PyPI); later uses one version check. Test processes in the same checkout take turns
/// with a file lock beside the venv.
public enum PythonVenv {
    /// Makes (or finds) `.build/<name>` with `package==version` installed; the interpreter's
    /// path, or why it could not be (no python3, PyPI unreachable, …). Blocks while installing.
    public static func prepare(name: String, package: String, version: String) -> PythonSDK.Availability {
        let venv = PythonSDK.packageRoot + "/.build/" + name
        let python = venv + "/bin/python"
        let check = "import importlib.metadata as m, sys; sys.exit(0 if m.version('\(package)') == '\(version)' else 1)"
        func installed() -> Bool {
            FileManager.default.isExecutableFile(atPath: python) && (try? Subprocess.run(python, ["-c", check]))?.status == 0
        }
        if installed() { return .ready(python: python) }
        guard let python3 = Subprocess.which("python3") else { return .unavailable(reason: "python3 is not on PATH") }
        try? FileManager.default.createDirectory(atPath: PythonSDK.packageRoot + "/.build", withIntermediateDirectories: true)
        // Another test process in this checkout may be installing right now: take turns.
        let lock = open(venv + ".lock", O_CREAT | O_RDWR, 0o644)
        if lock >= 0 { _ = flock(lock, LOCK_EX) }
        defer { if lock >= 0 { close(lock) } }
        if installed() { return .ready(python: python) }
        do {
            let made = try Subprocess.run(python3, ["-m", "venv", "--clear", venv])
            guard made.status == 0 else { return .unavailable(reason: "python3 -m venv failed: \(made.stderr.suffix(600))") }
            let pip = try Subprocess.run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                                  "--timeout", "20", "--retries", "2", "\(package)==\(version)"],
                                         timeoutSeconds: 300)
            guard pip.status == 0 else {
                return .unavailable(reason: "pip install \(package)==\(version) failed (is PyPI reachable?): \(pip.stderr.suffix(600))")
            }
            guard installed() else { return .unavailable(reason: "\(package) \(version) did not import after installing") }
            return .ready(python: python)
        } catch {
            return .unavailable(reason: "could not run python3: \(error)")
        }
    }
}
