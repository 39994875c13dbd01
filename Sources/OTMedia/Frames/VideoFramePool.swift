/// A pool of I420 frames of one size (frames can be reshaped smaller in place).
///
/// `take()` returns a frame nobody else holds, or nil when every frame is in use; the
/// capture path then drops the newest frame rather than queue (DESIGN: a latency
/// budget beats a queue). Cost: see `RecyclingPool`.
public final class VideoFramePool: Sendable {
    /// Width of the frames this pool makes.
    public let width: Int
    /// Height of the frames this pool makes.
    public let height: Int
    private let pool: RecyclingPool<VideoFrame>

    /// A pool of `width`x`height` frames, `initialCount` made now and at most
    /// `maximumCount` ever.
    public init(width: Int, height: Int, initialCount: Int = 2, maximumCount: Int = 6) {
        self.width = width
        self.height = height
        self.pool = RecyclingPool(initialCount: initialCount, maximumCount: maximumCount) {
            VideoFrame(width: width, height: height)
        }
    }

    /// A free frame, reshaped to the pool's size, or nil when all are in use.
    public func take() -> VideoFrame? {
        guard let frame = pool.take() else { return nil }
        frame.reshape(width: width, height: height)
        return frame
    }

    /// How many frames the pool has made (it stops growing in steady state).
    public var createdCount: Int { pool.createdCount }
}
