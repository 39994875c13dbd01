import Testing
@testable import OTMedia

/// The frame number stamped by the test pattern must survive real VP8 compression:
/// later issues identify every received frame by it.
@Suite struct TestPatternCodecTests {
    @Test(arguments: [(640, 480), (320, 180)])
    func frameNumbersSurviveVP8At500kbps(width: Int, height: Int) throws {
        let meanPSNR = try roundTrip(width: width, height: height, kbps: 500)
        #expect(meanPSNR > 30, "decoded pictures match the pattern the stamp names (mean Y-PSNR \(meanPSNR) dB)")
    }

    /// The quality bar: 640x480 at 1 Mbps, 90 frames of the test pattern.
    @Test func roundTripAt1MbpsKeepsQuality() throws {
        let meanPSNR = try roundTrip(width: 640, height: 480, kbps: 1000)
        #expect(meanPSNR >= 32, "mean Y-PSNR \(meanPSNR) dB over 90 frames")
    }

    /// Encodes and decodes 90 pattern frames; checks every stamp reads back in order and
    /// returns the mean Y-PSNR against the pictures the stamps name.
    private func roundTrip(width: Int, height: Int, kbps: Int) throws -> Double {
        let source = try TestPatternSource(format: VideoFormat(width: width, height: height), paced: false, firstFrameNumber: 5000)
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: width, height: height, frameRate: 30, bitrateKbps: kbps))
        let decoder = try VP8Decoder()
        let reference = VideoFrame(width: width, height: height)
        var readBack: [UInt32] = []
        var psnrSum = 0.0
        for _ in 0..<90 {
            let frame = try #require(try source.nextFrame(timeoutMilliseconds: 0))
            var decoded: VideoFrame?
            try encoder.encode(frame) { packet in
                decoded = try? decoder.decode(packet.data, timestampNanoseconds: packet.timestampNanoseconds)
            }
            let picture = try #require(decoded)
            if let number = FrameNumberStamp.read(from: picture) {
                readBack.append(number)
                TestPatternRenderer.render(number, into: reference)
                psnrSum += VideoQuality.psnrY(reference, picture)
            }
        }
        // Every frame read back, in order, with its own number.
        #expect(readBack == Array(5000..<5090))
        return psnrSum / Double(max(readBack.count, 1))
    }
}
