/// Counters of one `StreamRecorder`, since it started. Cost: a plain value.
public struct RecordingStatistics: Sendable, Equatable {
    /// Packets and sender reports accepted by `enqueue…`.
    public var enqueued = 0
    /// Packets refused because the queue was full (the writer fell behind).
    public var droppedQueueFull = 0
    /// Packets refused because they were larger than a queue slot.
    public var droppedOversized = 0
    /// Queue entries the writer has handled.
    public var processed = 0
    /// VP8 frames written.
    public var videoFramesWritten = 0
    /// Complete VP8 frames not written: before the first keyframe, or after a loss until the next keyframe.
    public var videoFramesSkipped = 0
    /// Frames that could not be reassembled or were lost whole (each asks for a keyframe).
    public var videoFramesLost = 0
    /// Opus packets written.
    public var audioPacketsWritten = 0
    /// Opus packets not written because they came before the file's start.
    public var audioPacketsSkipped = 0
    /// RTP packets that came after their place in the order was given up, or twice.
    public var latePackets = 0
    /// RTP packets never received (holes the reorder window gave up on).
    public var missingPackets = 0
    /// Times a track's timestamps jumped so far that it was re-anchored on arrival.
    public var timestampDiscontinuities = 0

    /// Empty counters.
    public init() {}
}
