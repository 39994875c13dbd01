import OTMedia

/// What a forwarding thread feeds a recording with: one stream's RTP packets and sender
/// reports, and whether the recording waits for a keyframe (then the router sends the
/// publisher a PLI). `StreamRecorder` (individual archives) and `ComposerStreamInput`
/// (one stream of a composed archive) are the two. Implementations copy into a bounded,
/// preallocated queue and return at once: they never block, never allocate, and drop
/// (and count) when full. Cost: one existential call per packet.
public protocol RecordingSink: AnyObject, Sendable {
    /// Queues one RTP packet of `track` that arrived at `arrivalNanoseconds` (`MonotonicClock`).
    /// False when it was dropped.
    @discardableResult
    func enqueue(_ track: RecordingTrack, rtp packet: UnsafeRawBufferPointer, arrivalNanoseconds: UInt64) -> Bool

    /// Queues a sender report's NTP/RTP pair for `track`. False when it was dropped.
    @discardableResult
    func enqueueSenderReport(_ track: RecordingTrack, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32,
                             arrivalNanoseconds: UInt64) -> Bool

    /// True while the recording needs a keyframe of the stream. One atomic load.
    var needsKeyframe: Bool { get }
}

extension StreamRecorder: RecordingSink {}
