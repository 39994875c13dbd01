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
    /// Open for the source's whole life and read only under `state`'s lock, so `stop()`
    /// from another thread can never close it under a reader.
    private nonisolated(unsafe) let file: UnsafeMutablePointer<FILE>
    private let firstFrameOffset: Int
    private let state: Mutex<State>

    private struct State {
        var started = false
        var frameIndex: UInt64 = 0
        var pacer: FramePacer
        var statistics = CaptureStatistics()
    }

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
        self.state = Mutex(State(pacer: FramePacer(frameNanoseconds: header.format.frameIntervalNanoseconds, paced: paced)))
    }

    deinit { fclose(file) }

    /// Starts (or restarts) from the first frame, with the frame clock at zero now.
    public func start() throws(MediaError) {
        state.withLock { state in
            guard !state.started else { return }
            restart(&state)
        }
    }

    /// The next frame of the file. Throws `endOfStream` at the end (unless looping) and
    /// `malformedInput` for a damaged frame. Starts the source if needed.
    public func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> VideoFrame? {
        try state.withLock { (state: inout State) throws(MediaError) -> VideoFrame? in
            if !state.started { restart(&state) }
            // Frame n is shown from origin + n × interval (the pacer counts from the end
            // of a frame, so ask for the one before).
            if paced, state.frameIndex > 0,
               !state.pacer.waitForFrame(state.frameIndex - 1, timeoutMilliseconds: timeoutMilliseconds) {
                return nil
            }
            let timestamp = paced ? state.pacer.timestamp(ofFrame: state.frameIndex) : MonotonicClock.nanoseconds()
            guard try readFrameMarker(file, frameIndex: state.frameIndex) else {
                throw MediaError(.endOfStream, "\(path) has no more frames")
            }
            guard let frame = pool.take() else {
                // Nobody released a frame: skip this picture rather than queue.
                try skipPicture(file, frameIndex: state.frameIndex)
                state.frameIndex += 1
                state.statistics.framesDropped += 1
                return nil
            }
            try readPlane(file, frame.y, stride: frame.strideY, width: frame.width, height: frame.height, frameIndex: state.frameIndex)
            try readPlane(file, frame.u, stride: frame.strideUV, width: frame.chromaWidth, height: frame.chromaHeight, frameIndex: state.frameIndex)
            try readPlane(file, frame.v, stride: frame.strideUV, width: frame.chromaWidth, height: frame.chromaHeight, frameIndex: state.frameIndex)
            frame.sequence = state.frameIndex
            frame.timestampNanoseconds = timestamp
            state.frameIndex += 1
            state.statistics.framesDelivered += 1
            return frame
        }
    }

    /// Stops the frame clock; the next `start` or `nextFrame` begins at the first frame
    /// again. The file stays open until the source is released.
    public func stop() {
        state.withLock { $0.started = false }
    }

    /// Frames delivered and skipped since `start`.
    public var statistics: CaptureStatistics { state.withLock { $0.statistics } }

    private func restart(_ state: inout State) {
        fseek(file, firstFrameOffset, SEEK_SET)
        state.started = true
        state.frameIndex = 0
        state.pacer.reset()
        state.statistics = CaptureStatistics()
    }

    /// Reads "FRAME[ params]\n"; false at a clean end of file (after rewinding if looping).
    private func readFrameMarker(_ file: UnsafeMutablePointer<FILE>, frameIndex: UInt64) throws(MediaError) -> Bool {
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
        _ file: UnsafeMutablePointer<FILE>, _ plane: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int,
        frameIndex: UInt64
    ) throws(MediaError) {
        for row in 0..<height where fread(plane + row * stride, 1, width, file) != width {
            throw MediaError(.malformedInput, "\(path): frame \(frameIndex) is truncated")
        }
    }

    private func skipPicture(_ file: UnsafeMutablePointer<FILE>, frameIndex: UInt64) throws(MediaError) {
        let bytes = format.width * format.height + 2 * ((format.width + 1) / 2) * ((format.height + 1) / 2)
        guard fseek(file, bytes, SEEK_CUR) == 0 else {
            throw MediaError(.malformedInput, "\(path): frame \(frameIndex) is truncated")
        }
    }
}
