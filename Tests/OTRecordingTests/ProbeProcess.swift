import Foundation

/// Where the built `OTRecordingProbe` executable is (next to the test bundle in `.build/<config>/`).
enum ProbeBinary {
    static var path: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("OTRecordingProbe").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug/OTRecordingProbe").path
    }
}
