import Testing
@testable import OTMedia

@Suite struct TestPatternTests {
    @Test(arguments: [(320, 180), (640, 360), (640, 480), (1280, 720)])
    func stampReadsBackItsNumber(width: Int, height: Int) {
        let frame = VideoFrame(width: width, height: height)
        for number: UInt32 in [0, 1, 2, 255, 4095, 123_456, 0xFF_FFFF] {
            TestPatternRenderer.render(number, into: frame)
            #expect(FrameNumberStamp.read(from: frame) == number)
        }
    }

    @Test func stampSurvivesNoiseButNotDamage() {
        let frame = VideoFrame(width: 640, height: 480)
        TestPatternRenderer.render(777, into: frame)
        // ±40 levels of deterministic noise over the stamp: still read.
        var seed: UInt32 = 1
        for y in 0..<32 {
            for x in 0..<256 {
                seed = seed &* 1_103_515_245 &+ 12345
                let noise = Int((seed >> 16) % 81) - 40
                let p = frame.y + y * frame.strideY + x
                p.pointee = UInt8(clamping: Int(p.pointee) + noise)
            }
        }
        #expect(FrameNumberStamp.read(from: frame) == 777)
        // Flip one cell: the CRC rejects it instead of returning a wrong number.
        let cell = FrameNumberStamp.cellSize(width: 640, height: 480)
        for y in 0..<cell {
            let row = frame.y + y * frame.strideY + 5 * cell
            row.update(repeating: row.pointee > 125 ? 16 : 235, count: cell)
        }
        #expect(FrameNumberStamp.read(from: frame) == nil)
    }

    @Test func renderingIsDeterministicAndMoves() {
        let a = VideoFrame(width: 320, height: 240), b = VideoFrame(width: 320, height: 240)
        TestPatternRenderer.render(42, into: a)
        TestPatternRenderer.render(42, into: b)
        #expect(VideoQuality.psnrYUV(a, b) == 100)
        TestPatternRenderer.render(43, into: b)
        let psnr = VideoQuality.psnrY(a, b)
        #expect(psnr < 40, "consecutive pictures must differ (PSNR \(psnr))")
    }

    @Test func unpacedSourceNumbersFramesInOrder() throws {
        let source = try TestPatternSource(format: VideoFormat(width: 320, height: 180), paced: false, firstFrameNumber: 10)
        try source.start()
        for expected in UInt64(10)..<20 {
            let frame = try #require(try source.nextFrame(timeoutMilliseconds: 100))
            #expect(frame.sequence == expected)
            #expect(FrameNumberStamp.read(from: frame) == UInt32(expected))
        }
        #expect(source.statistics.framesDelivered == 10)
        #expect(source.statistics.framesDropped == 0)
    }

    @Test func heldFramesExhaustThePoolAndAreCountedAsDropped() throws {
        let source = try TestPatternSource(format: VideoFormat(width: 64, height: 48), paced: false)
        var held: [VideoFrame] = []
        while let frame = try source.nextFrame(timeoutMilliseconds: 0) { held.append(frame) }
        #expect(held.count == 4, "the pool holds four frames")
        #expect(source.statistics.framesDropped == 1)
        held.removeAll()
        #expect(try source.nextFrame(timeoutMilliseconds: 0) != nil, "released frames are reused")
    }

    @Test func pacedSourceWithLongFirstNumberDoesNotWait() throws {
        // A source that starts at a high frame number must not wait for "frame 1000's time".
        let source = try TestPatternSource(format: VideoFormat(width: 64, height: 48, frameRate: 1), firstFrameNumber: 1000)
        let frame = try source.nextFrame(timeoutMilliseconds: 0)
        #expect(frame?.sequence == 1000)
        #expect(try source.nextFrame(timeoutMilliseconds: 0) == nil, "frame 1001 is due 1 s later, beyond a 0 ms timeout")
    }
}
