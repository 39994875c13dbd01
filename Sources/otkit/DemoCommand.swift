import Glibc
import OTMedia

/// `otkit demo`: the README's main job for now. Captures from the first camera (the
/// test pattern where there is none), encodes VP8, decodes it again, and prints a live
/// line of frame rate, bitrate and PSNR, then a summary.
enum DemoCommand {
    static let help = """
        usage: otkit demo [--seconds N] [--camera PATH | --test-pattern] [--size WxH] [--fps N] [--bitrate KBPS]

          --seconds N      how long to run (default 5)
          --camera PATH    a V4L2 camera, e.g. /dev/video0 (default: the first camera found)
          --test-pattern   use the synthetic test pattern even if a camera exists
          --size WxH       capture size asked for (default 640x480)
          --fps N          frame rate asked for (default 30)
          --bitrate KBPS   VP8 target bitrate (default 1000)
        """

    static func run(_ words: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(words, valued: ["seconds", "camera", "size", "fps", "bitrate"], flags: ["test-pattern", "help"])
        if args.flags.contains("help") { print(help); return 0 }
        let seconds = try args.int("seconds", default: 5, range: 1...86_400)
        let (width, height) = try args.size("size", default: (640, 480))
        let fps = try args.int("fps", default: 30, range: 1...120)
        let bitrate = try args.int("bitrate", default: 1000, range: 50...20_000)
        let requested = VideoFormat(width: width, height: height, frameRate: fps)

        let (source, name) = try openSource(args, requested: requested)
        try source.start()
        defer { source.stop() }
        let format = source.format
        print("otkit demo: \(name) at \(format), VP8 \(bitrate) kbps, \(seconds) s")

        var settings = VP8EncoderSettings(width: format.width, height: format.height, frameRate: format.frameRate, bitrateKbps: bitrate)
        settings.maxKeyframeInterval = 300
        let encoder = try VP8Encoder(settings: settings)
        let decoder = try VP8Decoder()
        let usesPattern = source is TestPatternSource
        let reference = VideoFrame(width: format.width, height: format.height)
        let live = LiveLine()
        var total = DemoTotals(), window = DemoTotals()
        let start = MonotonicClock.nanoseconds()
        var lastReport = start
        let end = start + UInt64(seconds) * 1_000_000_000

        while MonotonicClock.nanoseconds() < end {
            guard let frame = try source.nextFrame(timeoutMilliseconds: 500) else { continue }
            var decoded: VideoFrame?
            var decodeError: MediaError?
            try encoder.encode(frame) { packet in
                window.bytes += packet.data.count
                do throws(MediaError) { decoded = try decoder.decode(packet.data, timestampNanoseconds: packet.timestampNanoseconds) } catch {
                    decodeError = error
                }
            }
            if let decodeError { throw decodeError }
            window.frames += 1
            if let decoded, decoded.width == frame.width, decoded.height == frame.height {
                // Against the test pattern, compare with the picture the decoded stamp names,
                // which also proves the frame number survived; else with the source frame.
                if usesPattern, let number = FrameNumberStamp.read(from: decoded) {
                    reference.reshape(width: decoded.width, height: decoded.height)
                    TestPatternRenderer.render(number, into: reference)
                    window.addPSNR(VideoQuality.psnrY(reference, decoded))
                    window.stampsRead += 1
                } else {
                    window.addPSNR(VideoQuality.psnrY(frame, decoded))
                }
            }
            let now = MonotonicClock.nanoseconds()
            if now - lastReport >= 1_000_000_000 {
                let elapsed = Double(now - lastReport) / 1e9
                live.show(
                    "t=\(formatted(Double(now - start) / 1e9, 1))s  \(format.width)x\(format.height)  "
                        + "\(formatted(Double(window.frames) / elapsed, 1)) fps  "
                        + "\(Int(Double(window.bytes) * 8 / elapsed / 1000)) kbps  "
                        + "PSNR \(formatted(window.meanPSNR, 1)) dB  dropped \(source.statistics.framesDropped)")
                total.merge(window)
                window = DemoTotals()
                lastReport = now
            }
        }
        total.merge(window)
        live.finish()
        let elapsed = Double(MonotonicClock.nanoseconds() - start) / 1e9
        print("summary: \(total.frames) frames in \(formatted(elapsed, 1)) s (\(formatted(Double(total.frames) / elapsed, 1)) fps), "
            + "\(Int(Double(total.bytes) * 8 / elapsed / 1000)) kbps, mean Y-PSNR \(formatted(total.meanPSNR, 2)) dB, "
            + "dropped \(source.statistics.framesDropped)"
            + (usesPattern ? ", frame numbers read back \(total.stampsRead)/\(total.frames)" : ""))
        return total.frames > 0 ? 0 : 1
    }

    private static func openSource(_ args: Arguments, requested: VideoFormat) throws -> (VideoSource, String) {
        if args.flags.contains("test-pattern") {
            guard args.options["camera"] == nil else {
                throw Arguments.UsageError(description: "--camera and --test-pattern exclude each other; give one")
            }
            return (try TestPatternSource(format: requested), "test pattern")
        }
        if let path = args.options["camera"] ?? V4L2Camera.devices().first?.path {
            return (try V4L2Camera(path: path, requested: requested), "camera \(path)")
        }
        return (try TestPatternSource(format: requested), "test pattern (no camera found)")
    }
}

/// Running sums for one reporting window.
struct DemoTotals {
    var frames = 0
    var bytes = 0
    var psnrSum = 0.0
    var psnrCount = 0
    var stampsRead = 0

    mutating func addPSNR(_ value: Double) { psnrSum += value; psnrCount += 1 }
    var meanPSNR: Double { psnrCount > 0 ? psnrSum / Double(psnrCount) : 0 }
    mutating func merge(_ other: DemoTotals) {
        frames += other.frames; bytes += other.bytes
        psnrSum += other.psnrSum; psnrCount += other.psnrCount; stampsRead += other.stampsRead
    }
}

/// Fixed decimals without Foundation.
func formatted(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    guard decimals > 0 else { return "\(scaled)" }
    var fraction = String(abs(scaled) % Int(scale))
    while fraction.count < decimals { fraction = "0" + fraction }
    return "\(scaled < 0 && scaled / Int(scale) == 0 ? "-" : "")\(scaled / Int(scale)).\(fraction)"
}
