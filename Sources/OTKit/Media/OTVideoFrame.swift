import OTMedia

/// A picture going into a publisher (`OTVideoCaptureConsumer.consumeFrame`) or coming
/// out of a subscriber (`OTVideoRender.renderVideoFrame`) (`OTVideoFrame`). It wraps
/// the engine's pooled I420 `VideoFrame` without copying: a frame made here or taken
/// from a consumer's `makeFrame()` goes to the encoder as is, and a decoded frame is
/// handed to the renderer as is.
///
/// One writer at a time: fill a frame, hand it to `consumeFrame`, then do not write to
/// it again (take a new one). Renderers may keep a frame; it returns to its pool when
/// the last reference goes.
public final class OTVideoFrame: @unchecked Sendable {
    /// The engine frame holding the pixels (no copy).
    public var videoFrame: VideoFrame { storage! }
    /// The frame's format (I420, its size and strides). Built when asked for (it holds
    /// an array), so the per-frame paths that never read it do not pay for it.
    public var format: OTVideoFormat {
        let frame = videoFrame
        return OTVideoFormat(name: "I420", pixelFormat: .i420, bytesPerRow: [frame.strideY, frame.strideUV, frame.strideUV],
                             imageWidth: frame.width, imageHeight: frame.height)
    }
    /// Which way up the picture is.
    public var orientation: OTVideoOrientation = .up
    /// Capture time on the monotonic clock, nanoseconds (CMTime on iOS).
    public var timestampNanoseconds: UInt64 {
        get { videoFrame.timestampNanoseconds }
        set { videoFrame.timestampNanoseconds = newValue }
    }
    /// Nil only between two uses of a reused wrapper (see `wrap(_:reusing:)`).
    private var storage: VideoFrame?

    /// A new I420 frame of `format`'s size (`initWithFormat:`). Cost: one aligned
    /// allocation; in a loop prefer `OTVideoCaptureConsumer.makeFrame()` (pooled).
    /// Returns nil for a format that is not I420 or has no pixels.
    public convenience init?(format: OTVideoFormat) {
        guard format.pixelFormat == .i420, format.imageWidth > 0, format.imageHeight > 0 else { return nil }
        self.init(wrapping: VideoFrame(width: format.imageWidth, height: format.imageHeight))
    }

    /// Wraps an engine frame (no copy), e.g. one from a `TestPatternSource`.
    public init(wrapping frame: VideoFrame) {
        storage = frame
    }

    /// `frame` in a wrapper for one hand-over on a per-frame path: `reusing` is re-pointed
    /// when nobody else kept it since the last frame, else replaced by a new wrapper, so a
    /// renderer or consumer that lets frames go costs no allocation per frame.
    static func wrap(_ frame: VideoFrame, reusing wrapper: inout OTVideoFrame?) -> OTVideoFrame {
        if isKnownUniquelyReferenced(&wrapper), let reusable = wrapper {
            reusable.storage = frame
            reusable.orientation = .up
            return reusable
        }
        let fresh = OTVideoFrame(wrapping: frame)
        wrapper = fresh
        return fresh
    }

    /// After a hand-over: lets go of the pixels if nobody kept the wrapper, so the engine
    /// frame returns to its pool now rather than with the next frame.
    static func release(_ wrapper: inout OTVideoFrame?) {
        if isKnownUniquelyReferenced(&wrapper) { wrapper?.storage = nil }
    }

    /// The three plane pointers, Y, U, V (`planes`).
    public var planes: [UnsafeMutablePointer<UInt8>] { [videoFrame.y, videoFrame.u, videoFrame.v] }

    /// Bytes per row of plane `index` (0 = Y, 1 = U, 2 = V) (`getPlaneStride:`); 0 for other indices.
    public func planeStride(_ index: Int) -> Int {
        switch index {
        case 0: return videoFrame.strideY
        case 1, 2: return videoFrame.strideUV
        default: return 0
        }
    }

    /// Copies pixels in from three planes with their own strides (`setPlanesWithPointers:`).
    /// Cost: one row-by-row copy of the picture.
    public func setPlanes(y: UnsafePointer<UInt8>, strideY: Int, u: UnsafePointer<UInt8>, strideU: Int,
                          v: UnsafePointer<UInt8>, strideV: Int) {
        let frame = videoFrame
        for row in 0..<frame.height {
            (frame.y + row * frame.strideY).update(from: y + row * strideY, count: frame.width)
        }
        for row in 0..<frame.chromaHeight {
            (frame.u + row * frame.strideUV).update(from: u + row * strideU, count: frame.chromaWidth)
            (frame.v + row * frame.strideUV).update(from: v + row * strideV, count: frame.chromaWidth)
        }
    }

    /// Sets every pixel to black (`clearPlanes` stands for releasing external planes on
    /// iOS; here the planes are owned). Cost: one memset per plane.
    public func clearPlanes() {
        let frame = videoFrame
        frame.y.update(repeating: 16, count: frame.strideY * frame.height)
        frame.u.update(repeating: 128, count: frame.strideUV * frame.chromaHeight)
        frame.v.update(repeating: 128, count: frame.strideUV * frame.chromaHeight)
    }
}
