import Foundation

/// Where the built `otkit` executable is: `OTKIT_COMMAND` when set (the hardware VM sets
/// it to a release build, see Tests/Hardware/build-payload.sh), else next to this test
/// bundle in `.build/<config>/` (`swift build --build-tests` builds every product, the
/// command included).
enum OtkitBinary {
    static var path: String {
        if let chosen = ProcessInfo.processInfo.environment["OTKIT_COMMAND"], FileManager.default.isExecutableFile(atPath: chosen) {
            return chosen
        }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // The xctest bundle may be a directory (…/OTKitPackageTests.xctest/…); climb to the build directory.
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("otkit").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug/otkit").path
    }
}
