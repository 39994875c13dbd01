/// What a finished recording left: the file, its true size and length, and where it sits
/// on the recorder's clock (for manifest offsets). Cost: a plain value.
public struct RecordingSummary: Sendable, Equatable {
    /// The WebM file's path.
    public var path: String
    /// Bytes on disk after `finish()` (0 when the file could not be created).
    public var size: Int
    /// Media time in the file, in milliseconds (last timestamp plus its frame duration).
    public var durationMilliseconds: Int
    /// The monotonic time (ns, arrival clock) the file's time 0 corresponds to; nil when
    /// nothing was written.
    public var startNanoseconds: UInt64?
    /// `startNanoseconds` + the duration; nil when nothing was written.
    public var stopNanoseconds: UInt64?
    /// `.finished`, or `.failed` with the reason.
    public var state: RecordingState
    /// The counters at the end.
    public var statistics: RecordingStatistics

    /// A summary with every field given.
    public init(path: String, size: Int, durationMilliseconds: Int, startNanoseconds: UInt64?, stopNanoseconds: UInt64?,
                state: RecordingState, statistics: RecordingStatistics) {
        self.path = path
        self.size = size
        self.durationMilliseconds = durationMilliseconds
        self.startNanoseconds = startNanoseconds
        self.stopNanoseconds = stopNanoseconds
        self.state = state
        self.statistics = statistics
    }
}
