import OTMedia
import Testing
@testable import OTKit

/// The per-frame wrapper (renderer and test-pattern hand-overs) is reused while nobody
/// keeps it, so steady-state rendering allocates no OTVideoFrame, and replaced the
/// moment a renderer holds on to one, so a kept frame never changes under its holder.
@Suite struct VideoFrameWrapperTests {
    @Test func aWrapperNobodyKeptIsReusedAndLetsGoOfItsPixels() {
        var slot: OTVideoFrame?
        weak var firstPixels: VideoFrame?
        var id: ObjectIdentifier?
        do {
            let first = VideoFrame(width: 64, height: 48)
            firstPixels = first
            let wrapper = OTVideoFrame.wrap(first, reusing: &slot)
            #expect(wrapper.videoFrame === first)
            wrapper.orientation = .down
            id = ObjectIdentifier(wrapper)
        }
        OTVideoFrame.release(&slot)
        #expect(firstPixels == nil, "released: the pixels went back as soon as the hand-over ended")
        let second = VideoFrame(width: 64, height: 48)
        let again = OTVideoFrame.wrap(second, reusing: &slot)
        #expect(ObjectIdentifier(again) == id, "the same wrapper: no allocation")
        #expect(again.videoFrame === second && again.orientation == .up)
    }

    @Test func aWrapperARendererKeptIsNeitherReusedNorEmptied() {
        var slot: OTVideoFrame?
        let first = VideoFrame(width: 64, height: 48)
        let kept = OTVideoFrame.wrap(first, reusing: &slot)
        OTVideoFrame.release(&slot)
        let second = VideoFrame(width: 64, height: 48)
        let next = OTVideoFrame.wrap(second, reusing: &slot)
        #expect(next !== kept, "a new wrapper for the next frame")
        #expect(kept.videoFrame === first, "the kept one still shows its own picture")
        #expect(next.videoFrame === second)
    }
}
