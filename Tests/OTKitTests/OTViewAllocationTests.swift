import OTMedia
import OTTestSupport
import Synchronization
import Testing
@testable import OTKit

/// The view's frame path allocates nothing per frame once its buffers exist: the media
/// thread's `deliver` (copy into the spare buffer, swap, the boxed `onFrame`, the window
/// wake-up) with a callback set, and again after a size change, which allocates at most
/// the one new buffer and then nothing. Needs the malloc counter shim (`AllocationCounter`).
@Suite(.enabled(if: AllocationCounter.shouldRun))
struct OTViewAllocationTests {
    @Test func deliveringFramesAllocatesNothingInSteadyState() throws {
        let read = try AllocationCounter.required()
        let view = OTView(domain: .subscriber)
        view.activate()
        let calls = Atomic<Int>(0)
        view.onFrame = { _ in calls.add(1, ordering: .relaxed) }
        let small = [VideoFrame(width: 320, height: 240), VideoFrame(width: 320, height: 240)]
        let large = [VideoFrame(width: 640, height: 480), VideoFrame(width: 640, height: 480)]
        for index in 0..<4 { view.deliver(small[index % 2]) }  // the two buffers exist now

        var before = read()
        for index in 0..<500 { view.deliver(small[index % 2]) }
        #expect(read() - before == 0, "steady state at 320x240")

        view.deliver(large[0])
        view.deliver(large[1])  // each grows one of the two buffers once
        before = read()
        for index in 0..<500 { view.deliver(large[index % 2]) }
        #expect(read() - before == 0, "steady state after growing to 640x480")
        // Shrinking reuses the larger buffers (reshape), so it allocates nothing at all.
        before = read()
        for index in 0..<100 { view.deliver(small[index % 2]) }
        #expect(read() - before == 0, "shrinking back to 320x240")
        #expect(calls.load(ordering: .relaxed) == 1106 && view.frameCount == 1106)
        #expect(view.videoDimensions == OTVideoDimensions(width: 320, height: 240))
    }
}
