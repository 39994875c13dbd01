import CALSA
import Glibc
import Synchronization

/// Counters a playback sink keeps. Cost: a value copy of two integers.
public struct PlaybackStatistics: Sendable, Equatable {
    /// Frames written to the device.
    public var framesWritten: UInt64 = 0
    /// Underruns (the device ran dry) and suspends recovered.
    public var underruns: UInt64 = 0

    /// All zeros.
    public init() {}
}

/// A speaker: plays to an ALSA device by name (`default`, `hw:0,0`, `plughw:0,0`,
/// `hw:Loopback,0,0`…) in the engine's format.
///
/// Same device set-up as `ALSAMicrophone` (interleaved S16_LE, exactly 48 kHz, 10 ms
/// periods, `periods` of them). Playback starts once two frames are queued (capped at
/// the buffer), so a producer paced in real time keeps a frame of slack. `write` blocks
/// while the buffer is full (about one frame's duration in steady state); underruns
/// (-EPIPE) and suspends are recovered with `snd_pcm_recover` and counted. `stop()`
/// drains what is queued, then closes. Allocates nothing per frame.
///
/// Thread safety: methods may be called from any thread; the device is used under a lock.
public final class ALSASpeaker: AudioSink {
    /// The ALSA device name this speaker opens.
    public let device: String
    /// The format `write` expects.
    public let format: AudioFormat
    /// Buffer length in 10 ms periods.
    public let periods: Int
    private let configuration: String?
    private let pcm = Mutex<ALSAPCM?>(nil)
    private let counters = Mutex(PlaybackStatistics())
    private let negotiated = Mutex<ALSAStreamParameters?>(nil)

    /// How long one `write` may wait for room before the device counts as stalled.
    private static let stallMilliseconds = 2_000

    /// A speaker on `device` for frames of `format`. Opens nothing until `start()`.
    ///
    /// - Parameters:
    ///   - device: an ALSA PCM name.
    ///   - format: 48 kHz, 1 or 2 channels, 10 or 20 ms frames.
    ///   - periods: device buffer length in 10 ms periods (2–32; default 6 = 60 ms).
    ///   - configuration: ALSA configuration text (asoundrc syntax) used instead of the
    ///     system configuration to resolve `device`; nil uses the system configuration.
    /// - Throws: `invalidArgument` for a format or period count the engine does not take.
    public init(device: String = "default", format: AudioFormat = .mono20ms, periods: Int = 6,
                configuration: String? = nil) throws(MediaError) {
        try format.validate()
        try ALSAStreamParameters.validate(periods: periods)
        self.device = device
        self.format = format
        self.periods = periods
        self.configuration = configuration
    }

    /// What the device agreed to, once started (nil before `start()` and after `stop()`).
    public var parameters: ALSAStreamParameters? { negotiated.withLock { $0 } }

    /// Opens and configures the device. Idempotent. Resets `statistics`.
    /// Cost: opening an ALSA PCM (a few allocations).
    /// - Throws: `audioUnavailable` (no such device or no sound card), `deviceBusy`,
    ///   `permissionDenied`, `unsupportedFormat`, or `invalidArgument` (bad configuration text).
    public func start() throws(MediaError) {
        try pcm.withLock { pcm throws(MediaError) in
            guard pcm == nil else { return }
            let opened = try ALSAPCM.open(device: device, direction: .playback, format: format,
                                          configuration: configuration, periods: periods,
                                          startFrames: 2 * format.samplesPerChannel)
            pcm = opened
            negotiated.withLock { $0 = opened.parameters }
            counters.withLock { $0 = PlaybackStatistics() }
        }
    }

    /// Queues one frame (its `samplesPerChannel` samples), waiting while the device
    /// buffer is full. Recovers and counts underruns.
    /// - Throws: `invalidArgument` before `start()` or for a frame of another channel
    ///   count or rate, `deviceLost` when the device goes away or stops taking samples,
    ///   `systemError` for other ALSA failures.
    public func write(_ frame: AudioFrame) throws(MediaError) {
        guard frame.format.channels == format.channels, frame.format.sampleRate == format.sampleRate else {
            throw MediaError(.invalidArgument, "frame is \(frame.format) but the speaker plays \(format)")
        }
        try pcm.withLock { pcm throws(MediaError) in
            guard let pcm else {
                throw MediaError(.invalidArgument, "ALSASpeaker.write called before start() or after stop()")
            }
            try play(pcm, frame)
        }
    }

    private func play(_ pcm: ALSAPCM, _ frame: AudioFrame) throws(MediaError) {
        let channels = format.channels
        let total = frame.samplesPerChannel
        var done = 0
        var stalledSince: UInt64?
        while done < total {
            let count = snd_pcm_writei(pcm.handle, frame.samples + done * channels, snd_pcm_uframes_t(total - done))
            if count > 0 {
                done += count
                stalledSince = nil
                continue
            }
            if count == 0 || count == -snd_pcm_sframes_t(EAGAIN) {
                let now = MonotonicClock.nanoseconds()
                if let since = stalledSince {
                    if now - since > UInt64(Self.stallMilliseconds) * 1_000_000 {
                        throw MediaError(.deviceLost, "audio playback device '\(device)' stopped taking samples for \(Self.stallMilliseconds) ms")
                    }
                } else {
                    stalledSince = now
                }
                let waited = pcm.wait(milliseconds: Self.stallMilliseconds)
                if waited < 0, try pcm.recover(waited) { countUnderrun() }
                continue
            }
            if try pcm.recover(Int32(truncatingIfNeeded: count)) { countUnderrun() }
        }
        counters.withLock { $0.framesWritten += 1 }
    }

    private func countUnderrun() {
        counters.withLock { $0.underruns += 1 }
    }

    /// Plays out what is queued (`snd_pcm_drain`, blocking for up to the buffer's length),
    /// then closes the device. Idempotent.
    public func stop() {
        pcm.withLock { pcm in
            if let open = pcm {
                snd_pcm_nonblock(open.handle, 0)
                snd_pcm_drain(open.handle)
            }
            pcm = nil
        }
        negotiated.withLock { $0 = nil }
    }

    /// Frames written and underruns recovered since `start()`. Cost: a lock and a copy.
    public var statistics: PlaybackStatistics { counters.withLock { $0 } }
}
