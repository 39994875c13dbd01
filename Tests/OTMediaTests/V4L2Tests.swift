import Foundation
import Testing
@testable import OTMedia

/// V4L2 behaviour that needs no camera: discovery on a camera-less machine, the three
/// "not a camera" errors, negotiation over device tables, sequence accounting.
@Suite struct V4L2Tests {
    static var machineHasVideoNodes: Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []).contains { $0.hasPrefix("video") }
    }

    @Test(.enabled(if: !V4L2Tests.machineHasVideoNodes, "this machine has /dev/video* nodes"))
    func noCameraMeansNoDevices() {
        #expect(V4L2Camera.devices() == [])
    }

    /// Where cameras exist, every listed device opens as a capture device (or is busy)
    /// and lists at least one format; on machines without /dev/video* this is skipped.
    @Test(.enabled(if: V4L2Tests.machineHasVideoNodes, "no /dev/video* nodes on this machine"))
    func listedDevicesOpenAsCaptureDevices() {
        for device in V4L2Camera.devices() {
            #expect(!device.formats.isEmpty, "\(device.path) lists no formats")
            do { _ = try V4L2Camera(path: device.path) } catch {
                #expect(error.code == .deviceBusy, "\(device.path): \(error)")
            }
        }
    }

    static func openError(_ path: String) -> MediaError? {
        #expect(throws: MediaError.self) { _ = try V4L2Camera(path: path) }
    }

    @Test func missingPathIsNoSuchDevice() throws {
        let error = try #require(Self.openError("/dev/video-otkit-missing-42"))
        #expect(error.code == .noSuchDevice)
        #expect(error.message.contains("/dev/video-otkit-missing-42"))
        #expect(error.message.contains("does not exist"))
    }

    @Test func regularFileIsNotACaptureDevice() throws {
        let path = NSTemporaryDirectory() + "otkit-not-a-camera-\(getpid())"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("hello".utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = try #require(Self.openError(path))
        #expect(error.code == .notACaptureDevice)
        #expect(error.message.contains("regular file"))
    }

    @Test func directoryIsNotACaptureDevice() throws {
        let error = try #require(Self.openError("/tmp"))
        #expect(error.code == .notACaptureDevice)
        #expect(error.message.contains("directory"))
    }

    /// /dev/null is a character device that does not speak V4L2 (VIDIOC_QUERYCAP: ENOTTY).
    @Test func nonV4L2CharacterDeviceIsNotACaptureDevice() throws {
        let error = try #require(Self.openError("/dev/null"))
        #expect(error.code == .notACaptureDevice)
        #expect(error.message.contains("not a V4L2 video device"))
    }

    @Test func eachNonCameraGetsItsOwnMessage() throws {
        let path = NSTemporaryDirectory() + "otkit-not-a-camera-b-\(getpid())"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let messages = [Self.openError("/dev/video-otkit-missing-42"), Self.openError(path), Self.openError("/dev/null")]
            .map { $0?.message ?? "" }
        #expect(Set(messages).count == 3)
        let outputDevice = V4L2Errors.notCapture("/dev/video1", card: "vivid", driver: "vivid", kind: "video output")
        #expect(outputDevice.code == .notACaptureDevice)
    }

    @Test func permissionMessageNamesTheGroup() {
        let error = V4L2Errors.from(errno: EACCES, path: "/dev/video0", doing: "open")
        #expect(error.code == .permissionDenied)
        #expect(error.message.contains("sudo usermod -aG video $USER"))
        #expect(V4L2Errors.from(errno: EBUSY, path: "/dev/video0", doing: "open").code == .deviceBusy)
        #expect(V4L2Errors.from(errno: ENOENT, path: "/dev/video0", doing: "open").code == .noSuchDevice)
    }

    @Test func capabilityKindsAreNamed() {
        #expect(V4L2Device.kind(of: 0x0000_0002) == "video output")
        #expect(V4L2Device.kind(of: 0x0080_0000) == "metadata capture")
        #expect(V4L2Device.kind(of: 0) == "non-capture")
    }

    @Test func badArgumentsAreRejectedBeforeTouchingTheDevice() {
        let empty = #expect(throws: MediaError.self) { _ = try V4L2Camera(path: "/dev/null", preferredFormats: []) }
        #expect(empty?.code == .invalidArgument)
        let odd = #expect(throws: MediaError.self) {
            _ = try V4L2Camera(path: "/dev/null", requested: VideoFormat(width: 641, height: 360))
        }
        #expect(odd?.code == .invalidArgument)
    }
}

/// The format negotiation, over device tables shaped like real drivers.
@Suite struct V4L2NegotiationTests {
    static func rates(_ fps: [Int]) -> V4L2FrameIntervals {
        .discrete(fps.map { V4L2FrameInterval(numerator: 1, denominator: $0) })
    }

    /// Like vivid's webcam input: the same sizes in YUYV, NV12 and YU12, plus RGB.
    static let vividLike: [V4L2FormatInfo] = ["YUYV", "NV12", "YU12", "RGB3"].map { code in
        V4L2FormatInfo(fourcc: code, pixelFormat: PixelFormat(fourcc: V4L2Negotiation.code(code)), description: code,
                       frameSizes: .discrete([
                           V4L2FrameSize(width: 320, height: 180, intervals: rates([60, 50, 40, 30, 25, 15, 10, 5])),
                           V4L2FrameSize(width: 640, height: 360, intervals: rates([40, 30, 25, 15, 10, 5])),
                           V4L2FrameSize(width: 640, height: 480, intervals: rates([25, 15, 10, 5])),
                           V4L2FrameSize(width: 1280, height: 720, intervals: .discrete([V4L2FrameInterval(numerator: 2, denominator: 25)])),
                       ]))
    }

    /// Like a typical USB webcam: 720p is 10 fps in YUYV but 30 fps in MJPEG.
    static let webcamLike: [V4L2FormatInfo] = [
        V4L2FormatInfo(fourcc: "YUYV", pixelFormat: .yuyv, description: "YUYV 4:2:2", frameSizes: .discrete([
            V4L2FrameSize(width: 640, height: 480, intervals: rates([30, 15])),
            V4L2FrameSize(width: 1280, height: 720, intervals: rates([10, 5])),
        ])),
        V4L2FormatInfo(fourcc: "MJPG", pixelFormat: .mjpeg, description: "Motion-JPEG", frameSizes: .discrete([
            V4L2FrameSize(width: 640, height: 480, intervals: rates([30, 15])),
            V4L2FrameSize(width: 1280, height: 720, intervals: rates([30, 15])),
        ])),
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        var requested: VideoFormat
        var preferred: [PixelFormat]
        var expected: (PixelFormat, Int, Int, Int)
        var testDescription: String { "\(requested) \(preferred)" }
    }

    @Test(arguments: [
        Case(requested: VideoFormat(width: 640, height: 360, frameRate: 30), preferred: PixelFormat.preferenceOrder, expected: (.yu12, 640, 360, 30)),
        Case(requested: VideoFormat(width: 640, height: 360, frameRate: 30), preferred: [.yuyv], expected: (.yuyv, 640, 360, 30)),
        Case(requested: VideoFormat(width: 640, height: 360, frameRate: 30), preferred: [.nv12, .yuyv], expected: (.nv12, 640, 360, 30)),
        Case(requested: VideoFormat(width: 640, height: 480, frameRate: 30), preferred: [.yuyv], expected: (.yuyv, 640, 480, 25)),
        Case(requested: VideoFormat(width: 320, height: 180, frameRate: 60), preferred: [.yuyv], expected: (.yuyv, 320, 180, 60)),
        Case(requested: VideoFormat(width: 1920, height: 1080, frameRate: 30), preferred: [.yuyv], expected: (.yuyv, 1280, 720, 0)),
        Case(requested: VideoFormat(width: 960, height: 540, frameRate: 30), preferred: [.yuyv], expected: (.yuyv, 1280, 720, 0)),
        Case(requested: VideoFormat(width: 600, height: 340, frameRate: 30), preferred: [.yuyv], expected: (.yuyv, 640, 360, 30)),
        Case(requested: VideoFormat(width: 640, height: 360, frameRate: 100), preferred: [.yuyv], expected: (.yuyv, 640, 360, 40)),
    ])
    func vividTable(_ test: Case) throws {
        let choice = try #require(V4L2Negotiation.choose(formats: Self.vividLike, requested: test.requested, preferred: test.preferred))
        #expect(choice.pixelFormat == test.expected.0)
        #expect(choice.fourcc == test.expected.0.fourcc)
        #expect(choice.width == test.expected.1 && choice.height == test.expected.2)
        if test.expected.3 > 0 {
            #expect(choice.interval == V4L2FrameInterval(numerator: 1, denominator: test.expected.3))
        } else {
            #expect(choice.interval == V4L2FrameInterval(numerator: 2, denominator: 25))
        }
    }

    @Test func rateDecidesBetweenFormatsOfTheSameSize() throws {
        let raw = try #require(V4L2Negotiation.choose(formats: Self.webcamLike, requested: VideoFormat(width: 1280, height: 720, frameRate: 30),
                                                      preferred: PixelFormat.preferenceOrder))
        #expect(raw.pixelFormat == .mjpeg, "YUYV 720p gives only 10 fps; MJPEG gives 30")
        #expect(raw.interval == V4L2FrameInterval(numerator: 1, denominator: 30))
        let small = try #require(V4L2Negotiation.choose(formats: Self.webcamLike, requested: VideoFormat(width: 640, height: 480, frameRate: 30),
                                                        preferred: PixelFormat.preferenceOrder))
        #expect(small.pixelFormat == .yuyv, "at equal size and rate, raw beats MJPEG")
        let onlyRaw = try #require(V4L2Negotiation.choose(formats: Self.webcamLike, requested: VideoFormat(width: 1280, height: 720, frameRate: 30),
                                                          preferred: [.yuyv]))
        #expect(onlyRaw.pixelFormat == .yuyv && onlyRaw.width == 1280 && onlyRaw.interval?.framesPerSecond == 10)
    }

    @Test func noConvertibleFormatGivesNil() {
        let rgbOnly = [V4L2FormatInfo(fourcc: "RGB3", pixelFormat: nil, description: "RGB", frameSizes: .discrete([]))]
        #expect(V4L2Negotiation.choose(formats: rgbOnly, requested: VideoFormat(width: 640, height: 480), preferred: PixelFormat.preferenceOrder) == nil)
        #expect(V4L2Negotiation.choose(formats: Self.webcamLike, requested: VideoFormat(width: 640, height: 480), preferred: [.nv12]) == nil)
    }

    @Test func stepwiseSizesSnapToTheGrid() throws {
        let range = V4L2FrameSizeRange(minWidth: 160, maxWidth: 1920, stepWidth: 16, minHeight: 120, maxHeight: 1080, stepHeight: 8,
                                       intervals: .stepwise(minimum: V4L2FrameInterval(numerator: 1, denominator: 60),
                                                            maximum: V4L2FrameInterval(numerator: 1, denominator: 1),
                                                            step: V4L2FrameInterval(numerator: 1, denominator: 1_000_000)))
        #expect(range.nearest(width: 650, height: 370) == (656, 368))
        #expect(range.nearest(width: 4000, height: 10) == (1920, 120))
        let formats = [V4L2FormatInfo(fourcc: "NV12", pixelFormat: .nv12, description: "NV12", frameSizes: .stepwise(range))]
        let choice = try #require(V4L2Negotiation.choose(formats: formats, requested: VideoFormat(width: 640, height: 360, frameRate: 30),
                                                         preferred: PixelFormat.preferenceOrder))
        #expect(choice.width == 640 && choice.height == 360)
        #expect(choice.interval == V4L2FrameInterval(numerator: 1, denominator: 30))
    }

    @Test func driverWithoutSizeListGetsTheRequestedSize() throws {
        let formats = [V4L2FormatInfo(fourcc: "YUYV", pixelFormat: .yuyv, description: "YUYV", frameSizes: .discrete([]))]
        let choice = try #require(V4L2Negotiation.choose(formats: formats, requested: VideoFormat(width: 800, height: 600, frameRate: 20),
                                                         preferred: [.yuyv]))
        #expect(choice.width == 800 && choice.height == 600 && choice.interval == nil)
    }

    @Test func intervalsPickTheNearestRate() {
        let list = Self.rates([5, 10, 30, 40])
        #expect(list.nearest(framesPerSecond: 30)?.denominator == 30)
        #expect(list.nearest(framesPerSecond: 60)?.denominator == 40)
        #expect(list.nearest(framesPerSecond: 1)?.denominator == 5)
        #expect(V4L2FrameIntervals.discrete([]).nearest(framesPerSecond: 30) == nil)
        #expect(V4L2FrameInterval(rate: 29.97) == V4L2FrameInterval(numerator: 1000, denominator: 29970))
        #expect(V4L2FrameInterval(numerator: 1001, denominator: 30000).framesPerSecond > 29.97)
    }
}

@Suite struct V4L2SequenceTrackerTests {
    @Test func gapsAreCountedAndWrapsExtendTheCount() {
        var tracker = V4L2SequenceTracker()
        #expect(tracker.record(7) == (7, 0))
        #expect(tracker.record(8) == (8, 0))
        #expect(tracker.record(11) == (11, 2))
        var wrapping = V4L2SequenceTracker()
        _ = wrapping.record(UInt32.max - 1)
        #expect(wrapping.record(UInt32.max) == (UInt64(UInt32.max), 0))
        #expect(wrapping.record(1) == (1 << 32 | 1, 1))
        var restarted = V4L2SequenceTracker()
        _ = restarted.record(500)
        #expect(restarted.record(0).gap == 0, "a backwards jump is a restart, not four billion drops")
    }
}
