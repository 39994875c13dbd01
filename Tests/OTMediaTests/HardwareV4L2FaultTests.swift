import CV4L2
import Glibc
import Testing
@testable import OTMedia

/// Faults injected with vivid's error-injection controls: a simulated unplug, a fatal
/// streaming error, buffers flagged as bad, and frames the driver drops. Part of the
/// serialized `HardwareV4L2Tests` suite (same device).
extension HardwareV4L2Tests {
    /// Sets the vivid control called `name` (found with VIDIOC_QUERYCTRL) on `path`
    /// through a separate file handle, closed before returning.
    static func setVividControl(_ name: String, to value: Int32, path: String = capture) throws {
        let fd = open(path, O_RDWR)
        try #require(fd >= 0, "open \(path): errno \(errno)")
        defer { close(fd) }
        var names: [String] = []
        var query = v4l2_queryctrl()
        query.id = UInt32(truncatingIfNeeded: V4L2_CTRL_FLAG_NEXT_CTRL)
        while cv4l2_ioctl(fd, CV4L2_VIDIOC_QUERYCTRL, &query) == 0 {
            let found = V4L2Device.cString(query.name)
            if found == name {
                var control = v4l2_control(id: query.id, value: value)
                try #require(cv4l2_ioctl(fd, CV4L2_VIDIOC_S_CTRL, &control) == 0, "VIDIOC_S_CTRL \(name): errno \(errno)")
                return
            }
            names.append(found)
            query.id |= UInt32(truncatingIfNeeded: V4L2_CTRL_FLAG_NEXT_CTRL)
        }
        Issue.record("vivid has no control \"\(name)\"; it has \(names)")
        throw MediaError(.invalidArgument, "no control \(name)")
    }

    /// Reads frames until `nextFrame` throws; returns the error (nil if none in 90 frames).
    static func readUntilError(_ camera: V4L2Camera) -> MediaError? {
        for _ in 0..<90 {
            do {
                _ = try camera.nextFrame(timeoutMilliseconds: 3000)
            } catch {
                return error
            }
        }
        return nil
    }

    @Test func unplugMidStreamThrowsDeviceLostAndStopStillWorks() throws {
        let camera = try V4L2Camera(path: Self.capture, requested: VideoFormat(width: 640, height: 360, frameRate: 30),
                                    preferredFormats: [.yuyv])
        try camera.start()
        #expect(try camera.nextFrame(timeoutMilliseconds: 3000) != nil)
        try Self.setVividControl("Disconnect", to: 0)
        let lost = Self.readUntilError(camera)
        #expect(lost?.code == .deviceLost, "\(String(describing: lost))")
        let again = #expect(throws: MediaError.self) { _ = try camera.nextFrame(timeoutMilliseconds: 100) }
        #expect(again?.code == .deviceLost, "a lost camera keeps saying so")
        camera.stop() // must not crash or hang; closing the last handle "replugs" vivid
        camera.stop()

        let replugged = try V4L2Camera(path: Self.capture, requested: VideoFormat(width: 640, height: 360, frameRate: 30),
                                       preferredFormats: [.yuyv])
        try replugged.start()
        defer { replugged.stop() }
        #expect(try replugged.nextFrame(timeoutMilliseconds: 3000) != nil)
    }

    @Test func fatalStreamingErrorIsDeviceLostAndStartRecovers() throws {
        let camera = try V4L2Camera(path: Self.capture, requested: VideoFormat(width: 640, height: 360, frameRate: 30),
                                    preferredFormats: [.nv12])
        try camera.start()
        defer { camera.stop() }
        #expect(try camera.nextFrame(timeoutMilliseconds: 3000) != nil)
        try Self.setVividControl("Inject Fatal Streaming Error", to: 0)
        let lost = Self.readUntilError(camera)
        #expect(lost?.code == .deviceLost, "\(String(describing: lost))")
        // start() alone (no stop() first) must reopen the lost stream, as documented.
        try camera.start()
        #expect(try camera.nextFrame(timeoutMilliseconds: 3000) != nil, "start() after a lost stream streams again")
    }

    @Test func buffersFlaggedAsErrorAreCountedAsCorrupt() throws {
        let camera = try V4L2Camera(path: Self.capture, requested: VideoFormat(width: 320, height: 180, frameRate: 30),
                                    preferredFormats: [.yu12])
        try camera.start()
        defer { camera.stop() }
        #expect(try camera.nextFrame(timeoutMilliseconds: 3000) != nil)
        try Self.setVividControl("Inject V4L2_BUF_FLAG_ERROR", to: 0)
        for _ in 0..<10 { _ = try camera.nextFrame(timeoutMilliseconds: 3000) }
        #expect(camera.statistics.corruptFrames == 1)
        #expect(camera.statistics.framesDelivered >= 9)
    }

    @Test func framesTheDriverDropsShowAsSequenceGaps() throws {
        let camera = try V4L2Camera(path: Self.capture, requested: VideoFormat(width: 320, height: 180, frameRate: 60),
                                    preferredFormats: [.yuyv])
        try Self.setVividControl("Percentage of Dropped Buffers", to: 50)
        defer { try? Self.setVividControl("Percentage of Dropped Buffers", to: 0) }
        try camera.start()
        defer { camera.stop() }
        var sequences: [UInt64] = []
        while sequences.count < 30, let frame = try camera.nextFrame(timeoutMilliseconds: 3000) {
            sequences.append(frame.sequence)
        }
        #expect(sequences.count == 30)
        let gaps = zip(sequences, sequences.dropFirst()).reduce(UInt64(0)) { $0 + ($1.1 - $1.0 - 1) }
        #expect(gaps > 0, "with half the buffers dropped, 30 frames cannot be consecutive: \(sequences)")
        #expect(camera.statistics.framesDropped >= gaps)
    }
}
