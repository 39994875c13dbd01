/// The shape of PCM audio in the engine: interleaved signed 16-bit samples.
///
/// OTKit's engine runs at 48 kHz (Opus's native rate), mono or stereo, in 10 ms or
/// 20 ms frames. Cost: a value type of three integers.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// Samples per second per channel (48 000 in the engine).
    public var sampleRate: Int
    /// 1 (mono) or 2 (stereo).
    public var channels: Int
    /// Frame length in milliseconds: 10 or 20.
    public var frameMilliseconds: Int

    /// Creates a format; `validate()` says whether the engine accepts it.
    public init(sampleRate: Int = 48_000, channels: Int = 1, frameMilliseconds: Int = 20) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.frameMilliseconds = frameMilliseconds
    }

    /// 48 kHz mono, 20 ms frames.
    public static let mono20ms = AudioFormat(channels: 1, frameMilliseconds: 20)
    /// 48 kHz stereo, 20 ms frames.
    public static let stereo20ms = AudioFormat(channels: 2, frameMilliseconds: 20)
    /// 48 kHz mono, 10 ms frames.
    public static let mono10ms = AudioFormat(channels: 1, frameMilliseconds: 10)

    /// Samples per channel in one frame (960 for 20 ms at 48 kHz).
    public var samplesPerChannel: Int { sampleRate * frameMilliseconds / 1000 }
    /// Interleaved samples in one frame (`samplesPerChannel * channels`).
    public var samplesPerFrame: Int { samplesPerChannel * channels }

    /// Throws `MediaError.invalidArgument` unless this is 48 kHz, 1–2 channels, 10 or 20 ms.
    public func validate() throws(MediaError) {
        guard sampleRate == 48_000 else {
            throw MediaError(.invalidArgument, "sample rate \(sampleRate) Hz is not supported; the engine runs at 48000 Hz")
        }
        guard channels == 1 || channels == 2 else {
            throw MediaError(.invalidArgument, "\(channels) channels is not supported; use 1 (mono) or 2 (stereo)")
        }
        guard frameMilliseconds == 10 || frameMilliseconds == 20 else {
            throw MediaError(.invalidArgument, "\(frameMilliseconds) ms frames are not supported; use 10 or 20")
        }
    }

    /// "48000 Hz mono 20 ms".
    public var description: String {
        "\(sampleRate) Hz \(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) ch") \(frameMilliseconds) ms"
    }
}
