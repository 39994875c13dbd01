/// One frame of PCM audio: interleaved S16 samples in a fixed, reusable buffer.
///
/// Like `VideoFrame`, audio frames come from a pool (`AudioFramePool`) and return to it
/// when dropped; one writer fills a frame before handing it on.
public final class AudioFrame: @unchecked Sendable {
    /// The format of the samples (rate, channels, frame length).
    public private(set) var format: AudioFormat
    /// Samples per channel actually held (normally `format.samplesPerChannel`; a file's
    /// last frame may be shorter).
    public var samplesPerChannel: Int
    /// When the first sample was captured, monotonic clock, nanoseconds.
    public var timestampNanoseconds: UInt64 = 0
    /// The source's frame counter.
    public var sequence: UInt64 = 0

    private let storage: AlignedBuffer
    /// The most interleaved samples this frame can hold.
    public let capacity: Int

    /// A frame with room for one frame of `format`. Cost: one allocation; prefer the pool.
    public init(format: AudioFormat, capacity: Int? = nil) {
        self.format = format
        self.samplesPerChannel = format.samplesPerChannel
        self.capacity = max(capacity ?? 0, format.samplesPerFrame)
        self.storage = AlignedBuffer(count: self.capacity * MemoryLayout<Int16>.stride)
    }

    /// The interleaved samples: `samplesPerChannel * format.channels` of them are valid.
    public var samples: UnsafeMutablePointer<Int16> { storage.base.assumingMemoryBound(to: Int16.self) }

    /// The valid samples as a buffer (no copy).
    public var buffer: UnsafeMutableBufferPointer<Int16> {
        UnsafeMutableBufferPointer(start: samples, count: samplesPerChannel * format.channels)
    }

    /// Switches to another format if the storage is big enough; false otherwise.
    @discardableResult
    public func reshape(_ format: AudioFormat) -> Bool {
        guard format.samplesPerFrame <= capacity else { return false }
        self.format = format
        self.samplesPerChannel = format.samplesPerChannel
        return true
    }
}

/// A pool of audio frames of one format. Cost: see `RecyclingPool`.
public final class AudioFramePool: Sendable {
    /// The format of the frames.
    public let format: AudioFormat
    private let pool: RecyclingPool<AudioFrame>

    /// A pool of frames of `format`, at most `maximumCount` ever made.
    public init(format: AudioFormat, initialCount: Int = 2, maximumCount: Int = 8) {
        self.format = format
        self.pool = RecyclingPool(initialCount: initialCount, maximumCount: maximumCount) {
            AudioFrame(format: format)
        }
    }

    /// A free frame of the pool's format, or nil when all are in use.
    public func take() -> AudioFrame? {
        guard let frame = pool.take() else { return nil }
        frame.reshape(format)
        return frame
    }

    /// How many frames the pool has made.
    public var createdCount: Int { pool.createdCount }
}
