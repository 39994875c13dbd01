/// How an `ArchiveComposer` records a composed archive. Cost: a plain value.
public struct ComposerConfiguration: Sendable, Equatable {
    /// The MP4 file to create (its directory must exist and be writable).
    public var path: String
    /// The canvas (the archive's `resolution`).
    public var canvas: CanvasResolution = .standard
    /// The layout at the start (changeable with `ArchiveComposer.setLayout`).
    public var layout: CompositionLayout = .standard
    /// Output frames per second (a divisor of 48,000: 30, 25, 15…).
    public var frameRate = 30
    /// Write a video track.
    public var hasVideo = true
    /// Write an audio track (every stream's audio mixed).
    public var hasAudio = true
    /// H.264 bitrate, bits per second; 0 picks one from the canvas (≈ 0.1 bit per pixel at 30 fps).
    public var videoBitrate = 0
    /// Ring slots per stream between the forwarding thread and the composer (each `slotSize` bytes).
    public var queueCapacity = 512
    /// Threads libx264 encodes with. 0 (the default): x264's own count (1.5 per core, frame
    /// threads), so the encode spreads over cores and a composer on a busy machine stays
    /// nearer real time, for some more CPU in all (hand-offs, a lookahead thread). 1: the
    /// composer's own thread alone, the least CPU per archive; `veryfast` needs about half
    /// a core for a 1280x720 canvas at 30 fps on a 2026 VM, the four decodes a sixth.
    public var encoderThreads = 0
    /// Output frames the composer may fall behind real time before it skips video frames
    /// (it then writes each skipped instant's audio only, so the file's clock never
    /// stretches). 2 by default: a live archive stays within about 70 ms of real time. A
    /// larger value lets a composer on a loaded machine lag (packets wait in the input
    /// rings, each stream's audio ring grows by the lag, up to a minute) and compose every
    /// frame later, catching up at `finish`. Keep it under 30 s × `frameRate`.
    public var lateFramesBeforeSkipping = 2
    /// The largest RTP packet accepted, in bytes.
    public var slotSize = 1500
    /// Packets that may wait behind a missing one before it is given up (per track).
    public var reorderDepth = 4
    /// How long (arrival time) packets may wait behind a missing one.
    public var reorderTimeoutNanoseconds: UInt64 = 60_000_000
    /// The placeholder colour of a stream without a picture (audio-only, or before its
    /// first keyframe), as Y, U, V: a dark slate grey by default.
    public var placeholderYUV: (UInt8, UInt8, UInt8) = (56, 136, 120)

    /// A configuration writing `path` with the defaults above.
    public init(path: String) { self.path = path }

    /// The H.264 bitrate used.
    public var effectiveVideoBitrate: Int {
        videoBitrate > 0 ? videoBitrate : max(300_000, canvas.width * canvas.height * frameRate / 10)
    }

    /// Compares every field (the tuple is compared by its parts).
    public static func == (lhs: ComposerConfiguration, rhs: ComposerConfiguration) -> Bool {
        lhs.path == rhs.path && lhs.canvas == rhs.canvas && lhs.layout == rhs.layout && lhs.frameRate == rhs.frameRate
            && lhs.hasVideo == rhs.hasVideo && lhs.hasAudio == rhs.hasAudio && lhs.videoBitrate == rhs.videoBitrate
            && lhs.queueCapacity == rhs.queueCapacity && lhs.slotSize == rhs.slotSize && lhs.reorderDepth == rhs.reorderDepth
            && lhs.reorderTimeoutNanoseconds == rhs.reorderTimeoutNanoseconds && lhs.placeholderYUV == rhs.placeholderYUV
            && lhs.encoderThreads == rhs.encoderThreads && lhs.lateFramesBeforeSkipping == rhs.lateFramesBeforeSkipping
    }
}
