@testable import OTMedia

/// Drives an `AdaptiveVideoEncoder` with synthetic capture frames on a synthetic clock
/// (30 fps by default), recording every encoded frame (copied) and every fallback event.
/// No wall clock: time is the frames' capture timestamps.
final class AdaptiveEncoderHarness {
    struct Record {
        var encoding: Int
        var width: Int
        var height: Int
        var isKeyframe: Bool
        var temporalLayer: Int
        var layerSync: Bool
        var timestamp: UInt64
        var bytes: [UInt8]
        /// The capture frame number.
        var index: Int
    }

    let encoder: AdaptiveVideoEncoder
    let captureInterval: UInt64
    private let frames: [VideoFrame]
    private(set) var t = 0
    private(set) var records: [Record] = []
    private(set) var events: [(frame: Int, event: AudioFallbackEvent)] = []

    /// A harness capturing `width`x`height` at `frameRate` fps, cycling through
    /// `distinctFrames` pre-drawn synthetic pictures (drawing 720p in a debug build is slow).
    init(settings: AdaptiveVideoEncoder.Settings, distinctFrames: Int = 8) throws {
        encoder = try AdaptiveVideoEncoder(settings: settings)
        captureInterval = UInt64((1_000_000_000 / settings.video.frameRate).rounded())
        frames = (0..<distinctFrames).map {
            SyntheticVideo.frame($0 * 3, width: settings.video.width, height: settings.video.height)
        }
    }

    /// Capture time of frame `t`.
    func time(of t: Int) -> UInt64 { 1_000_000_000 + UInt64(t) * captureInterval }

    /// The capture time of the next frame.
    var now: UInt64 { time(of: t) }

    /// Captures `seconds` worth of frames with the target at `target` bps; returns the
    /// records those frames produced.
    @discardableResult
    func run(seconds: Double, target: UInt64, keyframeMaskAt: [Int: UInt32] = [:]) throws -> [Record] {
        let start = records.count
        let count = Int((seconds * 1_000_000_000 / Double(captureInterval)).rounded())
        for _ in 0..<count {
            let frame = frames[t % frames.count]
            frame.timestampNanoseconds = time(of: t)
            frame.sequence = UInt64(t)
            if let mask = keyframeMaskAt[t] { encoder.requestKeyframes(mask: mask) }
            let index = t
            let result = try encoder.encode(frame, targetBitrate: target) { encoding, encoded in
                records.append(Record(encoding: encoding, width: encoded.width, height: encoded.height,
                                      isKeyframe: encoded.isKeyframe, temporalLayer: encoded.temporalLayer,
                                      layerSync: encoded.layerSync, timestamp: encoded.timestampNanoseconds,
                                      bytes: Array(encoded.data), index: index))
            }
            if let event = result.event { events.append((t, event)) }
            t += 1
        }
        return Array(records[start...])
    }

    /// Settings with fallback off and the given capture format.
    static func settings(width: Int, height: Int, frameRate: Double = 30, bitrateKbps: Int = 800,
                         ssrcs: [UInt32] = [0x1111], temporalLayers: Int = 1) -> AdaptiveVideoEncoder.Settings {
        var video = VP8EncoderSettings(width: width, height: height, frameRate: frameRate, bitrateKbps: bitrateKbps)
        video.temporalLayers = temporalLayers
        return AdaptiveVideoEncoder.Settings(video: video, ssrcs: ssrcs)
    }
}

extension Array where Element == AdaptiveEncoderHarness.Record {
    /// Encoded bits per second over `seconds`.
    func bitrate(over seconds: Double) -> Double {
        Double(reduce(0) { $0 + $1.bytes.count } * 8) / seconds
    }

    /// The distinct sizes, in order of first appearance.
    var sizes: [String] {
        var seen: [String] = []
        for record in self where seen.last != "\(record.width)x\(record.height)" {
            let size = "\(record.width)x\(record.height)"
            if !seen.contains(size) { seen.append(size) }
        }
        return seen
    }
}
