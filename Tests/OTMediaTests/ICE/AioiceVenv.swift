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
        switch PythonVenv.prepare(name: "aioice-venv", package: "aioice", version: version) {
        case .ready(let python): .success(python)
        case .unavailable(let reason): .failure(.init(description: reason))
        }
    }
}
