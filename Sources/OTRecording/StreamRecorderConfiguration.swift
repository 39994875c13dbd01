/// How a `StreamRecorder` records one stream. Cost: a plain value.
public struct StreamRecorderConfiguration: Sendable, Equatable {
    /// The WebM file to create (its directory must exist and be writable).
    public var path: String
    /// Record the VP8 track (the file then starts at its first keyframe).
    public var hasVideo = true
    /// Record the Opus track.
    public var hasAudio = true
    /// Channel count written in OpusHead (WebRTC's opus/48000/2 is 2; decoders mix either way).
    public var audioChannels = 2
    /// Queue slots between the producer and the writer (each `slotSize` bytes, allocated once).
    public var queueCapacity = 1024
    /// The largest RTP packet accepted, in bytes.
    public var slotSize = 1500
    /// Packets that may wait behind a missing one before it is given up (per track).
    public var reorderDepth = 4
    /// How long (arrival time) packets may wait behind a missing one.
    public var reorderTimeoutNanoseconds: UInt64 = 60_000_000
    /// The longest WebM cluster: at most this much is lost when the process is killed.
    public var clusterMilliseconds = 500

    /// A configuration writing `path` with the defaults above.
    public init(path: String) { self.path = path }
}
