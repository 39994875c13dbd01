import Synchronization

/// A synthetic camera: the test pattern (`TestPatternRenderer`) at any size and rate,
/// with the frame number stamped into each picture. Stands in for a camera on machines
/// that have none, and lets receivers identify every decoded frame.
///
/// Paced sources deliver frames on the frame clock (`MonotonicClock`), as a camera
/// would; unpaced ones (`paced: false`) as fast as they are read, for tests and
/// benchmarks. Cost per frame: one render (see `TestPatternRenderer`), no allocation.
public final class TestPatternSource: VideoSource, Sendable {
    /// The size and rate of the frames.
    public let format: VideoFormat
    /// Whether `nextFrame` waits for the frame clock.
    public let paced: Bool
    private let pool: VideoFramePool
    private let state = Mutex(State())

    private struct State {
        var started = false
        var nextNumber: UInt32 = 0
        var startTime: UInt64 = 0
        /// The frame number shown at `startTime`.
        var baseNumber: UInt32 = 0

        mutating func startClock() {
            started = true
            startTime = MonotonicClock.nanoseconds()
            baseNumber = nextNumber
        }
        var statistics = CaptureStatistics()
    }

    /// A test pattern of `format`; the first frame carries `firstFrameNumber`.
    public init(format: VideoFormat, paced: Bool = true, firstFrameNumber: UInt32 = 0) throws(MediaError) {
        try format.validate()
        self.format = format
        self.paced = paced
        self.pool = VideoFramePool(width: format.width, height: format.height, initialCount: 2, maximumCount: 4)
        state.withLock { $0.nextNumber = firstFrameNumber }
    }

    /// Starts the frame clock. Idempotent.
    public func start() throws(MediaError) {
        state.withLock { state in
            guard !state.started else { return }
            state.startClock()
            state.statistics = CaptureStatistics()
        }
    }

    /// The next picture: waits for its time on the frame clock when paced (returns nil
    /// if that is further away than `timeoutMilliseconds`). When the reader is late, a
    /// paced source skips the pictures it missed (counted as dropped), like a camera.
    public func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> VideoFrame? {
        let (number, due) = state.withLock { state -> (UInt32, UInt64) in
            if !state.started { state.startClock() }
            let elapsedFrames = UInt64(state.nextNumber &- state.baseNumber)
            return (state.nextNumber, state.startTime + elapsedFrames * format.frameIntervalNanoseconds)
        }
        var frameNumber = number
        var timestamp = MonotonicClock.nanoseconds()
        if paced {
            if due > timestamp {
                guard FramePacer.wait(until: due, timeoutMilliseconds: timeoutMilliseconds) else { return nil }
                timestamp = due
            } else {
                // Late: jump to the picture the clock is at now.
                let interval = max(format.frameIntervalNanoseconds, 1)
                let behind = UInt32(truncatingIfNeeded: (timestamp - due) / interval)
                frameNumber = number &+ behind
                state.withLock { $0.statistics.framesDropped += UInt64(behind) }
            }
        }
        guard let frame = pool.take() else {
            state.withLock { $0.statistics.framesDropped += 1; $0.nextNumber = frameNumber &+ 1 }
            return nil
        }
        TestPatternRenderer.render(frameNumber, into: frame)
        frame.sequence = UInt64(frameNumber)
        frame.timestampNanoseconds = timestamp
        state.withLock {
            $0.nextNumber = frameNumber &+ 1
            $0.statistics.framesDelivered += 1
        }
        return frame
    }

    /// Stops the frame clock; the next `nextFrame` restarts it.
    public func stop() {
        state.withLock { $0.started = false }
    }

    /// Frames delivered and skipped.
    public var statistics: CaptureStatistics { state.withLock { $0.statistics } }
}
