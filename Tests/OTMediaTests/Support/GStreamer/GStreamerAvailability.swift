import Foundation
import OTTestSupport

/// Whether this machine can run the GStreamer interop peers, and why not.
///
/// Checked once per test process: `gst-launch-1.0` and `gst-inspect-1.0` on the PATH,
/// then one `gst-inspect-1.0` run (no arguments: it lists every installed element) to
/// confirm each element the pipeline builders use. Interop suites use
/// `.enabled(if: GStreamerAvailability.shouldRun)` and then
/// `try #require(GStreamerAvailability.isAvailable, ...)`: on a developer machine without
/// GStreamer a bare `swift test` skips them with `reason`; where GStreamer is required
/// (`TestRequirements.dependenciesRequired`: always under scripts/test, which installs it) a
/// missing GStreamer fails the test instead of hiding it.
enum GStreamerAvailability {
    /// Every element the builders in this folder may put in a pipeline.
    static let requiredElements: [String] = [
        "udpsrc", "udpsink", "srtpenc", "srtpdec", "rtpbin", "identity", "filesrc", "filesink",
        "y4mdec", "vp8enc", "vp8dec", "rtpvp8pay", "rtpvp8depay",
        "audiotestsrc", "wavparse", "wavenc", "opusenc", "opusdec", "rtpopuspay", "rtpopusdepay",
        "audioconvert", "audioresample", "videoconvert", "fakesink",
    ]

    /// Why GStreamer cannot be used here, or nil when it can.
    static let reason: String? = findReason()

    /// True when `gst-launch-1.0` and every required element are installed.
    static var isAvailable: Bool { reason == nil }

    /// True when the environment demands the interop tests (`TestRequirements`).
    static var isRequired: Bool { TestRequirements.dependenciesRequired }

    /// Whether interop suites should run at all: where GStreamer is available or required.
    static var shouldRun: Bool { isAvailable || isRequired }

    /// The absolute path of `name` on the PATH, or nil.
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    private static func findReason() -> String? {
        guard executable("gst-launch-1.0") != nil else {
            return "gst-launch-1.0 is not installed (apt-get install gstreamer1.0-tools)"
        }
        guard let inspect = executable("gst-inspect-1.0") else {
            return "gst-inspect-1.0 is not installed (apt-get install gstreamer1.0-tools)"
        }
        let listing: String
        do {
            listing = try runAndCapture(inspect, arguments: [])
        } catch {
            return "gst-inspect-1.0 failed: \(error)"
        }
        // Lines look like "srtp:  srtpdec: SRTP decoder".
        var installed = Set<String>()
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2)
            if fields.count == 3 { installed.insert(fields[1].trimmingCharacters(in: .whitespaces)) }
        }
        let missing = requiredElements.filter { !installed.contains($0) }
        guard missing.isEmpty else {
            return "GStreamer elements missing: \(missing.joined(separator: ", ")) "
                + "(apt-get install gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad)"
        }
        return nil
    }

    /// Runs a short command and returns its standard output (standard error discarded).
    private static func runAndCapture(_ executable: String, arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
