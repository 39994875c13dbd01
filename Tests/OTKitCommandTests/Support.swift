import Foundation
import OTMedia
import OTNet
import OTSignaling

/// A program running in the background for a test: its output goes to files in a temp
/// directory (read them while it runs); `terminate` sends SIGTERM and `waitForExit`
/// collects the status. Killed (SIGKILL) when released still running.
final class BackgroundProcess: @unchecked Sendable {
    let process = Process()
    let stdoutPath: String
    let stderrPath: String

    /// `launcher`: a program that runs `otkit` (e.g. `prlimit --nofile=1024:1024`, which
    /// execs it, so the pid stays `otkit`'s); empty runs `otkit` directly.
    init(_ arguments: [String], environment: [String: String] = [:], directory: String, launcher: [String] = []) throws {
        let id = UUID().uuidString.prefix(8)
        stdoutPath = "\(directory)/\(arguments.first ?? "cmd")-\(id).out"
        stderrPath = "\(directory)/\(arguments.first ?? "cmd")-\(id).err"
        for path in [stdoutPath, stderrPath] where !FileManager.default.createFile(atPath: path, contents: nil) {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        process.executableURL = URL(fileURLWithPath: launcher.first ?? OtkitBinary.path)
        process.arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [OtkitBinary.path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    /// Sends SIGTERM.
    func terminate() { kill(process.processIdentifier, SIGTERM) }

    /// Waits up to `seconds` for the exit; the status, or nil if it is still running.
    func waitForExit(_ seconds: Double = 20) -> Int32? {
        guard poll(seconds, { !self.process.isRunning }) else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Polls `condition` every `interval` seconds (default 100 ms) for up to `seconds`; true
/// once it holds.
func poll(_ seconds: Double, every interval: Double = 0.1, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(UInt32(interval * 1_000_000))
    }
    return condition()
}

/// A fresh temporary directory for one test.
func temporaryDirectory(_ name: String) throws -> String {
    let path = NSTemporaryDirectory() + "otkit-\(name)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The router's REST API as a server would use it (project JWT).
struct REST {
    let baseURL: String
    let project: ProjectCredentials

    /// The ids of the streams the router has in `sessionId` now.
    func streamIds(_ sessionId: String) throws -> [String] {
        let response = try HTTPClient.request("GET", baseURL + "/v2/project/\(project.apiKey)/session/\(sessionId)/stream",
                                              headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: project)])
        guard response.status == 200,
              let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
              let items = object["items"] as? [[String: Any]] else { return [] }
        return items.compactMap { $0["id"] as? String }
    }
}

/// What a recorded Y4M file holds: the test pattern's frame numbers, in file order
/// (nil for a frame whose stamp did not read).
func stampedNumbers(inY4M path: String) throws -> [UInt32?] {
    let source = try Y4MFileSource(path: path, paced: false, loops: false)
    try source.start()
    var numbers: [UInt32?] = []
    while let frame = try nextOrEnd({ () throws(MediaError) in try source.nextFrame(timeoutMilliseconds: 100) }) {
        numbers.append(FrameNumberStamp.read(from: frame))
    }
    return numbers
}

/// The samples of a 16-bit WAV file (all channels interleaved) and its rate.
func wavSamples(_ path: String) throws -> (samples: [Int16], rate: Int) {
    let source = try WAVFileSource(path: path, paced: false)
    try source.start()
    var samples: [Int16] = []
    while let frame = try nextOrEnd({ () throws(MediaError) in try source.nextFrame(timeoutMilliseconds: 100) }) {
        let count = frame.samplesPerChannel * frame.format.channels
        samples.append(contentsOf: UnsafeBufferPointer(start: frame.samples, count: count))
    }
    return (samples, source.format.sampleRate)
}

/// The next item from an unpaced file source: retries a nil (not ready), nil at the end
/// of the file, rethrows any other error.
func nextOrEnd<T>(_ next: () throws(MediaError) -> T?) throws(MediaError) -> T? {
    for _ in 0..<1000 {
        let item: T?
        do { item = try next() } catch {
            if error.code == .endOfStream { return nil }
            throw error
        }
        if let item { return item }
    }
    return nil
}
