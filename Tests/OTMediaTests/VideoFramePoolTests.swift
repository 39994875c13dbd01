import Testing
@testable import OTMedia

@Suite struct VideoFramePoolTests {
    @Test func framesAreRecycledOnceDropped() {
        let pool = VideoFramePool(width: 64, height: 48, initialCount: 2, maximumCount: 2)
        var first: VideoFrame? = pool.take()
        let second = pool.take()
        #expect(first != nil && second != nil)
        #expect(pool.take() == nil, "both frames are held, the pool must say so")
        let firstID = first.map(ObjectIdentifier.init)
        first = nil
        let again = pool.take()
        #expect(again.map(ObjectIdentifier.init) == firstID)
        #expect(pool.createdCount == 2)
        _ = second
    }

    @Test func i420LayoutHasAlignedStrides() {
        let frame = VideoFrame(width: 642, height: 361)
        #expect(frame.strideY == 672)
        #expect(frame.strideUV == 352)
        #expect(frame.chromaWidth == 321 && frame.chromaHeight == 181)
        #expect(frame.u == frame.y + 672 * 361)
        #expect(frame.reshape(width: 320, height: 180))
        #expect(!frame.reshape(width: 1280, height: 720))
        #expect(frame.width == 320)
    }
}
