import Foundation

/// The `opentok` 3.15.0 Python server SDK in a venv under `.build/` (the same venv the
/// OTSignaling interop tests install; installed here on first use if missing).
enum RouterPythonSDK {
    static let version = "3.15.0"

    static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// The venv's python, or why there is none.
    static let python: Result<String, SDKError> = {
        let venv = packageRoot + "/.build/opentok-sdk-venv"
        let python = venv + "/bin/python"
        let check = "import importlib.metadata as m, sys; sys.exit(0 if m.version('opentok') == '\(version)' else 1)"
        if (try? run(python, ["-c", check]))?.status == 0 { return .success(python) }
        guard (try? run("/usr/bin/env", ["python3", "-m", "venv", "--clear", venv]))?.status == 0,
              (try? run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--timeout", "20",
                                 "--retries", "2", "opentok==\(version)"]))?.status == 0,
              (try? run(python, ["-c", check]))?.status == 0
        else { return .failure(.unavailable("pip install opentok==\(version) failed (is PyPI reachable?)")) }
        return .success(python)
    }()

    static var isReady: Bool { (try? python.get()) != nil }

    /// Runs `script` with `input` as JSON on stdin; returns the JSON object it prints.
    static func run(script: String, input: [String: Any]) throws -> [String: Any] {
        let python = try python.get()
        let stdin = String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)
        let result = try run(python, ["-W", "ignore", "-c", script], stdin: stdin)
        guard result.status == 0 else { throw SDKError.failed(result.stderr) }
        guard let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw SDKError.failed("not a JSON object: \(result.stdout)")
        }
        return object
    }

    enum SDKError: Error {
        case unavailable(String)
        case failed(String)
    }

    private static func run(_ executable: String, _ arguments: [String], stdin: String = "") throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let errData = ErrBox()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData.get(), as: UTF8.self))
    }

    private final class ErrBox: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
        func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
    }
}
