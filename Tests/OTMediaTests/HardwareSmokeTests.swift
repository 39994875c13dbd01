import Foundation
import Glibc
import Testing

/// Checks that the VM in Tests/Hardware gives the test process the drivers the real
/// hardware suites rely on: vivid's capture node and the snd-aloop card. It uses only
/// Glibc, so it does not depend on the C shims other suites exercise.
@Suite(.enabled(if: HardwareTests.enabled)) struct HardwareSmokeTests {
    /// `VIDIOC_QUERYCAP` is `_IOR('V', 0, struct v4l2_capability)`; Swift cannot import the
    /// macro, so it is computed here: direction read (2) << 30 | size << 16 | 'V' << 8 | 0.
    static let queryCapabilities: UInt = (2 << 30) | (104 << 16) | (UInt(UInt8(ascii: "V")) << 8)

    @Test func queryCapRequestMatchesTheKernelHeader() {
        #expect(Self.queryCapabilities == 0x8068_5600)
    }

    @Test func vividNodeIsNamedInSysfs() throws {
        let name = try String(contentsOfFile: "/sys/class/video4linux/video0/name", encoding: .utf8)
        #expect(name.hasPrefix("vivid"), "video0 is \(name)")
    }

    @Test func video0IsAStreamingCaptureDevice() throws {
        let fd = open("/dev/video0", O_RDWR | O_NONBLOCK)
        try #require(fd >= 0, "open /dev/video0 failed: errno \(errno)")
        defer { close(fd) }
        // struct v4l2_capability: driver[16] card[32] bus_info[32] version capabilities
        // device_caps reserved[3] = 104 bytes.
        var caps = [UInt8](repeating: 0, count: 104)
        let rc = caps.withUnsafeMutableBytes { ioctl(fd, Self.queryCapabilities, $0.baseAddress!) }
        try #require(rc == 0, "VIDIOC_QUERYCAP failed: errno \(errno)")
        let driver = String(decoding: caps[0..<16].prefix { $0 != 0 }, as: UTF8.self)
        #expect(driver == "vivid")
        let deviceCaps = caps[88..<92].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(deviceCaps & 0x0000_0001 != 0, "V4L2_CAP_VIDEO_CAPTURE")
        #expect(deviceCaps & 0x0400_0000 != 0, "V4L2_CAP_STREAMING")
    }

    @Test func loopbackSoundCardIsListed() throws {
        let cards = try String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)
        #expect(cards.contains("Loopback"), "cards: \(cards)")
    }
}
