import Foundation
import Glibc
import Synchronization
import OTTestSupport
import Testing
@testable import OTMedia

/// Steady state of the adaptive encoder allocates nothing per frame. Counting needs the
/// malloc shim `scripts/thread-alloc-counter.c` loaded (`AllocationCounter`; scripts/test
/// loads it). (It found one allocation per `for … in array` loop per frame in debug
/// builds; the per-frame loops index instead.)
@Suite(.enabled(if: AllocationCounter.shouldRun, "the allocation counter shim is not loaded"))
struct AdaptiveEncoderAllocationTests {
    @Test(arguments: [1, 3])
    func steadyStateFramesAllocateNothing(encodings: Int) throws {
        let counter = try AllocationCounter.required()
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
        let before = counter()
        try run(120, target: encodings == 1 ? 40_000 : 150_000)
        let after = counter()
        print("adaptive encoder, \(encodings) encoding(s): \(after - before) allocations in 120 frames")
        #expect(after - before == 0)
        #expect(bytes > 0)
    }
}

/// The running publisher's video thread: one loop turn (capture, adaptive encode,
/// packetize, send, store) allocates nothing once warm. Measured from the frame hook,
/// which runs on that thread; needs the shim like the suite above.
@Suite(.enabled(if: AllocationCounter.shouldRun, "the allocation counter shim is not loaded"))
struct PublisherVideoLoopAllocationTests {
    @Test func videoThreadTurnsAllocateNothing() throws {
        let counter = try AllocationCounter.required()
        let sink = try UDPSocket(bindingTo: .ipv4Loopback())
        var configuration = PublisherConfiguration(
            destination: sink.localAddress,
            video: VP8EncoderSettings(width: 640, height: 360, frameRate: 30, bitrateKbps: 500), audio: nil)
        configuration.localAddress = .ipv4Loopback()
        configuration.useRoutedLayers(simulcastSSRCs: [0xB001, 0xB002])
        let pipeline = try PublisherPipeline(
            configuration: configuration,
            videoSource: try TestPatternSource(format: VideoFormat(width: 640, height: 360, frameRate: 30)), audioSource: nil)
        // The hook writes into memory allocated up front: it must not allocate itself,
        // or every turn would count the hook's own allocations.
        let samples = CounterSamples(capacity: 200)
        pipeline.onFrameCaptured { _, _ in samples.append(counter()) }
        pipeline.videoTargetBitrate.store(150_000, ordering: .relaxed)  // a decimated, split rung
        try pipeline.start()
        defer { pipeline.stop() }
        let deadline = ContinuousClock.now + .seconds(20)
        while samples.count < 150, ContinuousClock.now < deadline { usleep(20_000) }
        let values = samples.values
        try #require(values.count >= 150)
        // Skip the first 90 turns (pools and buffers filling, the first keyframes).
        let steady = zip(values[90...], values[91...]).map { $1 - $0 }
        print("publisher video thread: \(steady.reduce(0, +)) allocations in \(steady.count) turns: \(steady.filter { $0 > 0 })")
        #expect(steady.allSatisfy { $0 == 0 })
    }
}

/// Allocation counts written by one thread into storage allocated up front (the hook that
/// writes them must not allocate), read by the test once enough are in.
private final class CounterSamples: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<UInt64>
    private let written = Atomic<Int>(0)

    init(capacity: Int) { storage = .allocate(capacity: capacity) }
    deinit { storage.deallocate() }

    /// Keeps `value` while there is room (one writer thread).
    func append(_ value: UInt64) {
        let index = written.load(ordering: .relaxed)
        guard index < storage.count else { return }
        storage[index] = value
        written.store(index + 1, ordering: .releasing)
    }

    /// How many are kept.
    var count: Int { written.load(ordering: .acquiring) }
    /// The kept values, in order.
    var values: [UInt64] { Array(storage[0..<count]) }
}
