import Foundation
import OTMedia
import OTRecording
import OTTestSupport
import Testing

/// The composer's encoder threads and its behaviour behind real time, on the real libx264:
/// `encoderThreads` reaches x264 (read back from the settings x264 writes into the file),
/// and a composer that cannot keep up skips video frames by default but, allowed to lag
/// (`lateFramesBeforeSkipping`), composes every frame due before the stop.
@Suite struct ComposerPacingTests {
    /// The `options:` string libx264 writes into its first SEI (e.g. "cabac=1 … threads=1 …").
    static func x264Settings(_ path: String) throws -> String {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(1 << 20))
        let marker = Array("options: ".utf8)
        let start = try #require(bytes.indices.dropLast(marker.count).first { bytes[$0..<($0 + marker.count)].elementsEqual(marker) },
                                 "no x264 settings in \(path)")
        let from = start + marker.count
        let end = bytes[from...].firstIndex { $0 < 0x20 || $0 > 0x7e } ?? bytes.endIndex
        return String(decoding: bytes[from..<end], as: UTF8.self)
    }

    @Test(arguments: [1, 2]) func encoderThreadsReachX264(threads: Int) throws {
        let scratch = try scratchDirectory("composer-threads")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var configuration = ComposerConfiguration(path: scratch + "/threads.mp4")
        configuration.canvas = CanvasResolution(width: 320, height: 240)
        configuration.encoderThreads = threads
        let composer = ArchiveComposer(configuration: configuration)
        let deadline = MonotonicClock.nanoseconds() + 30_000_000_000
        while composer.statistics.framesComposed < 10, MonotonicClock.nanoseconds() < deadline { usleep(10_000) }
        let summary = composer.finish()
        #expect(summary.state == .finished)
        #expect(summary.statistics.framesComposed >= 10)
        let settings = try Self.x264Settings(configuration.path)
        print("x264 settings with encoderThreads \(threads): \(settings)")
        #expect(settings.split(separator: " ").contains("threads=\(threads)"), "\(settings)")
    }

    /// A frame rate no composer keeps up with (160x120 at 48,000 fps on one thread: 21 µs a
    /// frame for a canvas fill, an x264 encode and a mux), stopped 10 ms after its first tick:
    /// every frame due is either composed or, by default, skipped; allowed to lag, none is
    /// skipped. Small, so the few hundred frames cost little CPU beside other tests.
    @Test(arguments: [false, true]) func behindRealTime(allowedToLag: Bool) throws {
        let scratch = try scratchDirectory("composer-lag")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var configuration = ComposerConfiguration(path: scratch + "/lag.mp4")
        configuration.canvas = CanvasResolution(width: 160, height: 120)
        configuration.frameRate = 48_000
        configuration.videoBitrate = 300_000
        configuration.hasAudio = false
        configuration.encoderThreads = 1
        if allowedToLag { configuration.lateFramesBeforeSkipping = 1 << 20 }
        let composer = ArchiveComposer(configuration: configuration)
        let deadline = MonotonicClock.nanoseconds() + 30_000_000_000
        while composer.statistics.framesComposed + composer.statistics.framesSkipped == 0, MonotonicClock.nanoseconds() < deadline {
            usleep(1_000)
        }
        let summary = composer.finish(at: MonotonicClock.nanoseconds() + 10_000_000)
        let statistics = summary.statistics
        print("allowed to lag \(allowedToLag): \(statistics)")
        #expect(summary.state == .finished)
        // At least the 480 frames due in the 10 ms after the call (the composer had started).
        #expect(statistics.framesComposed + statistics.framesSkipped >= 480)
        #expect(statistics.maximumLateFrames > 2)
        if allowedToLag {
            #expect(statistics.framesSkipped == 0)
            #expect(statistics.framesComposed >= 480)
        } else {
            #expect(statistics.framesSkipped > 0)
            #expect(statistics.framesComposed < statistics.framesSkipped)
        }
    }
}
