import Foundation
import Testing
@testable import OTMedia

/// Helpers the audio tests share: reading whole runs of frames and temporary files.
enum ToneTestSupport {
    /// Reads `count` frames from a started source and returns their samples, in order.
    static func collect(_ source: some AudioSource, frames count: Int, timeoutMilliseconds: Int = 2_000) throws -> [Int16] {
        var samples = [Int16]()
        samples.reserveCapacity(count * source.format.samplesPerFrame)
        for _ in 0..<count {
            guard let frame = try source.nextFrame(timeoutMilliseconds: timeoutMilliseconds) else {
                throw MediaError(.systemError, "no frame within \(timeoutMilliseconds) ms")
            }
            samples.append(contentsOf: frame.buffer)
        }
        return samples
    }

    /// The `MediaError` `body` throws, or nil when it succeeds (other errors are recorded
    /// as test failures).
    static func failure(_ body: () throws -> Void) -> MediaError? {
        do {
            try body()
            return nil
        } catch let error as MediaError {
            return error
        } catch {
            Issue.record("expected a MediaError, got \(error)")
            return nil
        }
    }

    /// A path in a fresh temporary directory (removed by `removeDirectory(of:)`).
    static func temporaryPath(_ name: String) -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("otkit-audio-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name).path
    }

    /// Removes the temporary directory that holds `path`.
    static func removeDirectory(of path: String) {
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }

    /// Deterministic, non-periodic test samples (a 32-bit LCG), so a skipped or repeated
    /// block shows up in a byte comparison, which a pure sine could hide.
    static func noise(count: Int, seed: UInt32 = 12345) -> [Int16] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int16(truncatingIfNeeded: state >> 16)
        }
    }

    /// The samples as little-endian bytes.
    static func bytes(_ samples: [Int16]) -> [UInt8] {
        samples.flatMap { value -> [UInt8] in
            let bits = UInt16(bitPattern: value)
            return [UInt8(bits & 0xFF), UInt8(bits >> 8)]
        }
    }
}
