import OTMedia
import OTRecording

/// Several archives' sinks behind the one a stream's forwarding thread feeds: every packet
/// and sender report goes to each (one copy into each ring), and it needs a keyframe while
/// any of them does. Immutable: a change of the set makes a new fan-out (`RecordingTaps`),
/// so the thread reads it without a lock. Cost per packet: one `enqueue` per sink.
final class RecordingFanOut: RecordingSink {
    /// The sinks fed, in the order the archives attached.
    let sinks: [any RecordingSink]

    /// A fan-out over `sinks`.
    init(_ sinks: [any RecordingSink]) { self.sinks = sinks }

    /// True when every sink took the packet.
    @discardableResult
    func enqueue(_ track: RecordingTrack, rtp packet: UnsafeRawBufferPointer, arrivalNanoseconds: UInt64) -> Bool {
        var all = true
        for sink in sinks where !sink.enqueue(track, rtp: packet, arrivalNanoseconds: arrivalNanoseconds) { all = false }
        return all
    }

    /// True when every sink took the report.
    @discardableResult
    func enqueueSenderReport(_ track: RecordingTrack, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32,
                             arrivalNanoseconds: UInt64) -> Bool {
        var all = true
        for sink in sinks where !sink.enqueueSenderReport(track, ntpTimestamp: ntpTimestamp, rtpTimestamp: rtpTimestamp,
                                                          arrivalNanoseconds: arrivalNanoseconds) {
            all = false
        }
        return all
    }

    /// True while any sink needs a keyframe.
    var needsKeyframe: Bool {
        for sink in sinks where sink.needsKeyframe { return true }
        return false
    }
}
