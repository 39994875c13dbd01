import OTMedia

/// Writes OTKit's test pattern (`TestPatternRenderer`, frame numbers stamped) to a Y4M
/// file, the input a GStreamer sender streams (`filesrc ! y4mdec`) so that whoever
/// decodes it can identify every frame and measure its PSNR.
///
/// Test support. Cost: one render and one write per frame (about 460 kB each at 640x480).
enum TestPatternY4M {
    /// Writes pictures `numbers` of the pattern at `format` to `path`.
    static func write(path: String, format: VideoFormat = VideoFormat(width: 640, height: 480, frameRate: 30),
                      numbers: Range<UInt32>) throws(MediaError) {
        let writer = try Y4MFileWriter(path: path, format: format)
        defer { writer.close() }
        let frame = VideoFrame(width: format.width, height: format.height)
        for number in numbers {
            TestPatternRenderer.render(number, into: frame)
            try writer.write(frame)
        }
    }
}
