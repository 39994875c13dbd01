import Glibc
import Synchronization

/// Records frames to a WAV file: 16-bit PCM at the format's rate and channel count.
///
/// `start()` creates (or truncates) the file and writes a 44-byte header with zero
/// sizes; `write` appends each frame's samples with `write(2)`; `stop()` patches the
/// RIFF and data sizes and closes, so a file from a process that died early still has a
/// valid header (with zero lengths). WAV limits data to 4 GiB (about 12 hours of 48 kHz
/// stereo); past that `write` throws.
///
/// Cost per frame: one `write` call, no allocation.
public final class WAVFileSink: AudioSink {
    /// The file.
    public let path: String
    /// The format `write` expects (channel count and rate of the file).
    public let format: AudioFormat

    private struct State {
        var fd: Int32 = -1
        var dataBytes = 0
    }

    private let state = Mutex(State())

    /// A sink that will write `path`. Creates nothing until `start()`.
    /// - Throws: `invalidArgument` for a format the engine does not take.
    public init(path: String, format: AudioFormat = .mono20ms) throws(MediaError) {
        try format.validate()
        self.path = path
        self.format = format
    }

    /// Creates or truncates the file and writes the header. Idempotent while started.
    /// - Throws: `noSuchDevice` (missing directory), `permissionDenied`, `systemError`.
    public func start() throws(MediaError) {
        try state.withLock { state throws(MediaError) in
            guard state.fd < 0 else { return }
            var fd: Int32
            repeat {
                fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            } while fd < 0 && errno == EINTR
            guard fd >= 0 else { throw wavFileError("cannot create WAV file", path, errno) }
            let header = WAVHeader.canonical(channels: format.channels, sampleRate: format.sampleRate, dataBytes: 0)
            let failure = header.withUnsafeBytes { Self.writeAll(fd, $0.baseAddress!, $0.count) }
            guard failure == 0 else {
                close(fd)
                throw wavFileError("cannot write WAV file", path, failure)
            }
            state.fd = fd
            state.dataBytes = 0
        }
    }

    /// Bytes of samples written since `start()`.
    public var dataBytes: Int { state.withLock { $0.dataBytes } }

    /// Appends the frame's `samplesPerChannel` samples.
    /// - Throws: `invalidArgument` before `start()`, for a frame of another channel count
    ///   or rate, or past WAV's 4 GiB limit; `systemError` for a failed write (disk full…).
    public func write(_ frame: AudioFrame) throws(MediaError) {
        guard frame.format.channels == format.channels, frame.format.sampleRate == format.sampleRate else {
            throw MediaError(.invalidArgument, "frame is \(frame.format) but '\(path)' records \(format)")
        }
        try state.withLock { state throws(MediaError) in
            guard state.fd >= 0 else {
                throw MediaError(.invalidArgument, "WAVFileSink.write called before start() or after stop()")
            }
            let bytes = frame.samplesPerChannel * format.channels * 2
            guard state.dataBytes + bytes <= Int(UInt32.max) - WAVHeader.canonicalSize else {
                throw MediaError(.invalidArgument, "'\(path)' would exceed the 4 GiB a WAV file can hold")
            }
            let failure = Self.writeAll(state.fd, UnsafeRawPointer(frame.samples), bytes)
            guard failure == 0 else { throw wavFileError("cannot write WAV file", path, failure) }
            state.dataBytes += bytes
        }
    }

    /// Writes all `count` bytes; returns 0 or the errno of the failure.
    private static func writeAll(_ fd: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int32 {
        var done = 0
        while done < count {
            let n = Glibc.write(fd, base + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return 0
    }

    /// Writes the final sizes into the header and closes the file. Idempotent.
    public func stop() {
        state.withLock { state in
            guard state.fd >= 0 else { return }
            var riffSize = UInt32(36 + state.dataBytes).littleEndian
            var dataSize = UInt32(state.dataBytes).littleEndian
            _ = pwrite(state.fd, &riffSize, 4, 4)
            _ = pwrite(state.fd, &dataSize, 4, 40)
            close(state.fd)
            state.fd = -1
        }
    }

    deinit {
        stop()
    }
}
