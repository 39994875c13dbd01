import OTMedia

/// The video the codec scenario encodes, rendered into memory before any timing.
enum VideoContent: String, CaseIterable {
    /// OTKit's test pattern (`TestPatternRenderer`): scrolling gradient, chroma bars,
    /// a bouncing checkered box and the frame-number stamp. Clean and compressible.
    case pattern
    /// `CameraClip`: panning texture, moving shapes and ±2 LSB sensor noise, like the
    /// clip of the project's reference measurements (harder to encode).
    case camera

    /// `count` frames of `width`x`height` stamped at `frameRate` from t = 0.
    /// Cost: one VideoFrame per frame (1.4 MB each at 1280x720).
    func render(width: Int, height: Int, count: Int, frameRate: Double = 30) -> [VideoFrame] {
        switch self {
        case .camera:
            return CameraClip.render(width: width, height: height, count: count, frameRate: frameRate)
        case .pattern:
            return (0..<count).map { index in
                let frame = VideoFrame(width: width, height: height)
                TestPatternRenderer.render(UInt32(index), into: frame)
                frame.timestampNanoseconds = UInt64((Double(index) * 1e9 / frameRate).rounded())
                frame.sequence = UInt64(index)
                return frame
            }
        }
    }
}
