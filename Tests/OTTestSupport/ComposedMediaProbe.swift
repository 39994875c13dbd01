import Foundation
import OTMedia

/// Reads a composed archive (MP4) back with ffmpeg/ffprobe, a decoder the project did not
/// write: its streams, a decoded frame at a media time, the frame number stamped in a
/// rectangle of it (cropped and scaled back to the source's size), and the power of a
/// frequency in its audio (a single-bin DFT, Goertzel's recurrence). Shared by the
/// recording and acceptance tests.
public enum ComposedMediaProbe {
    /// ffmpeg or ffprobe is missing (they are required, never skipped).
    public struct Missing: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "\(name) is required by the composed-archive tests (scripts/install-deps.sh installs it)" }
    }

    static func tool(_ name: String) throws -> String {
        guard let path = Subprocess.which(name) else { throw Missing(name: name) }
        return path
    }

    /// What ffprobe says of the file's streams and format.
    public struct Summary: CustomStringConvertible {
        public var videoCodec: String?
        public var width = 0
        public var height = 0
        public var audioCodec: String?
        public var sampleRate = 0
        /// The container's duration (s), else the longest stream's.
        public var duration: Double?
        public var description: String {
            "video \(videoCodec ?? "-") \(width)x\(height), audio \(audioCodec ?? "-") \(sampleRate) Hz, \(duration ?? -1) s"
        }
    }

    /// `ffprobe -show_streams -show_format` of `file`.
    public static func summary(_ file: String) throws -> Summary {
        let result = try Subprocess.run(try tool("ffprobe"), ["-v", "error", "-show_streams", "-show_format", "-of", "json", file])
        guard result.status == 0,
              let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            return Summary()
        }
        var summary = Summary()
        var longest = 0.0
        for stream in json["streams"] as? [[String: Any]] ?? [] {
            if let seconds = (stream["duration"] as? String).flatMap(Double.init) { longest = max(longest, seconds) }
            if stream["codec_type"] as? String == "video" {
                summary.videoCodec = stream["codec_name"] as? String
                summary.width = stream["width"] as? Int ?? 0
                summary.height = stream["height"] as? Int ?? 0
            } else if stream["codec_type"] as? String == "audio" {
                summary.audioCodec = stream["codec_name"] as? String
                summary.sampleRate = (stream["sample_rate"] as? String).flatMap(Int.init) ?? 0
            }
        }
        summary.duration = ((json["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init) ?? (longest > 0 ? longest : nil)
        return summary
    }

    /// The luma of the frame shown at `seconds` (`width` × `height` bytes), or nil.
    public static func grayFrame(_ file: String, at seconds: Double, width: Int, height: Int, scratch: String) throws -> [UInt8]? {
        let raw = scratch + "/frame-\(Int(seconds * 1000)).gray"
        let result = try Subprocess.run(try tool("ffmpeg"), ["-v", "error", "-ss", String(format: "%.3f", seconds), "-i", file,
                                                             "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-y", raw])
        guard result.status == 0, let data = FileManager.default.contents(atPath: raw), data.count == width * height else { return nil }
        return [UInt8](data)
    }

    /// The frame number stamped in the picture drawn at (`x`, `y`, `width`, `height`) of a
    /// `canvasWidth`-wide luma frame, scaled back to `sourceWidth` × `sourceHeight` (libyuv
    /// box filter) before `FrameNumberStamp` reads it; nil when unreadable.
    public static func stamp(in gray: [UInt8], canvasWidth: Int, x: Int, y: Int, width: Int, height: Int,
                             sourceWidth: Int, sourceHeight: Int) -> UInt32? {
        guard width > 0, height > 0, x >= 0, y >= 0, x + width <= canvasWidth, (y + height) * canvasWidth <= gray.count else { return nil }
        let crop = VideoFrame(width: width, height: height)
        gray.withUnsafeBufferPointer { bytes in
            for row in 0..<height {
                (crop.y + row * crop.strideY).update(from: bytes.baseAddress! + (y + row) * canvasWidth + x, count: width)
            }
        }
        for row in 0..<crop.chromaHeight {
            (crop.u + row * crop.strideUV).update(repeating: 128, count: crop.chromaWidth)
            (crop.v + row * crop.strideUV).update(repeating: 128, count: crop.chromaWidth)
        }
        let source = VideoFrame(width: sourceWidth, height: sourceHeight)
        guard (try? FrameScaler.scale(crop, into: source, filter: .bilinear)) != nil else { return nil }
        return FrameNumberStamp.read(from: source)
    }

    /// The frame number stamped in every decoded frame of `file`'s video (`width` ×
    /// `height`), in file order, nil where unreadable: ffmpeg decodes each frame once
    /// (`-fps_mode passthrough`, no frame duplicated or dropped) to raw luma.
    public static func stamps(_ file: String, width: Int, height: Int, scratch: String) throws -> [UInt32?] {
        let raw = scratch + "/stamps-\(UUID().uuidString.prefix(8)).gray"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let result = try Subprocess.run(try tool("ffmpeg"), ["-v", "error", "-i", file, "-map", "0:v", "-fps_mode", "passthrough",
                                                             "-f", "rawvideo", "-pix_fmt", "gray", "-y", raw])
        guard result.status == 0, let data = FileManager.default.contents(atPath: raw) else { return [] }
        let bytes = [UInt8](data)
        let size = width * height
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { offset in
            stamp(in: Array(bytes[offset..<(offset + size)]), canvasWidth: width, x: 0, y: 0, width: width, height: height,
                  sourceWidth: width, sourceHeight: height)
        }
    }

    /// The audio decoded to 48 kHz mono 16-bit, sample 0 at file time 0.
    public static func audio(_ file: String, scratch: String) throws -> [Int16] {
        let raw = scratch + "/audio.pcm"
        let result = try Subprocess.run(try tool("ffmpeg"), ["-v", "error", "-i", file, "-map", "0:a", "-ac", "1", "-ar", "48000",
                                                             "-f", "s16le", "-y", raw])
        guard result.status == 0, let data = FileManager.default.contents(atPath: raw) else { return [] }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// The amplitude of `frequency` in `samples` (48 kHz): |DFT bin| × 2 / n, so a pure
    /// tone of amplitude A reads about A.
    public static func toneAmplitude(_ samples: ArraySlice<Int16>, frequency: Double, sampleRate: Double = 48_000) -> Double {
        guard !samples.isEmpty else { return 0 }
        let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
        var previous = 0.0, beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return 2 * max(0, power).squareRoot() / Double(samples.count)
    }
}
