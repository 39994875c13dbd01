import Glibc
import Testing
@testable import OTMedia

/// Steady state of the adaptive encoder allocates nothing per frame. Counting needs the
/// malloc shim `scripts/thread-alloc-counter.c` (it exports `otk_thread_allocations()`,
/// the calling thread's allocations) loaded with LD_PRELOAD, see the file; without it the
/// test only runs the frames. (It found one allocation per `for … in array` loop per frame
/// in debug builds; the per-frame loops index instead.)
@Suite struct AdaptiveEncoderAllocationTests {
    private typealias Counter = @convention(c) () -> UInt64

    @Test(arguments: [1, 3])
    func steadyStateFramesAllocateNothing(encodings: Int) throws {
        var settings = AdaptiveEncoderHarness.settings(width: 640, height: 360, bitrateKbps: 600,
                                                       ssrcs: Array(UInt32(1)...UInt32(encodings)), temporalLayers: 3)
        settings.fallback = .publisher
        let encoder = try AdaptiveVideoEncoder(settings: settings)
        let frame = SyntheticVideo.frame(0, width: 640, height: 360)
        var t: UInt64 = 0
        var bytes = 0
        func run(_ count: Int, target: UInt64) throws {
            for _ in 0..<count {
                frame.timestampNanoseconds = 1_000_000_000 + t * 33_333_333
                t += 1
                _ = try encoder.encode(frame, targetBitrate: target) { _, encoded in bytes += encoded.data.count }
            }
        }
        // Warm up on a scaled, decimated rung (one encoding: 640x360@7.5 → 320x180@7.5 at 40 kbps).
        try run(90, target: encodings == 1 ? 40_000 : 150_000)
        let counter = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "otk_thread_allocations")
            .map { unsafeBitCast($0, to: Counter.self) }
        let before = counter?() ?? 0
        try run(120, target: encodings == 1 ? 40_000 : 150_000)
        let after = counter?() ?? 0
        if counter != nil { print("adaptive encoder, \(encodings) encoding(s): \(after - before) allocations in 120 frames") }
        #expect(after - before == 0)
        #expect(bytes > 0)
    }
}
