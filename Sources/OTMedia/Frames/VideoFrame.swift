/// A picture in I420 (planar Y, then U and V at half width and height), with strides.
///
/// Frames come from a `VideoFramePool` and go back to it when the last reference is
/// dropped, so a steady capture or decode loop allocates nothing. A frame has one
/// writer at a time: whoever took it from the pool fills it, then hands it on; readers
/// on other threads only read. That contract is why it is `@unchecked Sendable`.
public final class VideoFrame: @unchecked Sendable {
    /// Width in pixels.
    public private(set) var width: Int
    /// Height in pixels.
    public private(set) var height: Int
    /// Bytes from one row of Y to the next (≥ width, a multiple of 32).
    public private(set) var strideY: Int
    /// Bytes from one row of U (or V) to the next (≥ width / 2, a multiple of 32).
    public private(set) var strideUV: Int
    /// When the frame was captured, on the monotonic clock, in nanoseconds
    /// (`MonotonicClock`). For cameras this is the driver's timestamp.
    public var timestampNanoseconds: UInt64 = 0
    /// The source's frame counter (the driver's sequence number for V4L2 cameras).
    public var sequence: UInt64 = 0

    private let storage: AlignedBuffer

    /// The bytes this frame can hold; `reshape` fails above it.
    public var capacity: Int { storage.count }

    /// Creates a frame with room for `capacity` bytes (at least what `width`x`height`
    /// needs). Cost: one aligned allocation; prefer `VideoFramePool.take`.
    public init(width: Int, height: Int, capacity: Int? = nil) {
        precondition(width > 0 && height > 0, "frame dimensions must be positive")
        let layout = Self.layout(width: width, height: height)
        self.storage = AlignedBuffer(count: max(capacity ?? 0, layout.total))
        self.width = width
        self.height = height
        self.strideY = layout.strideY
        self.strideUV = layout.strideUV
    }

    /// The Y plane: `height` rows of `strideY` bytes.
    public var y: UnsafeMutablePointer<UInt8> { storage.base.assumingMemoryBound(to: UInt8.self) }
    /// The U (Cb) plane: `chromaHeight` rows of `strideUV` bytes.
    public var u: UnsafeMutablePointer<UInt8> { y + strideY * height }
    /// The V (Cr) plane: `chromaHeight` rows of `strideUV` bytes.
    public var v: UnsafeMutablePointer<UInt8> { u + strideUV * chromaHeight }
    /// Width of the U and V planes: `(width + 1) / 2`.
    public var chromaWidth: Int { (width + 1) / 2 }
    /// Height of the U and V planes: `(height + 1) / 2`.
    public var chromaHeight: Int { (height + 1) / 2 }

    /// Changes the dimensions in place when the storage is big enough; returns false
    /// (and changes nothing) when it is not. Cost: arithmetic only.
    @discardableResult
    public func reshape(width: Int, height: Int) -> Bool {
        let layout = Self.layout(width: width, height: height)
        guard width > 0, height > 0, layout.total <= storage.count else { return false }
        self.width = width
        self.height = height
        self.strideY = layout.strideY
        self.strideUV = layout.strideUV
        return true
    }

    /// The Y value at (x, y). Cost: one bounds check and a load; for tests and tools.
    public func luma(x: Int, y row: Int) -> UInt8 {
        precondition(x >= 0 && x < width && row >= 0 && row < height, "pixel out of range")
        return y[row * strideY + x]
    }

    /// Bytes needed for an I420 frame of this size with 32-byte aligned strides.
    public static func byteCount(width: Int, height: Int) -> Int { layout(width: width, height: height).total }

    private static func layout(width: Int, height: Int) -> (strideY: Int, strideUV: Int, total: Int) {
        let strideY = (width + 31) & ~31
        let strideUV = ((width + 1) / 2 + 31) & ~31
        let total = strideY * height + 2 * strideUV * ((height + 1) / 2)
        return (strideY, strideUV, total)
    }
}
