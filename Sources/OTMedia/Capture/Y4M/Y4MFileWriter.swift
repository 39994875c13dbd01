import Glibc

/// Writes I420 frames to a Y4M (YUV4MPEG2, C420jpeg) file that ffmpeg, GStreamer and
/// `Y4MFileSource` read. Cost per frame: rows written through stdio's buffer, no allocation.
public final class Y4MFileWriter {
    /// The size and rate written in the header.
    public let format: VideoFormat
    private var file: UnsafeMutablePointer<FILE>?
    /// Frames written so far.
    public private(set) var framesWritten = 0

    /// Creates (or truncates) `path` and writes the stream header.
    public init(path: String, format: VideoFormat) throws(MediaError) {
        try format.validate()
        guard let file = fopen(path, "wb") else {
            throw MediaError(.systemError, "cannot create '\(path)': \(String(cString: strerror(errno)))")
        }
        self.file = file
        self.format = format
        let header = "YUV4MPEG2 W\(format.width) H\(format.height) F\(format.frameRateNumerator):\(format.frameRateDenominator) Ip A1:1 C420jpeg\n"
        fputs(header, file)
    }

    deinit { close() }

    /// Appends one frame; it must have the header's size.
    public func write(_ frame: VideoFrame) throws(MediaError) {
        guard let file else { throw MediaError(.invalidArgument, "the Y4M writer is closed") }
        guard frame.width == format.width, frame.height == format.height else {
            throw MediaError(.invalidArgument, "frame is \(frame.width)x\(frame.height) but the file is \(format.width)x\(format.height)")
        }
        fputs("FRAME\n", file)
        var ok = true
        for row in 0..<frame.height { ok = ok && fwrite(frame.y + row * frame.strideY, 1, frame.width, file) == frame.width }
        for row in 0..<(2 * frame.chromaHeight) {
            // U's rows, then V's: V starts right after U in the frame's storage.
            let plane = row < frame.chromaHeight ? frame.u : frame.v
            let offset = (row % frame.chromaHeight) * frame.strideUV
            ok = ok && fwrite(plane + offset, 1, frame.chromaWidth, file) == frame.chromaWidth
        }
        guard ok else { throw MediaError(.systemError, "writing a Y4M frame failed: \(String(cString: strerror(errno)))") }
        framesWritten += 1
    }

    /// Flushes and closes the file. Idempotent.
    public func close() {
        if let file { fclose(file) }
        file = nil
    }
}
