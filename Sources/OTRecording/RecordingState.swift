/// Where a `StreamRecorder` is. Cost: a plain value.
public enum RecordingState: Sendable, Equatable {
    /// Running, nothing written yet: waiting for the stream's first keyframe (video) or
    /// first packet (audio-only).
    case waitingForKeyframe
    /// Writing the file.
    case recording
    /// The file could not be created or written (`reason` in the system's words); packets
    /// are still taken and discarded, so producers are unaffected.
    case failed(reason: String)
    /// `finish()` closed the file.
    case finished
}
