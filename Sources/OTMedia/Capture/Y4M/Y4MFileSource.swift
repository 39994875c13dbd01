import Glibc
import Synchronization

/// A video source reading a Y4M (YUV4MPEG2, 8-bit 4:2:0) file, paced at the file's
/// frame rate or as fast as read, optionally looping.
///
/// Cost per frame: one buffered read of the frame (stdio), rows copied once into a
/// pooled frame; no allocation in steady state.
public final class Y4MFileSource: VideoSource, @unchecked Sendable {
    /// The file's size and rate.
    public let format: VideoFormat
    /// The file's path.
    public let path: String
    /// Whether frames come on the file's frame clock.
    public let paced: Bool
    /// Whether the file starts again at its end instead of ending the stream.
    public let loops: Bool

    private let pool: VideoFramePool
    // The reader thread owns the file; `lock` guards only the counters and start state.
    private let lock = Mutex(Shared())
    private var file: UnsafeMutablePointer<FILE>?
    private var firstFrameOffset = 0
    private var frameIndex: UInt64 = 0
    private var startTime: UInt64 = 0

    private struct Shared { var statistics = CaptureStatistics() }

    /// Opens `path` and reads its header. Throws `noSuchDevice` for a missing file,
    /// `malformedInput` or `unsupportedFormat` for a bad header.
    public init(path: String, paced: Bool = true, loops: Bool = false) throws(MediaError) {
        guard let file = fopen(path, "rb") else {
            let reason = String(cString: strerror(errno))
            throw MediaError(errno == ENOENT ? .noSuchDevice : .systemError, "cannot open Y4M file '\(path)': \(reason)")
        }
        var line = [UInt8]()
        while line.count < 512 {
            let c = getc(file)
            if c == EOF || c == 0x0A { break }
            line.append(UInt8(c))
        }
        let header: Y4MHeader
        do { header = try Y4MHeader(line: String(decoding: line, as: UTF8.self)) } catch {
            fclose(file)
            throw MediaError(error.code, "\(path): \(error.message)")
        }
        self.file = file
        self.path = path
        self.format = header.format
        self.paced = paced
        self.loops = loops
        self.firstFrameOffset = ftell(file)
        self.pool = VideoFramePool(width: header.format.width, height: header.format.height, maximumCount: 4)
    }

    deinit { if let file { fclose(file) } }

    /// Starts the frame clock.
    public func start() throws(MediaError) {
        if startTime == 0 { startTime = MonotonicClock.nanoseconds() }
    }

    /// The next frame of the file. Throws `endOfStream` at the end (unless looping) and
    /// `malformedInput` for a damaged frame.
    public func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> VideoFrame? {
        guard let file else { throw MediaError(.endOfStream, "\(path) is closed") }
        if startTime == 0 { startTime = MonotonicClock.nanoseconds() }
        var timestamp = MonotonicClock.nanoseconds()
        if paced {
            let due = startTime + frameIndex * format.frameIntervalNanoseconds
            if due > timestamp {
                guard due - timestamp <= UInt64(max(timeoutMilliseconds, 0)) * 1_000_000 else { return nil }
                MonotonicClock.sleep(until: due)
                timestamp = due
            }
        }
        guard try readFrameMarker(file) else { throw MediaError(.endOfStream, "\(path) has no more frames") }
        guard let frame = pool.take() else {
            // Nobody released a frame: skip this picture rather than queue.
            try skipPicture(file)
            frameIndex += 1
            lock.withLock { $0.statistics.framesDropped += 1 }
            return nil
        }
        try readPlane(file, frame.y, stride: frame.strideY, width: frame.width, height: frame.height)
        try readPlane(file, frame.u, stride: frame.strideUV, width: frame.chromaWidth, height: frame.chromaHeight)
        try readPlane(file, frame.v, stride: frame.strideUV, width: frame.chromaWidth, height: frame.chromaHeight)
        frame.sequence = frameIndex
        frame.timestampNanoseconds = timestamp
        frameIndex += 1
        lock.withLock { $0.statistics.framesDelivered += 1 }
        return frame
    }

    /// Closes the file.
    public func stop() {
        if let file { fclose(file) }
        file = nil
    }

    /// Frames delivered and skipped.
    public var statistics: CaptureStatistics { lock.withLock { $0.statistics } }

    /// Reads "FRAME[ params]\n"; false at a clean end of file (after rewinding if looping).
    private func readFrameMarker(_ file: UnsafeMutablePointer<FILE>) throws(MediaError) -> Bool {
        var c = getc(file)
        if c == EOF {
            guard loops, frameIndex > 0 else { return false }
            fseek(file, firstFrameOffset, SEEK_SET)
            c = getc(file)
        }
        var marker: (UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0)
        marker.0 = UInt8(truncatingIfNeeded: c)
        marker.1 = UInt8(truncatingIfNeeded: getc(file))
        marker.2 = UInt8(truncatingIfNeeded: getc(file))
        marker.3 = UInt8(truncatingIfNeeded: getc(file))
        marker.4 = UInt8(truncatingIfNeeded: getc(file))
        guard marker == (0x46, 0x52, 0x41, 0x4D, 0x45) else {  // "FRAME"
            throw MediaError(.malformedInput, "\(path): frame \(frameIndex) does not start with FRAME")
        }
        while true {
            let next = getc(file)
            if next == 0x0A { return true }
            if next == EOF { throw MediaError(.malformedInput, "\(path): truncated frame header at frame \(frameIndex)") }
        }
    }

    private func readPlane(
        _ file: UnsafeMutablePointer<FILE>, _ plane: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int
    ) throws(MediaError) {
        for row in 0..<height where fread(plane + row * stride, 1, width, file) != width {
            throw MediaError(.malformedInput, "\(path): frame \(frameIndex) is truncated")
        }
    }

    private func skipPicture(_ file: UnsafeMutablePointer<FILE>) throws(MediaError) {
        let bytes = format.width * format.height + 2 * ((format.width + 1) / 2) * ((format.height + 1) / 2)
        guard fseek(file, bytes, SEEK_CUR) == 0 else {
            throw MediaError(.malformedInput, "\(path): frame \(frameIndex) is truncated")
        }
    }
}
