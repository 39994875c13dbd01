/// Lowers a captured frame rate to a target rate by dropping frames evenly, decided from
/// the frames' capture timestamps (not by counting frames), so a camera that delivers
/// 25 or 29.97 fps, or a jittery one, still yields the target rate on average.
///
/// Rule: frames are kept on a grid of `1 / frameRate` seconds. A frame is kept when its
/// timestamp is no more than a fifth of an interval before the next grid point (capture
/// jitter must not drop a frame that is merely a little early); keeping it advances the
/// grid by one interval. A gap longer than an interval (a stall, frames dropped upstream)
/// restarts the grid at the kept frame, and a timestamp far before the grid (a source
/// restart) resets it. At or above the source's rate every frame is kept.
///
/// Pure value, driven by the frames' own clock; `admit` is arithmetic only.
struct FrameRateDecimator: Sendable, Equatable {
    /// The rate frames are kept at; at or above the source's rate, every frame is kept.
    private(set) var frameRate: Double
    /// The source's nominal rate.
    let sourceFrameRate: Double
    private var interval: UInt64 = 0
    private var nextDue: UInt64?

    /// A decimator for a source running at `sourceFrameRate`, keeping every frame.
    init(sourceFrameRate: Double) {
        self.sourceFrameRate = sourceFrameRate
        frameRate = sourceFrameRate
    }

    /// Sets the rate to keep frames at. Rates at or above 99 % of the source's keep every
    /// frame. The grid carries on from the last kept frame.
    mutating func setFrameRate(_ rate: Double) {
        frameRate = rate
        if !rate.isFinite || rate <= 0 || rate >= sourceFrameRate * 0.99 {
            interval = 0
        } else {
            interval = UInt64((1_000_000_000 / rate).rounded())
        }
    }

    /// Whether every frame is kept.
    var keepsEveryFrame: Bool { interval == 0 }

    /// Whether the frame captured at `timestamp` (nanoseconds, monotonic) is kept.
    mutating func admit(timestamp: UInt64) -> Bool {
        guard interval > 0 else {
            nextDue = nil
            return true
        }
        guard let due = nextDue, timestamp &+ 2 &* interval >= due else {
            nextDue = timestamp &+ interval
            return true
        }
        if timestamp &+ interval / 5 < due { return false }
        nextDue = timestamp > due &+ interval ? timestamp &+ interval : due &+ interval
        return true
    }
}
