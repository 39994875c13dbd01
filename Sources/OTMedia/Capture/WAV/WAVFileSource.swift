import Glibc
import Synchronization

/// Reads a WAV file as a microphone would deliver it: 16-bit PCM, 48 kHz, mono or
/// stereo, in frames of `frameMilliseconds`.
///
/// The header is checked when the source is made (see `WAVHeader` for what is accepted;
/// unknown chunks are skipped). Frames are read with plain `read(2)` into pooled frames;
/// the last, partial frame is padded with silence (zeros) to a full frame, so every
/// frame has the source's `format`. After the last frame `nextFrame` throws
/// `endOfStream`. Paced (the default) frames come in real time like a device's; unpaced
/// they come as fast as asked. Timestamps are `start time + n × frame length` either way.
///
/// Cost per frame: one or two `read` calls into a pooled frame, no allocation.
public final class WAVFileSource: AudioSource {
    /// The file.
    public let path: String
    /// The file's channel count at 48 kHz, in frames of `frameMilliseconds`.
    public let format: AudioFormat
    /// Whether frames are released in real time.
    public let paced: Bool
    /// Samples per channel in the file's data chunk.
    public let samplesPerChannelInFile: Int
    private let pool: AudioFramePool

    private struct State {
        var fd: Int32 = -1
        var remainingBytes = 0
        var pacer: FramePacer
        var index: UInt64 = 0
    }

    private let state: Mutex<State>
    private let counters = Mutex(CaptureStatistics())

    /// Opens `path` to read and check its header, then closes it again until `start()`.
    /// - Parameters:
    ///   - frameMilliseconds: 10 or 20.
    ///   - paced: release frames in real time (default) or as fast as asked.
    /// - Throws: `noSuchDevice` (no such file), `permissionDenied`, `malformedInput`
    ///   (not RIFF/WAVE, truncated), `unsupportedFormat` (not 16-bit PCM 48 kHz mono or
    ///   stereo), `invalidArgument` (frame length).
    public init(path: String, frameMilliseconds: Int = 20, paced: Bool = true) throws(MediaError) {
        let fd = try Self.open(path)
        defer { close(fd) }
        let header = try WAVHeader.read(fd: fd, path: path)
        let format = AudioFormat(sampleRate: header.sampleRate, channels: header.channels, frameMilliseconds: frameMilliseconds)
        try format.validate()
        self.path = path
        self.format = format
        self.paced = paced
        self.samplesPerChannelInFile = header.dataBytes / (header.channels * 2)
        self.pool = AudioFramePool(format: format, initialCount: 2, maximumCount: 8)
        self.state = Mutex(State(pacer: FramePacer(format: format, paced: paced)))
    }

    private static func open(_ path: String) throws(MediaError) -> Int32 {
        while true {
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { return fd }
            if errno != EINTR { throw wavFileError("cannot open WAV file", path, errno) }
        }
    }

    /// Opens the file and positions it at the first sample. Idempotent while started;
    /// resets `statistics` and the clock.
    /// - Throws: as `init`, if the file changed in between so that it no longer fits.
    public func start() throws(MediaError) {
        try state.withLock { state throws(MediaError) in
            guard state.fd < 0 else { return }
            let fd = try Self.open(path)
            let header: WAVHeader
            do throws(MediaError) {
                header = try WAVHeader.read(fd: fd, path: path)
                guard header.channels == format.channels else {
                    throw MediaError(.unsupportedFormat, "'\(path)' changed to \(header.channels) channel(s) since it was opened")
                }
            } catch {
                close(fd)
                throw error
            }
            guard lseek(fd, off_t(header.dataOffset), SEEK_SET) >= 0 else {
                let code = errno
                close(fd)
                throw wavFileError("cannot seek in WAV file", path, code)
            }
            state.fd = fd
            state.remainingBytes = header.dataBytes
            state.index = 0
            state.pacer.reset()
        }
        counters.withLock { $0 = CaptureStatistics() }
    }

    /// The next frame; paced, waits until it is due (nil if after the timeout).
    /// - Throws: `endOfStream` after the last frame, `invalidArgument` before `start()`,
    ///   `systemError` for a failed read.
    public func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> AudioFrame? {
        try state.withLock { state throws(MediaError) -> AudioFrame? in
            guard state.fd >= 0 else {
                throw MediaError(.invalidArgument, "WAVFileSource.nextFrame called before start() or after stop()")
            }
            guard state.remainingBytes > 0 else {
                throw MediaError(.endOfStream, "end of '\(path)'")
            }
            guard state.pacer.waitForFrame(state.index, timeoutMilliseconds: timeoutMilliseconds) else { return nil }
            let index = state.index
            state.index += 1
            let frameBytes = format.samplesPerFrame * 2
            let wanted = min(frameBytes, state.remainingBytes)
            guard let frame = pool.take() else {
                // The reader holds every frame: skip this one to stay on time.
                guard lseek(state.fd, off_t(wanted), SEEK_CUR) >= 0 else {
                    throw wavFileError("cannot seek in WAV file", path, errno)
                }
                state.remainingBytes -= wanted
                counters.withLock { $0.framesDropped += 1 }
                return nil
            }
            let raw = UnsafeMutableRawPointer(frame.samples)
            var got = 0
            while got < wanted {
                let n = read(state.fd, raw + got, wanted - got)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw wavFileError("cannot read WAV file", path, errno)
                }
                if n == 0 { break }  // the file shrank: pad with silence and end
                got += n
            }
            state.remainingBytes = got < wanted ? 0 : state.remainingBytes - wanted
            if got < frameBytes {
                (raw + got).initializeMemory(as: UInt8.self, repeating: 0, count: frameBytes - got)
            }
            frame.timestampNanoseconds = state.pacer.timestamp(ofFrame: index)
            frame.sequence = index
            counters.withLock { $0.framesDelivered += 1 }
            return frame
        }
    }

    /// Closes the file. Idempotent; `start()` reads from the beginning again.
    public func stop() {
        state.withLock { state in
            if state.fd >= 0 { close(state.fd) }
            state.fd = -1
        }
    }

    /// Frames delivered and skipped since `start()`. Cost: a lock and a copy.
    public var statistics: CaptureStatistics { counters.withLock { $0 } }

    deinit {
        stop()
    }
}
