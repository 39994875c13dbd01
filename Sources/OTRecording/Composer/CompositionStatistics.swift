/// What a composer did, for logs and tests. Cost: a plain value.
public struct CompositionStatistics: Sendable, Equatable {
    /// Video frames composed and encoded.
    public var framesComposed = 0
    /// Output frames skipped because the composer was behind real time (their audio is still written).
    public var framesSkipped = 0
    /// Audio samples (48 kHz) mixed and encoded.
    public var audioSamples = 0
    /// Stream video frames decoded.
    public var streamFramesDecoded = 0
    /// Stream video frames lost, skipped before a keyframe or rejected by the decoder.
    public var streamFramesDiscarded = 0
    /// Stream audio packets decoded.
    public var streamAudioPackets = 0
    /// Decoded stream audio samples that found no place on the timeline: already played (they
    /// came too late) or beyond the two-second playout ring (the composer far behind).
    public var audioSamplesDropped = 0
    /// The most output frames the composer was ever behind real time (see
    /// `ComposerConfiguration.lateFramesBeforeSkipping`).
    public var maximumLateFrames = 0
    /// Packets dropped at the inputs (a ring was full: the composer fell behind) or oversized.
    public var droppedPackets = 0
    /// Streams added over the archive's life.
    public var streamsAdded = 0
    /// Layout changes applied (type changes and class changes).
    public var layoutChanges = 0

    /// All zero.
    public init() {}
}
