import Foundation
import OTNet
import OTRouter
import OTSignaling

/// An `otkit router --redis …` process for the failover tests (SIGKILL and SIGTERM need a
/// process of its own): output in files, killed when released still running.
final class SpawnedRouter: @unchecked Sendable {
    let process = Process()
    let nodeId: String
    private let outputPath: String

    /// `clusterSecret`: the configuration file's (signing and media cascades: its proxied
    /// clients' native subscribers get their legs here); nil: none (media at the owner).
    init(nodeId: String, redis: String, project: ProjectCredentials, directory: String, drainSeconds: Int = 30,
         clusterSecret: String? = nil) throws {
        self.nodeId = nodeId
        outputPath = "\(directory)/\(nodeId).out"
        let config = "\(directory)/\(nodeId).json"
        let secret = clusterSecret.map { #", "clusterSecret": "\#($0)""# } ?? ""
        try #"{"redis": "\#(redis)", "nodeId": "\#(nodeId)", "clusterDrainSeconds": \#(drainSeconds)\#(secret)}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["router", "--config", config, "--port", "0", "--media-port", "0", "--public-ip", "127.0.0.1"]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["OTKIT_API_KEY": project.apiKey, "OTKIT_API_SECRET": project.apiSecret]) { _, new in new }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// What it printed (standard output and error).
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Its base URL once it printed it, else "".
    var url: String {
        let prefix = "otkit router listening at "
        for line in output.split(separator: "\n") where line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)) }
        return ""
    }

    /// A counter or gauge from its `/metrics`, nil if absent or unreachable.
    func metric(_ name: String) -> Double? {
        guard let answer = try? HTTPClient.request("GET", url + "/metrics", timeoutSeconds: 5) else { return nil }
        for line in String(decoding: answer.body, as: UTF8.self).split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    /// Waits up to `seconds` for the exit; its status, nil while it still runs.
    func waitForExit(_ seconds: Double) -> Int32? {
        let end = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < end { usleep(100_000) }
        guard !process.isRunning else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The built `otkit` next to this test bundle (`swift build --build-tests` builds it).
    static var binary: String {
        if let chosen = ProcessInfo.processInfo.environment["OTKIT_COMMAND"], FileManager.default.isExecutableFile(atPath: chosen) {
            return chosen
        }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("otkit").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug/otkit").path
    }
}
