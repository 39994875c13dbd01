import Foundation
import OTMedia
import Synchronization

/// Takes frames from a custom capturer into a publisher (`OTVideoCaptureConsumer`),
/// and is the engine `VideoSource` the publisher's video thread reads.
///
/// It holds at most one pending frame: a new frame replaces one the encoder has not
/// taken yet (counted in `statistics.framesDropped`), so the picture sent is always the
/// newest. Frames of another size than the capturer announced are dropped (counted).
/// Cost per frame: a lock, a reference handoff (no pixel copy) and a wake-up.
public final class OTVideoCaptureConsumer: VideoSource, @unchecked Sendable {
    /// The format the encoder is set up for (from the capturer's `captureSettings`).
    public let format: VideoFormat
    private let pool: VideoFramePool
    private let condition = NSCondition()
    private var pending: VideoFrame?
    private var running = false
    private var counters = CaptureStatistics()
    private var sequence: UInt64 = 0

    /// A consumer for frames of `format`.
    public init(format: VideoFormat) {
        self.format = format
        pool = VideoFramePool(width: format.width, height: format.height, initialCount: 2, maximumCount: 8)
    }

    /// A frame of the consumer's size from its pool (no allocation once the pool is
    /// warm), or nil when every pooled frame is in use.
    public func makeFrame() -> OTVideoFrame? { pool.take().map(OTVideoFrame.init(wrapping:)) }

    /// Hands one frame to the publisher (`consumeFrame:`). Do not write to it afterwards.
    public func consumeFrame(_ frame: OTVideoFrame) {
        let picture = frame.videoFrame
        condition.lock()
        defer { condition.unlock() }
        guard running else { return }
        guard picture.width == format.width, picture.height == format.height else {
            counters.framesDropped += 1
            return
        }
        if picture.timestampNanoseconds == 0 { picture.timestampNanoseconds = MonotonicClock.nanoseconds() }
        sequence += 1
        picture.sequence = sequence
        if pending != nil { counters.framesDropped += 1 }
        pending = picture
        condition.signal()
    }

    /// Starts accepting frames. Idempotent.
    public func start() throws(MediaError) {
        condition.lock()
        running = true
        counters = CaptureStatistics()
        condition.unlock()
    }

    /// The newest frame, waiting up to `timeoutMilliseconds`.
    public func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> VideoFrame? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(Double(timeoutMilliseconds) / 1000)
        while pending == nil && running {
            if !condition.wait(until: deadline) { break }
        }
        guard let frame = pending else { return nil }
        pending = nil
        counters.framesDelivered += 1
        return frame
    }

    /// Stops accepting frames and drops a pending one. Idempotent.
    public func stop() {
        condition.lock()
        running = false
        pending = nil
        condition.broadcast()
        condition.unlock()
    }

    /// Frames delivered to the encoder and dropped (replaced or of the wrong size).
    public var statistics: CaptureStatistics {
        condition.lock()
        defer { condition.unlock() }
        return counters
    }
}
