import Foundation
import OTMedia
import OTTestSupport
import Testing

/// What ffprobe/ffmpeg (a decoder the project did not write) say about a recorded file.
enum MediaProbe {
    struct Missing: Error, CustomStringConvertible {
        var description: String { "ffmpeg/ffprobe are required by the recording tests (scripts/install-deps.sh installs them)" }
    }

    static func tool(_ name: String) throws -> String {
        guard let path = Subprocess.which(name) else { throw Missing() }
        return path
    }

    /// `ffprobe -show_streams -show_format` as JSON.
    static func probe(_ file: String) throws -> [String: Any] {
        let result = try Subprocess.run(try tool("ffprobe"), ["-v", "error", "-show_streams", "-show_format", "-of", "json", file])
        #expect(result.status == 0, "\(result)")
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// Codec names of the file's streams, by type ("video": "vp8", "audio": "opus").
    static func codecs(_ probe: [String: Any]) -> [String: String] {
        var codecs: [String: String] = [:]
        for stream in probe["streams"] as? [[String: Any]] ?? [] {
            if let type = stream["codec_type"] as? String, let name = stream["codec_name"] as? String { codecs[type] = name }
        }
        return codecs
    }

    /// The container's duration in seconds (nil when ffprobe has none).
    static func duration(_ probe: [String: Any]) -> Double? {
        ((probe["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init)
    }

    /// Packets of one stream ("v" or "a"): (pts seconds, keyframe).
    static func packets(_ file: String, stream: String) throws -> [(time: Double, keyframe: Bool)] {
        let result = try Subprocess.run(try tool("ffprobe"), ["-v", "error", "-select_streams", stream, "-show_entries",
                                                              "packet=pts_time,flags", "-of", "csv=p=0", file])
        return result.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let time = Double(fields[0]) else { return nil }
            return (time, fields[1].contains("K"))
        }
    }

    /// Decodes every frame and packet with ffmpeg: the error output (empty when clean).
    /// Frames keep their own times in the file's time base (`-fps_mode passthrough
    /// -enc_time_base:v -1`), so frames under 33 ms apart do not collide on ffmpeg's own
    /// 1/frame-rate output ticks (an error about its output, not about the file).
    static func decodeErrors(_ file: String) throws -> String {
        let result = try Subprocess.run(try tool("ffmpeg"), ["-v", "error", "-i", file, "-fps_mode", "passthrough", "-enc_time_base:v", "-1", "-f", "null", "-"])
        return result.status == 0 ? result.stderr : "exit \(result.status): \(result.stderr)"
    }

    /// The frame number stamped in each decoded video frame (nil where unreadable), in
    /// decode order, one per packet.
    static func frameNumbers(_ file: String, width: Int, height: Int, scratch: String) throws -> [UInt32?] {
        let raw = scratch + "/frames.gray"
        let result = try Subprocess.run(try tool("ffmpeg"), ["-v", "error", "-i", file, "-map", "0:v", "-fps_mode", "passthrough",
                                                             "-f", "rawvideo", "-pix_fmt", "gray", "-y", raw])
        #expect(result.status == 0, "\(result)")
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        let frame = VideoFrame(width: width, height: height)
        var numbers: [UInt32?] = []
        var offset = 0
        while offset + width * height <= data.count {
            data.withUnsafeBytes { bytes in
                for row in 0..<height {
                    (frame.y + row * frame.strideY).update(from: bytes.baseAddress!.advanced(by: offset + row * width)
                        .assumingMemoryBound(to: UInt8.self), count: width)
                }
            }
            numbers.append(FrameNumberStamp.read(from: frame))
            offset += width * height
        }
        return numbers
    }

    /// The audio decoded to 48 kHz mono with gaps (lost packets) filled with silence from the
    /// timestamps (any gap over 5 ms), sample 0 at file time 0.
    static func audioSamples(_ file: String, scratch: String) throws -> [Int16] {
        let raw = scratch + "/audio.pcm"
        let result = try Subprocess.run(try tool("ffmpeg"), ["-v", "error", "-i", file, "-map", "0:a", "-af",
                                                             "aresample=async=1:min_hard_comp=0.005:first_pts=0", "-ac", "1", "-ar", "48000",
                                                             "-f", "s16le", "-y", raw])
        #expect(result.status == 0, "\(result)")
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// File times (s) where a beep starts: a 5 ms window louder than `threshold` after at least 100 ms of quiet.
    static func onsets(_ samples: [Int16], threshold: Double = 1500) -> [Double] {
        let window = 240
        var onsets: [Double] = []
        var quietWindows = 0
        var index = 0
        while index + window <= samples.count {
            let rms = samples[index..<(index + window)].withContiguousStorageIfAvailable { AudioAnalysis.rms($0) } ?? 0
            if rms > threshold {
                if quietWindows >= 20 { onsets.append(Double(index) / 48_000) }
                quietWindows = 0
            } else {
                quietWindows += 1
            }
            index += window
        }
        return onsets
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}

/// A fresh directory under /tmp for one test.
func scratchDirectory(_ name: String) throws -> String {
    let path = NSTemporaryDirectory() + "otrecording-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
