import CBareCodec
import OTMedia

/// OTKit's VP8Encoder against a bare libvpx loop over the same frames, same settings.
struct VP8Comparison {
    let width: Int
    let height: Int
    let bitrateKbps: Int
    let frameRate = 30.0

    /// "vp8 640x480 500k".
    var label: String { "vp8 \(width)x\(height) \(bitrateKbps)k" }

    /// The settings both sides use (see docs/benchmarks.md).
    var settings: VP8EncoderSettings {
        var settings = VP8EncoderSettings(width: width, height: height, frameRate: frameRate, bitrateKbps: bitrateKbps)
        settings.cpuUsed = -6
        settings.threads = 1
        settings.errorResilient = true
        settings.maxKeyframeInterval = 3000
        settings.temporalLayers = 1
        return settings
    }

    /// The pts the bare loop passes for a frame, in the bare timebase: exactly what
    /// OTKit's encoder derives from the frame's timestamp.
    static let timebase = (num: Int32(1), den: Int32(90_000))
    static func pts(_ frame: VideoFrame) -> Int64 { Int64(frame.timestampNanoseconds * 9 / 100_000) }
    var duration: UInt { UInt((90_000 / frameRate).rounded()) }

    /// Runs the check pass, then `runs` side-by-side timed runs; returns the result rows.
    func run(frames: [VideoFrame], runs: Int, warmUp: Int, timerCost: UInt64, log: ProgressLog) throws -> [BenchResult] {
        log("\(label): check pass (decode, PSNR, bitstream digest; also warms both sides up)")
        let check = try checkPass(frames: frames)
        if check.otkitDigest != check.bareDigest {
            log("  warning: OTKit's bitstream differs from the bare loop's (\(check.otkitBytes) vs \(check.bareBytes) bytes): settings differ somewhere")
        } else {
            log("  bitstreams identical (\(check.otkitBytes) bytes): same settings, same input")
        }
        let harness = SideBySide(frameCount: frames.count, warmUp: warmUp, timerCost: timerCost)
        let (otkit, bare) = try harness.repeated(runs: runs, label: label, log: log) { otkitFirst in
            // Fresh encoders every run, created outside the timing, in the order they
            // start (so neither always gets the first, or the second, block of memory).
            let encoder: VP8Encoder, bareEncoder: OpaquePointer
            if otkitFirst {
                encoder = try VP8Encoder(settings: settings)
                bareEncoder = try makeBare()
            } else {
                bareEncoder = try makeBare()
                encoder = try VP8Encoder(settings: settings)
            }
            defer { bare_vp8_destroy(bareEncoder) }
            return try harness.run(
                otkitFirst: otkitFirst,
                otkit: { index in
                    var bytes = 0
                    try encoder.encode(frames[index]) { bytes += $0.data.count }
                    return bytes
                },
                bare: { index in try encodeBare(bareEncoder, frames[index]) })
        }
        log("  \(label): OTKit \(otkit.summary), bare \(bare.summary)")
        let seconds = Double(frames.count) / frameRate
        return [
            .compared("\(label) encode CPU", value: median(otkit.millisecondsPerFrame), unit: "ms/frame",
                      baseline: median(bare.millisecondsPerFrame), goal: 1.03),
            .bounded("\(label) allocations", value: otkit.allocationsPerFrame.max()!, unit: "allocs/frame",
                     baseline: bare.allocationsPerFrame.max()!, goal: 0),
            .info("\(label) output bitrate", value: Double(check.otkitBytes) * 8 / seconds / 1000, unit: "kbps",
                  baseline: Double(check.bareBytes) * 8 / seconds / 1000),
            .info("\(label) Y-PSNR", value: check.psnr, unit: "dB"),
        ]
    }

    /// What the untimed check pass found.
    struct Check {
        var otkitBytes = 0, bareBytes = 0
        var otkitDigest: UInt64 = fnvOffsetBasis, bareDigest: UInt64 = 0
        var psnr = 0.0
    }

    /// Encodes every frame on both sides without timing: OTKit's output is decoded with
    /// VP8Decoder and compared with the source (mean Y-PSNR), and both outputs are hashed.
    func checkPass(frames: [VideoFrame]) throws -> Check {
        var check = Check()
        let encoder = try VP8Encoder(settings: settings)
        let decoder = try VP8Decoder()
        var psnrSum = 0.0, decoded = 0
        var decodeError: MediaError?
        for frame in frames {
            try encoder.encode(frame) { packet in
                check.otkitBytes += packet.data.count
                check.otkitDigest = fnv1a(packet.data, continuing: check.otkitDigest)
                do throws(MediaError) {
                    if let picture = try decoder.decode(packet.data, timestampNanoseconds: packet.timestampNanoseconds) {
                        psnrSum += VideoQuality.psnrY(frame, picture)
                        decoded += 1
                    }
                } catch {
                    decodeError = error
                }
            }
            if let decodeError { throw ScenarioError("\(label): VP8Decoder failed: \(decodeError)") }
        }
        guard decoded > 0 else { throw ScenarioError("\(label): VP8Decoder produced no pictures") }
        check.psnr = psnrSum / Double(decoded)

        let bare = try makeBare()
        defer { bare_vp8_destroy(bare) }
        bare_vp8_enable_digest(bare)
        for frame in frames { check.bareBytes += try encodeBare(bare, frame) }
        check.bareDigest = bare_vp8_digest(bare)
        return check
    }

    /// A bare libvpx encoder with `settings` (the caller destroys it).
    func makeBare() throws -> OpaquePointer {
        let s = settings
        guard let encoder = bare_vp8_create(Int32(s.width), Int32(s.height), Self.timebase.num, Self.timebase.den,
                                            Int32(s.bitrateKbps), Int32(s.cpuUsed), Int32(s.threads),
                                            s.errorResilient ? 1 : 0, Int32(s.maxKeyframeInterval)) else {
            throw ScenarioError("\(label): bare libvpx encoder: \(String(cString: bare_vp8_last_error()))")
        }
        return encoder
    }

    /// Encodes one frame with the bare loop; the compressed bytes produced.
    @inline(__always)
    func encodeBare(_ encoder: OpaquePointer, _ frame: VideoFrame) throws -> Int {
        let bytes = bare_vp8_encode(encoder, frame.y, frame.u, frame.v, Int32(frame.strideY), Int32(frame.strideUV),
                                    Self.pts(frame), duration, 0)
        guard bytes >= 0 else { throw ScenarioError("\(label): bare vpx_codec_encode: \(String(cString: bare_vp8_last_error()))") }
        return bytes
    }
}
