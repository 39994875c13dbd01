import Testing
@testable import OTMedia

/// The real capture path against the kernel's `vivid` driver (QEMU VM harness, with
/// `OTKIT_HARDWARE_TESTS=1`): /dev/video0 is vivid's webcam capture node, /dev/video1
/// its video output node. Serialized: every test opens the same device.
@Suite(.enabled(if: HardwareTests.enabled, "needs vivid; set OTKIT_HARDWARE_TESTS=1 in the VM"), .serialized)
struct HardwareV4L2Tests {
    static let capture = "/dev/video0"
    static let output = "/dev/video1"
    /// Luma of vivid's 75% colour bars (white, yellow, cyan, green, magenta, red, blue, black).
    static let barLuma: [Int] = [180, 162, 131, 112, 84, 65, 35, 16]

    @Test func devicesListVividWithItsFormatsAndSizes() throws {
        let devices = V4L2Camera.devices()
        let vivid = try #require(devices.first { $0.path == Self.capture }, "devices: \(devices.map(\.path))")
        #expect(vivid.driver == "vivid")
        #expect(vivid.busInfo.hasPrefix("platform:vivid"))
        #expect(!devices.contains { $0.path == Self.output }, "the output node is not a capture device")
        for wanted in [PixelFormat.yuyv, .nv12, .yu12] {
            let format = try #require(vivid.formats.first { $0.pixelFormat == wanted }, "\(wanted) missing")
            #expect(format.fourcc == wanted.description)
            guard case .discrete(let sizes) = format.frameSizes else {
                Issue.record("vivid's webcam lists discrete sizes")
                continue
            }
            let sizeNames = sizes.map { "\($0.width)x\($0.height)" }
            for name in ["320x180", "640x360", "640x480", "1280x720", "1920x1080"] {
                #expect(sizeNames.contains(name), "\(wanted) sizes: \(sizeNames)")
            }
            let size360 = try #require(sizes.first { $0.width == 640 && $0.height == 360 })
            guard case .discrete(let intervals) = size360.intervals else {
                Issue.record("vivid lists discrete intervals")
                continue
            }
            #expect(intervals.contains { $0.framesPerSecond == 30 }, "640x360 rates: \(intervals)")
        }
        #expect(!vivid.formats.contains { $0.pixelFormat == .mjpeg }, "vivid has no compressed formats")
    }

    @Test func outputNodeIsNotACaptureDevice() throws {
        let error = #expect(throws: MediaError.self) { _ = try V4L2Camera(path: Self.output) }
        #expect(error?.code == .notACaptureDevice)
        #expect(error?.message.contains("video output") == true, "\(String(describing: error))")
    }

    @Test(arguments: [PixelFormat.yuyv, .nv12, .yu12])
    func captures60FramesAt640x360x30(pixelFormat: PixelFormat) throws {
        let camera = try V4L2Camera(path: Self.capture, requested: VideoFormat(width: 640, height: 360, frameRate: 30),
                                    preferredFormats: [pixelFormat])
        #expect(camera.pixelFormat == pixelFormat)
        #expect(camera.format.width == 640 && camera.format.height == 360)
        #expect(camera.format.frameRateNumerator == 30 && camera.format.frameRateDenominator == 1,
                "vivid defaults to 5 fps; S_PARM must set 30 (got \(camera.format))")
        try camera.start()
        defer { camera.stop() }

        var sequences: [UInt64] = []
        var timestamps: [UInt64] = []
        while sequences.count < 60 {
            guard let frame = try camera.nextFrame(timeoutMilliseconds: 3000) else {
                Issue.record("no frame within 3 s after \(sequences.count) frames")
                break
            }
            #expect(frame.width == 640 && frame.height == 360)
            // The driver's stamp is on CLOCK_MONOTONIC: within a few seconds of our clock.
            let age = Int64(bitPattern: MonotonicClock.nanoseconds() &- frame.timestampNanoseconds)
            #expect(abs(age) < 5_000_000_000, "timestamp \(frame.timestampNanoseconds) is \(age) ns from the monotonic clock")
            sequences.append(frame.sequence)
            timestamps.append(frame.timestampNanoseconds)
            if sequences.count % 10 == 1 {
                Self.expectColourBars(frame)
            }
        }
        #expect(sequences.count == 60)
        #expect(camera.usesDriverTimestamps == true, "vivid stamps buffers with CLOCK_MONOTONIC")
        for (previous, next) in zip(sequences, sequences.dropFirst()) {
            #expect(next > previous, "sequence went from \(previous) to \(next)")
        }
        for (previous, next) in zip(timestamps, timestamps.dropFirst()) {
            #expect(next > previous, "timestamps must increase strictly")
        }
        let gaps = zip(sequences, sequences.dropFirst()).reduce(UInt64(0)) { $0 + ($1.1 - $1.0 - 1) }
        let statistics = camera.statistics
        #expect(statistics.framesDelivered == 60)
        #expect(statistics.framesDropped <= 3, "dropped \(statistics.framesDropped), sequence gaps \(gaps)")
        #expect(statistics.framesDropped >= gaps, "every sequence gap is counted as dropped")
        #expect(statistics.corruptFrames == 0)
    }

    @Test func stopThenStartReopensTheDevice() throws {
        let camera = try V4L2Camera(path: Self.capture, requested: VideoFormat(width: 320, height: 180, frameRate: 30),
                                    preferredFormats: [.yuyv])
        #expect(camera.format == VideoFormat(width: 320, height: 180, frameRate: 30))
        try camera.start()
        try camera.start() // idempotent
        #expect(try camera.nextFrame(timeoutMilliseconds: 3000) != nil)
        camera.stop()
        camera.stop() // idempotent
        let stopped = #expect(throws: MediaError.self) { _ = try camera.nextFrame(timeoutMilliseconds: 100) }
        #expect(stopped?.code == .invalidArgument)
        try camera.start()
        defer { camera.stop() }
        var received = 0
        for _ in 0..<5 where try camera.nextFrame(timeoutMilliseconds: 3000) != nil { received += 1 }
        #expect(received == 5)
        #expect(camera.statistics.framesDelivered == 5, "statistics restart with start()")
    }

    @Test func secondStreamOnTheSameDeviceIsBusy() throws {
        let first = try V4L2Camera(path: Self.capture, requested: VideoFormat(width: 640, height: 360, frameRate: 30),
                                   preferredFormats: [.yuyv])
        try first.start()
        defer { first.stop() }
        let error = #expect(throws: MediaError.self) {
            let second = try V4L2Camera(path: Self.capture, requested: VideoFormat(width: 320, height: 180, frameRate: 30),
                                        preferredFormats: [.nv12])
            try second.start()
        }
        #expect(error?.code == .deviceBusy, "\(String(describing: error))")
    }

    /// Mean luma in the middle of each of the 8 equal bars, on rows in the lower half
    /// (vivid's OSD text sits at the top).
    static func expectColourBars(_ frame: VideoFrame) {
        let barWidth = frame.width / 8
        let rows = [frame.height * 5 / 8, frame.height * 3 / 4, frame.height * 7 / 8]
        for (bar, expected) in barLuma.enumerated() {
            let centre = bar * barWidth + barWidth / 2
            var sum = 0, count = 0
            for row in rows {
                for x in (centre - barWidth / 4)...(centre + barWidth / 4) {
                    sum += Int(frame.luma(x: x, y: row))
                    count += 1
                }
            }
            let mean = sum / count
            #expect(abs(mean - expected) <= 12, "bar \(bar) luma \(mean), expected about \(expected)")
        }
    }
}
