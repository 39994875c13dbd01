import OTMedia

/// Turns one track's RTP timestamps into times on the recorder's clock (the monotonic
/// arrival clock), so audio and video of a stream land on one timeline.
///
/// Before the track's first sender report its first packet anchors it (RTP timestamp ↔
/// arrival time). A sender report re-anchors it through the sender's wall clock (NTP ↔
/// RTP), shifted onto the arrival clock by one offset shared by the stream's tracks: so
/// two tracks stamped by one sender line up as the sender captured them, whatever their
/// network delays. Timestamps are taken modulo 2^32 around the anchor (the wrap is a
/// normal step), the anchor is moved forward as time passes, and a timestamp that lands
/// more than `discontinuityNanoseconds` from its arrival (a sender restart, a reset
/// clock) re-anchors on arrival rather than making the file's clock jump.
///
/// Cost: a few integer operations per packet. One thread.
struct TrackTimeline {
    let clockRate: Int
    let discontinuityNanoseconds: Int64
    private var mapping: SenderClockMapping?
    /// True once a sender report anchors the track.
    private(set) var synchronized = false
    /// Re-anchorings on arrival after a discontinuity.
    private(set) var discontinuities = 0

    init(track: RecordingTrack, discontinuityNanoseconds: Int64 = 3_000_000_000) {
        clockRate = Int(track.clockRate)
        self.discontinuityNanoseconds = discontinuityNanoseconds
    }

    /// The time (arrival clock, ns) of the sample stamped `rtp` that arrived at `arrival`.
    mutating func time(of rtp: UInt32, arrival: Int64) -> Int64 {
        guard let current = mapping else {
            mapping = SenderClockMapping(senderNanoseconds: arrival, rtpTimestamp: rtp, clockRate: clockRate)
            return arrival
        }
        let time = current.senderTime(of: rtp)
        if abs(time - arrival) > discontinuityNanoseconds {
            discontinuities += 1
            synchronized = false
            mapping = SenderClockMapping(senderNanoseconds: arrival, rtpTimestamp: rtp, clockRate: clockRate)
            return arrival
        }
        // Keep the anchor within 2^30 ticks so `senderTime` never crosses its ±2^31 range.
        if abs(Int64(RTPSerial.distance(from: current.rtpTimestamp, to: rtp))) > 1 << 30 {
            mapping = SenderClockMapping(senderNanoseconds: time, rtpTimestamp: rtp, clockRate: clockRate)
        }
        return time
    }

    /// Anchors the track on a sender report: `rtp` was the sender's RTP clock at
    /// `time` (the report's NTP time moved onto the arrival clock).
    mutating func apply(senderReportTime time: Int64, rtp: UInt32) {
        mapping = SenderClockMapping(senderNanoseconds: time, rtpTimestamp: rtp, clockRate: clockRate)
        synchronized = true
    }
}
