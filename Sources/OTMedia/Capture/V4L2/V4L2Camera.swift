import CUDP
import CV4L2
import Glibc
import Synchronization

/// A V4L2 camera (`/dev/video*`): negotiates a format, streams with mmap, and hands out
/// pooled I420 frames stamped with the driver's timestamp and sequence number.
///
/// `init` opens the device and negotiates (so `format` holds the exact numbers the
/// driver accepted); `start` maps the driver's buffers and starts streaming; a reader
/// thread calls `nextFrame` in a loop; `stop` ends it (from any thread: it wakes a
/// blocked `nextFrame`). `statistics` is readable from any thread.
///
/// Per frame: one poll, one DQBUF, one libyuv pass (or JPEG decode) into a pooled frame,
/// one QBUF; nothing allocated in steady state. When the reader falls behind, the
/// newest ready buffer wins and older ones are requeued and counted as dropped (a
/// latency budget beats a queue). Plain ioctl + mmap on the fd, not libv4l2 (see
/// CV4L2.h for why).
public final class V4L2Camera: VideoSource {
    /// The device node.
    public let path: String
    /// The negotiated size and rate, exactly as the driver accepted them.
    public let format: VideoFormat
    /// The pixel format the driver sends (converted to I420 before frames come out).
    public let pixelFormat: PixelFormat
    /// The device as found at open: identity and every format, size and interval.
    public let device: V4L2DeviceInfo

    private let negotiated: Negotiated
    private let bufferCount: Int
    private let pool: VideoFramePool
    private let state: Mutex<State>
    private let counters = Mutex(CaptureStatistics())
    private let clockSource = Atomic<UInt8>(0)
    private let wake: Int32

    /// What S_FMT / S_PARM settled on; re-applied when `start` reopens the device.
    private struct Negotiated {
        var fourcc: UInt32
        var width: Int
        var height: Int
        var bytesPerLine: Int
        var interval: V4L2FrameInterval
    }

    /// Everything the reader thread touches, behind one lock.
    private struct State {
        var fd: Int32
        var stream: V4L2Stream?
        var lost: MediaError?
        var converter: PixelConverter
        var sequence = V4L2SequenceTracker()
    }

    /// Opens the camera at `path` and negotiates the format closest to `requested`
    /// among the device's formats that are in `preferredFormats` (earlier is preferred
    /// when sizes and rates tie), then sets it with VIDIOC_S_FMT and VIDIOC_S_PARM.
    /// `bufferCount` driver buffers are used for streaming (4 is a good balance of
    /// latency and tolerance to a slow reader).
    ///
    /// Throws `noSuchDevice`, `notACaptureDevice` (a file, a non-V4L2 device, an output
    /// device: each says which), `permissionDenied` (names the group to join),
    /// `deviceBusy`, `unsupportedFormat` (no format the engine converts), or
    /// `invalidArgument`. Cost: a few dozen ioctls.
    public init(path: String = "/dev/video0",
                requested: VideoFormat = VideoFormat(width: 640, height: 480, frameRate: 30),
                preferredFormats: [PixelFormat] = PixelFormat.preferenceOrder,
                bufferCount: Int = 4) throws(MediaError) {
        try requested.validate()
        guard !preferredFormats.isEmpty else {
            throw MediaError(.invalidArgument, "preferredFormats is empty; name at least one of \(PixelFormat.allCases)")
        }
        guard (2...32).contains(bufferCount) else {
            throw MediaError(.invalidArgument, "bufferCount \(bufferCount) is out of range (2 to 32)")
        }
        let fd = try V4L2Device.open(path: path)
        let device: V4L2DeviceInfo
        let negotiated: Negotiated
        let pixelFormat: PixelFormat
        do throws(MediaError) {
            let identity = try V4L2Device.identify(fd: fd, path: path)
            try V4L2Device.requireCapture(identity, path: path)
            device = V4L2Device.describe(fd: fd, path: path, identity: identity)
            guard let choice = V4L2Negotiation.choose(formats: device.formats, requested: requested,
                                                      preferred: preferredFormats) else {
                let offered = device.formats.map(\.fourcc).joined(separator: ", ")
                throw MediaError(.unsupportedFormat, "\(path) offers [\(offered)]; OTKit converts \(preferredFormats.map(\.description).joined(separator: ", "))")
            }
            negotiated = try Self.apply(fd: fd, path: path, fourcc: choice.fourcc, width: choice.width,
                                        height: choice.height,
                                        interval: choice.interval ?? V4L2FrameInterval(rate: requested.frameRate))
            guard let converted = PixelFormat(fourcc: negotiated.fourcc) else {
                throw MediaError(.unsupportedFormat, "\(path) switched to \(fourCharacterString(negotiated.fourcc)), which OTKit does not convert")
            }
            pixelFormat = converted
        } catch {
            close(fd)
            throw error
        }
        let converter: PixelConverter
        do throws(MediaError) {
            converter = try PixelConverter(pixelFormat: pixelFormat, width: negotiated.width, height: negotiated.height,
                                           bytesPerLine: pixelFormat == .mjpeg ? nil : negotiated.bytesPerLine)
        } catch {
            close(fd)
            throw error
        }
        let wake = CUDP_eventfd()
        guard wake >= 0 else {
            close(fd)
            throw V4L2Errors.from(errno: errno, path: path, doing: "eventfd")
        }
        self.path = path
        self.device = device
        self.pixelFormat = pixelFormat
        self.negotiated = negotiated
        self.bufferCount = bufferCount
        self.wake = wake
        let divisor = Self.gcd(negotiated.interval.denominator, negotiated.interval.numerator)
        self.format = VideoFormat(width: negotiated.width, height: negotiated.height,
                                  frameRateNumerator: negotiated.interval.denominator / divisor,
                                  frameRateDenominator: negotiated.interval.numerator / divisor)
        self.pool = VideoFramePool(width: negotiated.width, height: negotiated.height, initialCount: 2, maximumCount: 6)
        self.state = Mutex(State(fd: fd, converter: converter))
    }

    deinit {
        stop()
        close(wake)
    }

    /// The capture devices on this machine: `/dev/video*` nodes whose device caps say
    /// video capture, with their formats, sizes and intervals, in node order. Nodes we
    /// cannot open (permissions, busy) or that are not capture nodes are left out; a
    /// machine with no camera gives []. Cost: opens each node and a few dozen ioctls.
    public static func devices() -> [V4L2DeviceInfo] {
        guard let directory = opendir("/dev") else { return [] }
        defer { closedir(directory) }
        var numbers: [Int] = []
        while let entry = readdir(directory) {
            let name = V4L2Device.cString(entry.pointee.d_name)
            if name.hasPrefix("video"), let number = Int(name.dropFirst(5)) { numbers.append(number) }
        }
        return numbers.sorted().compactMap { number in
            let path = "/dev/video\(number)"
            guard let fd = try? V4L2Device.open(path: path) else { return nil }
            defer { close(fd) }
            guard let identity = try? V4L2Device.identify(fd: fd, path: path),
                  (try? V4L2Device.requireCapture(identity, path: path)) != nil else { return nil }
            return V4L2Device.describe(fd: fd, path: path, identity: identity)
        }
    }

    /// True when frame timestamps are the driver's (`V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC`),
    /// false when the driver's clock is not monotonic and the engine stamps frames with
    /// `MonotonicClock` at dequeue instead; nil before the first frame. Any thread.
    public var usesDriverTimestamps: Bool? {
        switch clockSource.load(ordering: .relaxed) {
        case 1: return true
        case 2: return false
        default: return nil
        }
    }

    /// Counters since `start`: frames delivered, dropped (driver sequence gaps, stale
    /// frames skipped for a newer one, pool exhausted), corrupt (V4L2_BUF_FLAG_ERROR or
    /// an undecodable JPEG) and recovered driver errors. Any thread; cost: a lock.
    public var statistics: CaptureStatistics { counters.withLock { $0 } }

    /// Maps the driver's buffers and starts streaming. Idempotent. After `stop` (or a
    /// lost device) it reopens the node and applies the negotiated format again.
    /// Throws `deviceBusy`, `noSuchDevice`, `permissionDenied`, or `unsupportedFormat`
    /// if a replugged device no longer offers the negotiated format.
    public func start() throws(MediaError) {
        try state.withLock { (state: inout State) throws(MediaError) in
            // A lost device keeps its dead stream and descriptor until a restart: tear
            // them down so the node is opened afresh (the camera may be back).
            if state.lost != nil { Self.teardown(&state) }
            if state.stream != nil { return }
            if state.fd < 0 {
                let fd = try V4L2Device.open(path: path)
                do throws(MediaError) {
                    let identity = try V4L2Device.identify(fd: fd, path: path)
                    try V4L2Device.requireCapture(identity, path: path)
                    let again = try Self.apply(fd: fd, path: path, fourcc: negotiated.fourcc, width: negotiated.width,
                                               height: negotiated.height, interval: negotiated.interval)
                    guard again.fourcc == negotiated.fourcc, again.width == negotiated.width,
                          again.height == negotiated.height, again.bytesPerLine == negotiated.bytesPerLine else {
                        throw MediaError(.unsupportedFormat, "\(path) no longer accepts \(fourCharacterString(negotiated.fourcc)) \(format); open the camera again")
                    }
                } catch {
                    close(fd)
                    throw error
                }
                state.fd = fd
            }
            state.stream = try V4L2Stream.start(fd: state.fd, path: path, count: bufferCount)
            state.lost = nil
            state.sequence = V4L2SequenceTracker()
        }
        counters.withLock { $0 = CaptureStatistics() }
    }

    /// The newest frame, waiting at most `timeoutMilliseconds` (negative: no limit);
    /// nil on timeout or when `stop` is called meanwhile. Call from one reader thread.
    ///
    /// Throws `deviceLost` when the camera is unplugged mid-stream (every later call
    /// throws it too, until `start` succeeds again); `invalidArgument` when the camera
    /// is not started; `systemError` for other failures.
    public func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> VideoFrame? {
        try state.withLock { (state: inout State) throws(MediaError) -> VideoFrame? in
            if let lost = state.lost { throw lost }
            guard let stream = state.stream else {
                throw MediaError(.invalidArgument, "the camera \(path) is not started; call start() first")
            }
            let deadline = timeoutMilliseconds < 0 ? UInt64.max
                : MonotonicClock.nanoseconds() + UInt64(timeoutMilliseconds) * 1_000_000
            while true {
                let ready = try waitReadable(fd: state.fd, until: deadline)
                switch ready {
                case .timedOut, .woken: return nil
                case .readable(let pollError):
                    do throws(MediaError) {
                        if let frame = try dequeueNewest(&state, stream: stream, pollError: pollError) { return frame }
                    } catch {
                        if error.code == .deviceLost { state.lost = error }
                        throw error
                    }
                }
            }
        }
    }

    /// Stops streaming, unmaps the buffers and closes the device. Idempotent, callable
    /// from any thread (it wakes a reader blocked in `nextFrame`), and safe after the
    /// device was unplugged. Frames already handed out stay valid (they are copies).
    public func stop() {
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
        state.withLock { state in Self.teardown(&state) }
        var drained: UInt64 = 0
        _ = read(wake, &drained, 8)
    }

    /// Stops the stream and closes the descriptor, whatever state they are in.
    private static func teardown(_ state: inout State) {
        if var stream = state.stream {
            stream.stop()
            state.stream = nil
        }
        if state.fd >= 0 {
            close(state.fd)
            state.fd = -1
        }
    }

    // MARK: - Reading frames

    private enum Readiness {
        case readable(pollError: Bool)
        case timedOut
        case woken
    }

    /// poll(2) on the device and the wake eventfd until `deadline`, retrying on EINTR.
    private func waitReadable(fd: Int32, until deadline: UInt64) throws(MediaError) -> Readiness {
        var fds = (pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
        while true {
            let timeout: Int32
            if deadline == UInt64.max {
                timeout = -1
            } else {
                let now = MonotonicClock.nanoseconds()
                guard now < deadline else { return .timedOut }
                timeout = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            }
            let result = withUnsafeMutablePointer(to: &fds) { pair in
                pair.withMemoryRebound(to: pollfd.self, capacity: 2) { poll($0, 2, timeout) }
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw V4L2Errors.from(errno: errno, path: path, doing: "poll")
            }
            if result == 0 { return .timedOut }
            if fds.1.revents != 0 { return .woken }
            let events = Int32(fds.0.revents)
            if events & Int32(POLLNVAL) != 0 {
                throw MediaError(.systemError, "the camera \(path) was closed while a frame was awaited")
            }
            if events != 0 { return .readable(pollError: events & Int32(POLLERR | POLLHUP) != 0) }
        }
    }

    /// Dequeues every ready buffer, keeps the newest good one (older ones go straight
    /// back and count as dropped), converts it into a pooled frame and requeues it.
    /// Nil when nothing usable was ready (spurious wake-up, corrupt frame, pool empty).
    private func dequeueNewest(_ state: inout State, stream: V4L2Stream, pollError: Bool) throws(MediaError) -> VideoFrame? {
        var newest: (buffer: v4l2_buffer, sequence: UInt64)?
        var dropped: UInt64 = 0, corrupt: UInt64 = 0, recovered: UInt64 = 0
        defer {
            if dropped + corrupt + recovered > 0 {
                counters.withLock {
                    $0.framesDropped += dropped
                    $0.corruptFrames += corrupt
                    $0.overruns += recovered
                }
            }
        }
        while true {
            var buffer = V4L2Stream.emptyBuffer()
            if cv4l2_ioctl(state.fd, CV4L2_VIDIOC_DQBUF, &buffer) != 0 {
                let code = errno
                if code == EAGAIN { break }
                if code == ENODEV || code == ENXIO { throw V4L2Errors.lost(path, "ENODEV from VIDIOC_DQBUF") }
                if code == EIO && pollError { throw V4L2Errors.lost(path, "the driver stopped the stream with an I/O error") }
                if code == EIO { recovered += 1; continue }
                throw V4L2Errors.from(errno: code, path: path, doing: "VIDIOC_DQBUF")
            }
            let counted = state.sequence.record(buffer.sequence)
            dropped += counted.gap
            if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 {
                corrupt += 1
                try requeue(stream, buffer.index)
                continue
            }
            if let older = newest {
                dropped += 1
                try requeue(stream, older.buffer.index)
            }
            newest = (buffer, counted.sequence)
        }
        guard let (buffer, sequence) = newest else {
            if pollError { throw V4L2Errors.lost(path, "poll reported an error and no frame was ready") }
            return nil
        }
        let index = Int(buffer.index)
        guard index < stream.mappings.count, let frame = pool.take() else {
            dropped += 1
            try requeue(stream, buffer.index)
            return nil
        }
        let mapping = stream.mappings[index]
        let bytes = UnsafeRawBufferPointer(start: mapping.address, count: min(Int(buffer.bytesused), mapping.length))
        do throws(MediaError) {
            try state.converter.convert(bytes, into: frame)
        } catch {
            corrupt += 1
            try requeue(stream, buffer.index)
            return nil
        }
        try requeue(stream, buffer.index)
        frame.sequence = sequence
        frame.timestampNanoseconds = timestamp(of: buffer)
        counters.withLock { $0.framesDelivered += 1 }
        return frame
    }

    private func requeue(_ stream: V4L2Stream, _ index: UInt32) throws(MediaError) {
        guard stream.queue(index: index) else {
            let code = errno
            if code == ENODEV || code == ENXIO { throw V4L2Errors.lost(path, "ENODEV from VIDIOC_QBUF") }
            throw V4L2Errors.from(errno: code, path: path, doing: "VIDIOC_QBUF")
        }
    }

    /// The driver's timestamp in ns when it is CLOCK_MONOTONIC, else the engine's clock now.
    private func timestamp(of buffer: v4l2_buffer) -> UInt64 {
        let kind = buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK)
        if kind == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC) {
            clockSource.store(1, ordering: .relaxed)
            return UInt64(buffer.timestamp.tv_sec) * 1_000_000_000 + UInt64(buffer.timestamp.tv_usec) * 1_000
        }
        clockSource.store(2, ordering: .relaxed)
        return MonotonicClock.nanoseconds()
    }

    // MARK: - Negotiation

    /// VIDIOC_S_FMT then VIDIOC_S_PARM; returns what the driver settled on.
    private static func apply(fd: Int32, path: String, fourcc: UInt32, width: Int, height: Int,
                              interval: V4L2FrameInterval) throws(MediaError) -> Negotiated {
        var format = v4l2_format()
        format.type = V4L2Device.captureType
        format.fmt.pix.width = UInt32(width)
        format.fmt.pix.height = UInt32(height)
        format.fmt.pix.pixelformat = fourcc
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        guard cv4l2_ioctl(fd, CV4L2_VIDIOC_S_FMT, &format) == 0 else {
            let code = errno
            if code == EINVAL {
                throw MediaError(.unsupportedFormat, "\(path) refused \(fourCharacterString(fourcc)) \(width)x\(height)")
            }
            throw V4L2Errors.from(errno: code, path: path, doing: "VIDIOC_S_FMT")
        }
        let pix = format.fmt.pix
        let packed = PixelFormat(fourcc: pix.pixelformat) == .yuyv ? Int(pix.width) * 2 : Int(pix.width)
        var settled = Negotiated(fourcc: pix.pixelformat, width: Int(pix.width), height: Int(pix.height),
                                 bytesPerLine: max(Int(pix.bytesperline), packed), interval: interval)

        var parameters = v4l2_streamparm()
        parameters.type = V4L2Device.captureType
        let canRead = cv4l2_ioctl(fd, CV4L2_VIDIOC_G_PARM, &parameters) == 0
        if canRead && parameters.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 {
            parameters.parm.capture.timeperframe = v4l2_fract(numerator: UInt32(interval.numerator),
                                                              denominator: UInt32(interval.denominator))
            if cv4l2_ioctl(fd, CV4L2_VIDIOC_S_PARM, &parameters) != 0 {
                let code = errno
                if code == EBUSY { throw V4L2Errors.busy(path) }
                if code == ENODEV { throw V4L2Errors.gone(path) }
                _ = cv4l2_ioctl(fd, CV4L2_VIDIOC_G_PARM, &parameters)
            }
        }
        let actual = parameters.parm.capture.timeperframe
        if canRead && actual.numerator > 0 && actual.denominator > 0 {
            settled.interval = V4L2FrameInterval(numerator: Int(actual.numerator), denominator: Int(actual.denominator))
        }
        return settled
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int {
        var (x, y) = (abs(a), abs(b))
        while y != 0 { (x, y) = (y, x % y) }
        return max(x, 1)
    }
}
