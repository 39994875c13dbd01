/// Where sound comes from: a microphone, a tone, a file. The engine side of OpenTok's
/// custom audio driver (capture half).
///
/// Pull-based like `VideoSource`: a capture thread calls `nextFrame` in a loop and gets
/// frames of exactly `format` (10 or 20 ms, 48 kHz, interleaved S16).
public protocol AudioSource: AnyObject, Sendable {
    /// The format of every frame this source returns.
    var format: AudioFormat { get }

    /// Opens the device or file. Throws `audioUnavailable` on a machine with no sound
    /// card, which callers treat as "publish without audio", not as fatal.
    func start() throws(MediaError)

    /// The next frame, waiting at most `timeoutMilliseconds` (nil on timeout).
    func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> AudioFrame?

    /// Closes the device. Idempotent.
    func stop()

    /// Counters since `start` (frames, overruns recovered).
    var statistics: CaptureStatistics { get }
}

/// Where sound goes: a speaker, a file. The playback half of OpenTok's audio driver.
public protocol AudioSink: AnyObject, Sendable {
    /// The format the sink expects.
    var format: AudioFormat { get }

    /// Opens the device or file. Idempotent.
    func start() throws(MediaError)

    /// Writes one frame; may block for about one frame's duration on a device.
    func write(_ frame: AudioFrame) throws(MediaError)

    /// Flushes and closes. Idempotent.
    func stop()
}
