/// Which of a stream's two tracks a packet or sender report belongs to.
/// Cost: a plain value.
public enum RecordingTrack: UInt8, Sendable, Equatable {
    /// VP8 video (RTP clock 90 kHz).
    case video = 0
    /// Opus audio (RTP clock 48 kHz).
    case audio = 1

    /// The RTP clock rate of the track's payload format (RFC 7741, RFC 7587).
    public var clockRate: Int64 { self == .video ? 90_000 : 48_000 }
}
