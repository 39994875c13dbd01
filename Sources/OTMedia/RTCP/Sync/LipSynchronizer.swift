/// Lines video up with audio from the sender reports of both streams: audio is the
/// master clock (a glitch in sound is worse than a late picture), and each video frame
/// is given the local time at which it shows the same instant as the audio playing then.
///
/// Feed it each stream's latest `SenderClockMapping` and, as audio plays, an anchor
/// (the RTP timestamp of the frame going out and the local time it plays). Until both
/// streams have a sender report, it gives no time and the caller shows frames at once.
///
/// Cost: a value type; a few integer operations per call.
public struct LipSynchronizer: Sendable, Equatable {
    /// The audio stream's latest mapping.
    public private(set) var audio: SenderClockMapping?
    /// The video stream's latest mapping.
    public private(set) var video: SenderClockMapping?
    private var anchorRTP: UInt32 = 0
    private var anchorLocal: UInt64 = 0
    private var hasAnchor = false

    /// Creates a synchronizer with nothing known yet.
    public init() {}

    /// Takes a new audio sender report.
    public mutating func updateAudio(_ mapping: SenderClockMapping) { audio = mapping }
    /// Takes a new video sender report.
    public mutating func updateVideo(_ mapping: SenderClockMapping) { video = mapping }

    /// Records that the audio frame stamped `rtpTimestamp` plays at `localNanoseconds`.
    public mutating func audioPlayed(rtpTimestamp: UInt32, at localNanoseconds: UInt64) {
        anchorRTP = rtpTimestamp
        anchorLocal = localNanoseconds
        hasAnchor = true
    }

    /// The local time at which the video frame stamped `rtpTimestamp` matches the audio,
    /// or nil when either stream has no sender report yet or no audio has played.
    public func renderTime(ofVideo rtpTimestamp: UInt32) -> UInt64? {
        guard let audio, let video, hasAnchor else { return nil }
        let offset = video.senderTime(of: rtpTimestamp) - audio.senderTime(of: anchorRTP)
        let local = Int64(anchorLocal) + offset
        return local > 0 ? UInt64(local) : 0
    }

    /// How far video leads (+) or lags (−) the audio playing now if the frame stamped
    /// `rtpTimestamp` is shown at `shownAt` (ns). Zero is perfect; EN 301 549 asks for
    /// under 100 ms either way.
    public func skew(ofVideo rtpTimestamp: UInt32, shownAt: UInt64) -> Int64? {
        renderTime(ofVideo: rtpTimestamp).map { Int64($0) - Int64(shownAt) }
    }
}
