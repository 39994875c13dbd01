import Testing
@testable import OTMedia

/// The README's main job with a real camera: vivid's frames through the VP8 encoder and
/// decoder, as `otkit demo` runs them (QEMU VM harness only).
@Suite(.enabled(if: HardwareTests.enabled, "needs vivid; set OTKIT_HARDWARE_TESTS=1 in the VM"), .serialized)
struct HardwareCameraCodecTests {
    @Test func cameraFramesSurviveVP8RoundTrip() throws {
        let camera = try V4L2Camera(path: "/dev/video0", requested: VideoFormat(width: 640, height: 360, frameRate: 30))
        try camera.start()
        defer { camera.stop() }
        let format = camera.format
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(
            width: format.width, height: format.height, frameRate: format.frameRate, bitrateKbps: 1000))
        let decoder = try VP8Decoder()
        var psnr: [Double] = []
        while psnr.count < 45 {
            let frame = try #require(try camera.nextFrame(timeoutMilliseconds: 2000), "vivid stopped delivering")
            var decoded: VideoFrame?
            try encoder.encode(frame) { packet in
                decoded = try? decoder.decode(packet.data, timestampNanoseconds: packet.timestampNanoseconds)
            }
            let picture = try #require(decoded)
            #expect(picture.width == format.width && picture.height == format.height)
            #expect(picture.timestampNanoseconds == frame.timestampNanoseconds, "the capture time travels with the frame")
            psnr.append(VideoQuality.psnrY(frame, picture))
        }
        let mean = psnr.reduce(0, +) / Double(psnr.count)
        #expect(mean >= 32, "vivid's colour bars through VP8 at 1 Mbps: mean Y-PSNR \(mean) dB")
    }
}
