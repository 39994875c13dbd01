/// Real-time pacing for synthetic and file sources (audio and video): frame `n` becomes available
/// when its last sample would have been captured, `origin + (n + 1) × frame length`, and
/// is stamped with the time of its first sample, `origin + n × frame length`.
///
/// A reader that falls behind gets the overdue frames back to back (like a device
/// buffer draining), so the long-run rate stays exact. Unpaced, every frame is available
/// at once and the timestamps stay on the same synthetic timeline.
/// Cost: one clock read and at most one `clock_nanosleep` per frame; no allocation.
struct FramePacer: Sendable {
    /// Frame length in nanoseconds.
    let frameNanoseconds: UInt64
    /// False: never sleep.
    let paced: Bool
    /// Monotonic time of the first sample of frame 0.
    var origin: UInt64 = 0

    init(format: AudioFormat, paced: Bool) {
        self.init(frameNanoseconds: UInt64(format.frameMilliseconds) * 1_000_000, paced: paced)
    }

    init(frameNanoseconds: UInt64, paced: Bool) {
        self.frameNanoseconds = frameNanoseconds
        self.paced = paced
    }

    /// Starts the timeline now.
    mutating func reset() {
        origin = MonotonicClock.nanoseconds()
    }

    /// Sleeps until frame `index` is due. Returns false, after sleeping the whole timeout,
    /// when it is due later than `timeoutMilliseconds` from now.
    func waitForFrame(_ index: UInt64, timeoutMilliseconds: Int) -> Bool {
        guard paced else { return true }
        return Self.wait(until: origin + (index + 1) * frameNanoseconds, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Sleeps until `due` (monotonic ns) and returns true, or, when `due` is further away
    /// than the timeout, sleeps the whole timeout and returns false: a reader polling
    /// with a short timeout waits instead of spinning.
    static func wait(until due: UInt64, timeoutMilliseconds: Int) -> Bool {
        let now = MonotonicClock.nanoseconds()
        guard due > now else { return true }
        let limit = now + UInt64(min(max(0, timeoutMilliseconds), 86_400_000)) * 1_000_000
        if due > limit {
            MonotonicClock.sleep(until: limit)
            return false
        }
        MonotonicClock.sleep(until: due)
        return true
    }

    /// The capture time of frame `index`'s first sample.
    func timestamp(ofFrame index: UInt64) -> UInt64 {
        origin + index * frameNanoseconds
    }
}
