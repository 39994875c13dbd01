import Testing
@testable import OTMedia

/// The frame number stamped by the test pattern must survive real VP8 compression:
/// later issues identify every received frame by it.
@Suite struct TestPatternCodecTests {
    @Test(arguments: [(640, 480), (320, 180)])
    func frameNumbersSurviveVP8At500kbps(width: Int, height: Int) throws {
        let source = try TestPatternSource(format: VideoFormat(width: width, height: height), paced: false, firstFrameNumber: 5000)
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: width, height: height, frameRate: 30, bitrateKbps: 500))
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
        let meanPSNR = psnrSum / Double(max(readBack.count, 1))
        #expect(meanPSNR > 30, "decoded pictures match the pattern the stamp names (mean Y-PSNR \(meanPSNR) dB)")
    }
}
