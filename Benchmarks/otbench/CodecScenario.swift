import OTMedia

/// `otbench codec`: VP8 and Opus encode cost of OTKit against bare libvpx / libopus.
///
/// VP8 at 640x480 and 1280x720, 30 fps, 500 and 1500 kbps, cpu-used -6, 1 thread, on
/// a camera-like clip; Opus 20 ms mono and stereo at 32 kbps, complexity 10, VOIP, on a
/// speech-like signal. Each case reports CPU ms/frame (median over runs) for OTKit and
/// for the bare loop, their ratio (goal ≤ 1.03), steady-state allocations per frame
/// (goal 0), output bitrate, and for VP8 the Y-PSNR of OTKit's decoded output.
enum CodecScenario: Scenario {
    static let name = "codec"
    static let summary = "VP8 and Opus encode: OTKit vs bare libvpx/libopus (CPU ratio, allocations, PSNR)"

    /// Frames per VP8 run and timed runs per side when the command line does not say.
    static let defaultFrames = 300
    static let defaultRuns = 5
    /// Frames encoded before allocations start to count (encoder start-up allocates).
    static let warmUpFrames = 30

    static func run(options: Options, log: ProgressLog) throws -> [BenchResult] {
        try AllocationCounter.verify()
        let videoFrames = options.frames ?? defaultFrames
        let audioFrames = videoFrames * 10
        let runs = options.runs ?? defaultRuns
        let contentName = options.content ?? VideoContent.pattern.rawValue
        guard let content = VideoContent(rawValue: contentName) else {
            throw ScenarioError("no video content named '\(contentName)'; use \(VideoContent.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        guard videoFrames > warmUpFrames else {
            throw ScenarioError("--frames must be more than the \(warmUpFrames) warm-up frames")
        }
        let timerCost = SideBySide.measureTimerCost()
        log("thread CPU clock: \(timerCost) ns per reading (subtracted from each timed call)")
        var results: [BenchResult] = []
        func wanted(_ label: String) -> Bool { options.only.map { label.contains($0) } ?? true }
        for (width, height) in [(640, 480), (1280, 720)] {
            let cases = [500, 1500].map { VP8Comparison(width: width, height: height, bitrateKbps: $0) }.filter { wanted($0.label) }
            guard !cases.isEmpty else { continue }
            log("rendering \(videoFrames) frames of \(width)x\(height) \(content) video into memory")
            let clip = content.render(width: width, height: height, count: videoFrames)
            for comparison in cases {
                results += try comparison.run(frames: clip, runs: runs, warmUp: warmUpFrames, timerCost: timerCost, log: log)
            }
        }
        for format in [AudioFormat.mono20ms, .stereo20ms] where wanted(OpusComparison(format: format).label) {
            log("rendering \(audioFrames) frames of \(format) speech-like audio into memory")
            let signal = SpeechSignal.render(format: format, count: audioFrames) { level in
                log("  speech level: peak \(TableReport.format(level.peak)) dBFS, RMS \(TableReport.format(level.rms)) dBFS")
            }
            let comparison = OpusComparison(format: format)
            results += try comparison.run(frames: signal, runs: runs, warmUp: warmUpFrames, timerCost: timerCost, log: log)
        }
        return results
    }
}
