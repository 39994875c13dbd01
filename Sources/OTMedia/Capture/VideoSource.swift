/// Where pictures come from: a camera, a test pattern, a file. The engine side of
/// OpenTok's custom video capturer.
///
/// Sources are pull-based: a capture thread calls `nextFrame` in a loop. Each frame
/// comes from the source's pool and goes back when dropped; a source that is read too
/// slowly drops frames (counted in `statistics`) rather than queue them, so what the
/// reader gets is always the newest picture.
public protocol VideoSource: AnyObject, Sendable {
    /// The format frames come out in, after negotiation (exact numbers).
    var format: VideoFormat { get }

    /// Starts capture (opens streams, allocates buffers). Idempotent.
    func start() throws(MediaError)

    /// The next frame, waiting at most `timeoutMilliseconds` (nil on timeout).
    /// Throws `deviceLost` when the device goes away and `endOfStream` when a file ends.
    func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> VideoFrame?

    /// Stops capture and releases the device. Idempotent; frames already handed out
    /// stay valid.
    func stop()

    /// Counters since `start`, readable from any thread.
    var statistics: CaptureStatistics { get }
}

/// Counters every source keeps. Cost: a value copy of four integers.
public struct CaptureStatistics: Sendable, Equatable {
    /// Frames handed to the reader.
    public var framesDelivered: UInt64 = 0
    /// Frames lost before the reader saw them: sequence gaps reported by the driver,
    /// and frames dropped because the pool was exhausted.
    public var framesDropped: UInt64 = 0
    /// ALSA over- or under-runs recovered (audio sources), or driver errors recovered.
    public var overruns: UInt64 = 0
    /// Frames whose data the device flagged as bad (V4L2_BUF_FLAG_ERROR).
    public var corruptFrames: UInt64 = 0

    /// All zeros.
    public init() {}
}
