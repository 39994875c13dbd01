/// How a composed archive ended: its file, true size and duration, and whether it failed.
/// Cost: a plain value.
public struct CompositionSummary: Sendable, Equatable {
    /// The MP4 file.
    public var path: String
    /// Its size in bytes (0 when nothing was written).
    public var size: Int
    /// The media time written, in milliseconds (video frames × frame time, or the audio's).
    public var durationMilliseconds: Int
    /// `.finished`, or `.failed(reason:)`.
    public var state: RecordingState
    /// The counters at the end.
    public var statistics: CompositionStatistics
}
