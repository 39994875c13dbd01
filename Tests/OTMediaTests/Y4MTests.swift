import Foundation
import Testing
@testable import OTMedia

@Suite struct Y4MTests {
    @Test func writtenFramesReadBackExactly() throws {
        let path = NSTemporaryDirectory() + "otkit-y4m-\(getpid()).y4m"
        defer { unlink(path) }
        let format = VideoFormat(width: 160, height: 90, frameRateNumerator: 30000, frameRateDenominator: 1001)
        let writer = try Y4MFileWriter(path: path, format: format)
        let frame = VideoFrame(width: 160, height: 90)
        for n: UInt32 in 0..<5 {
            TestPatternRenderer.render(n, into: frame)
            try writer.write(frame)
        }
        writer.close()

        let source = try Y4MFileSource(path: path, paced: false)
        #expect(source.format == format)
        let reference = VideoFrame(width: 160, height: 90)
        for n: UInt32 in 0..<5 {
            let read = try #require(try source.nextFrame(timeoutMilliseconds: 0))
            TestPatternRenderer.render(n, into: reference)
            #expect(VideoQuality.psnrYUV(read, reference) == 100)
        }
        #expect(throws: MediaError.self) { try source.nextFrame(timeoutMilliseconds: 0) }

        let looping = try Y4MFileSource(path: path, paced: false, loops: true)
        for _ in 0..<7 { _ = try looping.nextFrame(timeoutMilliseconds: 0) }
        #expect(looping.statistics.framesDelivered == 7)
    }

    @Test(arguments: [
        ("P6 640 480", MediaError.Code.malformedInput),
        ("YUV4MPEG2 W640 F30:1", .malformedInput),
        ("YUV4MPEG2 W640 H480 F30", .malformedInput),
        ("YUV4MPEG2 W640 H480 F30:1 C444", .unsupportedFormat),
        ("YUV4MPEG2 W640 H480 F30:1 It", .unsupportedFormat),
        ("YUV4MPEG2 W641 H480 F30:1", .malformedInput),
    ])
    func badHeadersAreRejected(line: String, code: MediaError.Code) {
        #expect { try Y4MHeader(line: line) } throws: { ($0 as? MediaError)?.code == code }
    }

    @Test func goodHeaderParses() throws {
        let header = try Y4MHeader(line: "YUV4MPEG2 W1280 H720 F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG")
        #expect(header.format == VideoFormat(width: 1280, height: 720, frameRate: 25))
    }

    @Test func missingFileIsAClearError() {
        #expect { try Y4MFileSource(path: "/nonexistent/clip.y4m") } throws: {
            ($0 as? MediaError)?.code == .noSuchDevice
        }
    }
}
