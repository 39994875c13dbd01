import CALSA
import Glibc
import Synchronization

/// A microphone: captures from an ALSA device by name (`default`, `hw:1,0`,
/// `plughw:1,0`, `hw:Loopback,1`…) in the engine's format.
///
/// The device runs interleaved S16_LE at exactly 48 kHz with 10 ms periods and a buffer
/// of `periods` periods. A device that cannot do 48 kHz (or S16, or the channel count)
/// natively fails with `unsupportedFormat` and a message suggesting `plughw:`, which
/// converts. A machine with no sound card or no such device gives `audioUnavailable`
/// (never an abort, and nothing on stderr: alsa-lib's messages are kept for the error
/// text instead).
///
/// `nextFrame` waits with `snd_pcm_wait` and reads with `snd_pcm_readi` into a pooled
/// frame; a frame interrupted by the timeout keeps its partial samples for the next call.
/// Overruns (-EPIPE) and suspends (-ESTRPIPE) are recovered with `snd_pcm_recover` and
/// counted in `statistics.overruns`. A reader that holds every pooled frame loses frames
/// (read into a scratch buffer so the device does not overrun, counted in
/// `framesDropped`, visible as gaps in `sequence`). Steady state allocates nothing.
///
/// Timestamps: the capture time of the frame's first sample on `MonotonicClock`,
/// computed when the frame completes as now − (alsa-lib's delay + the frame's length) /
/// rate; the delay is what the device has captured that the reader has not yet read.
///
/// Thread safety: all methods may be called from any thread; the device is used under a
/// lock, so `stop()` waits for a `nextFrame` in progress (at most its timeout).
public final class ALSAMicrophone: AudioSource {
    /// The ALSA device name this microphone opens.
    public let device: String
    /// The format of every frame (48 kHz, 1–2 channels, 10 or 20 ms).
    public let format: AudioFormat
    /// Buffer length in 10 ms periods.
    public let periods: Int
    private let configuration: String?
    private let pool: AudioFramePool

    private struct State {
        var pcm: ALSAPCM?
        /// The frame being filled and how many samples per channel it holds so far.
        var pending: AudioFrame?
        var pendingFilled = 0
        /// Where audio goes when the reader holds every pooled frame (counted as dropped).
        var scratch: AudioFrame?
        var sequence: UInt64 = 0
    }

    private let state = Mutex(State())
    private let counters = Mutex(CaptureStatistics())
    private let negotiated = Mutex<ALSAStreamParameters?>(nil)

    /// A microphone on `device` delivering frames of `format`. Cost: a small pool of
    /// frames; opens nothing until `start()`.
    ///
    /// - Parameters:
    ///   - device: an ALSA PCM name.
    ///   - format: 48 kHz, 1 or 2 channels, 10 or 20 ms frames.
    ///   - periods: device buffer length in 10 ms periods (2–32; default 8 = 80 ms).
    ///   - configuration: ALSA configuration text (asoundrc syntax) used instead of the
    ///     system configuration to resolve `device`, e.g. a `type file` PCM for tests
    ///     or a private `dsnoop`; nil uses the system configuration.
    /// - Throws: `invalidArgument` for a format or period count the engine does not take.
    public init(device: String = "default", format: AudioFormat = .mono20ms, periods: Int = 8,
                configuration: String? = nil) throws(MediaError) {
        try format.validate()
        try ALSAStreamParameters.validate(periods: periods)
        self.device = device
        self.format = format
        self.periods = periods
        self.configuration = configuration
        self.pool = AudioFramePool(format: format, initialCount: 2, maximumCount: 8)
    }

    /// What the device agreed to, once started (nil before `start()` and after `stop()`).
    public var parameters: ALSAStreamParameters? { negotiated.withLock { $0 } }

    /// Opens and configures the device; capture begins at the first `nextFrame`.
    /// Idempotent. Resets `statistics`. Cost: opening an ALSA PCM (a few allocations).
    /// - Throws: `audioUnavailable` (no such device or no sound card), `deviceBusy`,
    ///   `permissionDenied`, `unsupportedFormat`, or `invalidArgument` (bad configuration text).
    public func start() throws(MediaError) {
        try state.withLock { state throws(MediaError) in
            guard state.pcm == nil else { return }
            let pcm = try ALSAPCM.open(device: device, direction: .capture, format: format,
                                       configuration: configuration, periods: periods,
                                       startFrames: format.sampleRate / 100)
            state.pcm = pcm
            state.pending = nil
            state.pendingFilled = 0
            if state.scratch == nil { state.scratch = AudioFrame(format: format) }
            state.sequence = 0
            negotiated.withLock { $0 = pcm.parameters }
            counters.withLock { $0 = CaptureStatistics() }
        }
    }

    /// The next full frame, waiting at most `timeoutMilliseconds` (nil on timeout; samples
    /// already read are kept for the next call).
    /// - Throws: `invalidArgument` before `start()`, `deviceLost` when the device goes
    ///   away, `systemError` for other ALSA failures.
    public func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> AudioFrame? {
        let deadline = MonotonicClock.nanoseconds() + UInt64(min(max(0, timeoutMilliseconds), 86_400_000)) * 1_000_000
        return try state.withLock { state throws(MediaError) -> AudioFrame? in
            guard let pcm = state.pcm else {
                throw MediaError(.invalidArgument, "ALSAMicrophone.nextFrame called before start() or after stop()")
            }
            return try read(pcm, &state, deadline: deadline)
        }
    }

    private func read(_ pcm: ALSAPCM, _ state: inout State, deadline: UInt64) throws(MediaError) -> AudioFrame? {
        let channels = format.channels
        let samplesPerChannel = format.samplesPerChannel
        while true {
            if pcm.isPrepared {
                let status = snd_pcm_start(pcm.handle)
                if status < 0, try pcm.recover(status) { countOverrun() }
            }
            let frame: AudioFrame
            if let pending = state.pending {
                frame = pending
            } else {
                frame = pool.take() ?? state.scratch!
                state.pending = frame
                state.pendingFilled = 0
            }
            let filled = state.pendingFilled
            let count = snd_pcm_readi(pcm.handle, frame.samples + filled * channels,
                                      snd_pcm_uframes_t(samplesPerChannel - filled))
            if count > 0 {
                state.pendingFilled += count
                guard state.pendingFilled == samplesPerChannel else { continue }
                state.pending = nil
                let now = MonotonicClock.nanoseconds()
                let behind = UInt64((pcm.delayFrames() ?? 0) + samplesPerChannel)
                let age = behind * 1_000_000_000 / UInt64(format.sampleRate)
                let sequence = state.sequence
                state.sequence += 1
                if frame === state.scratch {
                    // The reader holds every pooled frame: this one is lost (a gap in
                    // `sequence`), but reading on keeps the device from overrunning.
                    counters.withLock { $0.framesDropped += 1 }
                    if MonotonicClock.nanoseconds() >= deadline { return nil }
                    continue
                }
                frame.timestampNanoseconds = now > age ? now - age : 0
                frame.sequence = sequence
                counters.withLock { $0.framesDelivered += 1 }
                return frame
            }
            if count == 0 || count == -snd_pcm_sframes_t(EAGAIN) {
                let now = MonotonicClock.nanoseconds()
                guard now < deadline else { return nil }
                let waited = pcm.wait(milliseconds: Int((deadline - now + 999_999) / 1_000_000))
                if waited < 0, try pcm.recover(waited) { countOverrun() }
                continue
            }
            if try pcm.recover(Int32(truncatingIfNeeded: count)) { countOverrun() }
        }
    }

    private func countOverrun() {
        counters.withLock { $0.overruns += 1 }
    }

    /// Stops capture and closes the device. Idempotent; frames already returned stay valid.
    public func stop() {
        state.withLock { state in
            state.pcm = nil
            state.pending = nil
            state.pendingFilled = 0
        }
        negotiated.withLock { $0 = nil }
    }

    /// Frames delivered, frames dropped because the reader held every pooled frame, and
    /// overruns recovered, since `start()`. Cost: a lock and a copy.
    public var statistics: CaptureStatistics { counters.withLock { $0 } }
}
