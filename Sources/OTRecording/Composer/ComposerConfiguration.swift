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
    }
}
