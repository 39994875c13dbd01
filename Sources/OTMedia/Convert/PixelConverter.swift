import CYUV

/// Turns one camera buffer (YUYV, NV12, YU12 or MJPEG) into an I420 `VideoFrame`.
///
/// One converter serves one stream of fixed size and layout; make it once when the
/// stream starts. Raw formats cost one libyuv SIMD pass (`YUY2ToI420`, `NV12ToI420`,
/// `I420Copy`); MJPEG costs a libturbojpeg decode (see `MJPEGDecoder` notes in the
/// source). Steady state allocates nothing: the JPEG decompressor and its scratch
/// buffer are made once and reused. Use from one thread at a time.
public final class PixelConverter {
    /// The input layout.
    public let pixelFormat: PixelFormat
    /// Input width in pixels (the output frame's width).
    public let width: Int
    /// Input height in pixels (the output frame's height).
    public let height: Int
    /// Bytes from one input row to the next (the first plane's, for planar formats);
    /// V4L2's `bytesperline`. Unused for MJPEG.
    public let bytesPerLine: Int
    private let jpeg: MJPEGDecoder?

    /// A converter for `width`x`height` input in `pixelFormat` whose rows are
    /// `bytesPerLine` apart (nil: tightly packed). Throws `invalidArgument` for a size
    /// or row length that cannot hold the picture, `codecFailure` if libturbojpeg fails.
    public init(pixelFormat: PixelFormat, width: Int, height: Int, bytesPerLine: Int? = nil) throws(MediaError) {
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw MediaError(.invalidArgument, "picture size \(width)x\(height) is out of range")
        }
        let packed: Int
        switch pixelFormat {
        case .yuyv: packed = width * 2
        case .nv12, .yu12: packed = width
        case .mjpeg: packed = 0
        }
        let rowBytes = bytesPerLine ?? packed
        guard rowBytes >= packed else {
            throw MediaError(.invalidArgument, "\(pixelFormat) rows of \(rowBytes) bytes cannot hold \(width) pixels")
        }
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.bytesPerLine = rowBytes
        self.jpeg = pixelFormat == .mjpeg ? try MJPEGDecoder() : nil
    }

    /// The fewest bytes one input buffer must have (1 for MJPEG, whose size varies).
    public var minimumInputByteCount: Int {
        let chromaHeight = (height + 1) / 2
        switch pixelFormat {
        case .yuyv: return bytesPerLine * height
        case .nv12: return bytesPerLine * (height + chromaHeight)
        case .yu12: return bytesPerLine * height + 2 * (bytesPerLine / 2) * chromaHeight
        case .mjpeg: return 1
        }
    }

    /// Converts `source` into `frame`, reshaping the frame to `width`x`height` first.
    /// Timestamp and sequence are left to the caller. Throws `invalidArgument` if the
    /// frame is too small or the buffer too short, `malformedInput` for a bad JPEG.
    public func convert(_ source: UnsafeRawBufferPointer, into frame: VideoFrame) throws(MediaError) {
        guard frame.reshape(width: width, height: height) else {
            throw MediaError(.invalidArgument, "a frame of \(frame.capacity) bytes cannot hold \(width)x\(height) I420")
        }
        guard let input = source.baseAddress?.assumingMemoryBound(to: UInt8.self),
              source.count >= minimumInputByteCount else {
            throw MediaError(.invalidArgument, "\(pixelFormat) buffer of \(source.count) bytes is shorter than \(width)x\(height) needs (\(minimumInputByteCount))")
        }
        let w = Int32(width), h = Int32(height)
        let strideY = Int32(frame.strideY), strideUV = Int32(frame.strideUV)
        let status: Int32
        switch pixelFormat {
        case .yuyv:
            status = YUY2ToI420(input, Int32(bytesPerLine), frame.y, strideY, frame.u, strideUV, frame.v, strideUV, w, h)
        case .nv12:
            status = NV12ToI420(input, Int32(bytesPerLine), input + bytesPerLine * height, Int32(bytesPerLine),
                                frame.y, strideY, frame.u, strideUV, frame.v, strideUV, w, h)
        case .yu12:
            let chromaStride = bytesPerLine / 2
            let u = input + bytesPerLine * height
            let v = u + chromaStride * ((height + 1) / 2)
            status = I420Copy(input, Int32(bytesPerLine), u, Int32(chromaStride), v, Int32(chromaStride),
                              frame.y, strideY, frame.u, strideUV, frame.v, strideUV, w, h)
        case .mjpeg:
            try jpeg!.decode(source, into: frame)
            status = 0
        }
        guard status == 0 else {
            throw MediaError(.invalidArgument, "libyuv refused to convert \(pixelFormat) \(width)x\(height)")
        }
    }

    /// Takes a frame from `pool` and converts `source` into it; nil when the pool has no
    /// free frame (the caller drops this picture and counts it). Same errors as
    /// `convert(_:into:)`.
    public func convert(_ source: UnsafeRawBufferPointer, from pool: VideoFramePool) throws(MediaError) -> VideoFrame? {
        guard let frame = pool.take() else { return nil }
        try convert(source, into: frame)
        return frame
    }
}
