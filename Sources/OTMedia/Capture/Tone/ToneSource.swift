import Glibc
import Synchronization

/// A deterministic sine tone: the audio test pattern.
///
/// Every channel carries the same sine of `frequency` Hz with peak `amplitude` × 32767,
/// rounded to the nearest integer. The phase runs on across frames (no jump at frame
/// boundaries) and restarts at zero on `start()`, so two tone sources with the same
/// settings produce the same samples.
///
/// Paced (the default), frame `n` is returned when it is due in real time
/// (see `MonotonicClock.sleep(until:)`); unpaced (`paced: false`, for tests and
/// benchmarks) frames come as fast as they are asked for. Either way timestamps are
/// `start time + n × frame length`.
///
/// Cost: one `sin` per sample per frame, into a pooled frame; no allocation per frame.
public final class ToneSource: AudioSource {
    /// The format of every frame.
    public let format: AudioFormat
    /// Tone frequency in Hz.
    public let frequency: Double
    /// Peak level as a fraction of full scale (0...1).
    public let amplitude: Double
    /// Whether frames are released in real time.
    public let paced: Bool
    private let pool: AudioFramePool

    private struct State {
        var started = false
        var pacer: FramePacer
        var index: UInt64 = 0
        /// Phase of the next sample, in cycles (0..<1).
        var phase: Double = 0
    }

    private let state: Mutex<State>
    private let counters = Mutex(CaptureStatistics())

    /// A tone source. Cost: a small frame pool.
    /// - Parameters:
    ///   - frequency: Hz, above 0 and below half the sample rate (default 440).
    ///   - amplitude: peak as a fraction of full scale, 0...1 (default 0.5).
    ///   - format: the engine format of the frames (default 48 kHz mono 20 ms).
    ///   - paced: release frames in real time (default) or as fast as asked.
    /// - Throws: `invalidArgument` for an out-of-range frequency, amplitude or format.
    public init(frequency: Double = 440, amplitude: Double = 0.5, format: AudioFormat = .mono20ms,
                paced: Bool = true) throws(MediaError) {
        try format.validate()
        guard frequency > 0, frequency < Double(format.sampleRate) / 2 else {
            throw MediaError(.invalidArgument, "tone frequency \(frequency) Hz is out of range; use 0 < f < \(format.sampleRate / 2) Hz")
        }
        guard (0...1).contains(amplitude) else {
            throw MediaError(.invalidArgument, "tone amplitude \(amplitude) is out of range; use 0...1 of full scale")
        }
        self.format = format
        self.frequency = frequency
        self.amplitude = amplitude
        self.paced = paced
        self.pool = AudioFramePool(format: format, initialCount: 2, maximumCount: 8)
        self.state = Mutex(State(pacer: FramePacer(format: format, paced: paced)))
    }

    /// Starts the tone at phase 0 with the clock at now. Idempotent while started;
    /// resets `statistics`.
    public func start() throws(MediaError) {
        state.withLock { state in
            guard !state.started else { return }
            state.started = true
            state.pacer.reset()
            state.index = 0
            state.phase = 0
        }
        counters.withLock { $0 = CaptureStatistics() }
    }

    /// The next frame of tone; paced, waits until it is due (nil if that is after the
    /// timeout). If the reader holds every pooled frame the frame is skipped (phase and
    /// clock move on), counted in `framesDropped`, and nil is returned.
    /// - Throws: `invalidArgument` before `start()`.
    public func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> AudioFrame? {
        try state.withLock { state throws(MediaError) -> AudioFrame? in
            guard state.started else {
                throw MediaError(.invalidArgument, "ToneSource.nextFrame called before start() or after stop()")
            }
            guard state.pacer.waitForFrame(state.index, timeoutMilliseconds: timeoutMilliseconds) else { return nil }
            let step = frequency / Double(format.sampleRate)
            let count = format.samplesPerChannel
            let index = state.index
            state.index += 1
            guard let frame = pool.take() else {
                state.phase = (state.phase + step * Double(count)).truncatingRemainder(dividingBy: 1)
                counters.withLock { $0.framesDropped += 1 }
                return nil
            }
            state.phase = Self.fill(frame.samples, count: count, channels: format.channels,
                                    phase: state.phase, step: step, peak: amplitude * 32767)
            frame.timestampNanoseconds = state.pacer.timestamp(ofFrame: index)
            frame.sequence = index
            counters.withLock { $0.framesDelivered += 1 }
            return frame
        }
    }

    /// Writes `count` samples per channel of sine starting at `phase` (cycles) and
    /// returns the phase of the next sample.
    private static func fill(_ samples: UnsafeMutablePointer<Int16>, count: Int, channels: Int,
                             phase start: Double, step: Double, peak: Double) -> Double {
        var phase = start
        var out = samples
        for _ in 0..<count {
            let value = Int16((peak * sin(2 * Double.pi * phase)).rounded())
            for _ in 0..<channels {
                out.pointee = value
                out += 1
            }
            phase += step
            if phase >= 1 { phase -= 1 }
        }
        return phase
    }

    /// Stops the tone. Idempotent; `start()` begins again at phase 0.
    public func stop() {
        state.withLock { $0.started = false }
    }

    /// Frames delivered and dropped since `start()`. Cost: a lock and a copy.
    public var statistics: CaptureStatistics { counters.withLock { $0 } }
}
