import Foundation
import OTMedia
import Testing

/// The interop readers (Support/GStreamer) on files of known content, without GStreamer:
/// raw I420 frames of the test pattern read back with every number and PSNR 100, and a
/// damaged frame counted but not identified.
@Suite struct InteropReaderTests {
    @Test func i420FileRoundTrip() throws {
        let path = FileManager.default.temporaryDirectory.path + "/otkit-i420-\(getpid()).i420"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (width, height) = (320, 240)
        let frame = VideoFrame(width: width, height: height)
        var bytes: [UInt8] = []
        for number: UInt32 in [5, 6, 8, 7] {
            TestPatternRenderer.render(number, into: frame)
            for row in 0..<height { bytes += UnsafeBufferPointer(start: frame.y + row * frame.strideY, count: width) }
            for plane in [frame.u, frame.v] {
                for row in 0..<frame.chromaHeight {
                    bytes += UnsafeBufferPointer(start: plane + row * frame.strideUV, count: frame.chromaWidth)
                }
            }
        }
        // A fifth frame of mid-grey (no stamp) and half a frame that must be ignored.
        bytes += [UInt8](repeating: 128, count: width * height * 3 / 2 + width * height / 2)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))

        let reader = try I420FileReader(path: path, width: width, height: height)
        #expect(reader.frameCount == 5)
        let summary = try DecodedVideoSummary(i420Path: path, width: width, height: height, sentNumbers: 5..<10)
        #expect(summary.framesDecoded == 5)
        #expect(summary.framesIdentified == 4)
        #expect(summary.distinctNumbers == 4)
        #expect(summary.framesOutOfOrder == 1)  // 7 after 8
        #expect(abs(summary.fractionPresent - 0.8) < 1e-9)
        #expect(summary.meanPSNRY == 100)
    }
}
