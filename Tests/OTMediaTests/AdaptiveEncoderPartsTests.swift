import Testing
@testable import OTMedia

/// The pure parts of the adaptive encoder: frame-rate decimation, encoding limits and the
/// simulcast split.
@Suite struct AdaptiveEncoderPartsTests {
    /// Keeps frames captured at `captureRate` (with ±`jitter` ns of deterministic jitter)
    /// for `seconds` and returns how many were kept.
    private func kept(captureRate: Double, target: Double, seconds: Double, jitter: UInt64 = 0) -> Int {
        var decimator = FrameRateDecimator(sourceFrameRate: 30)
        decimator.setFrameRate(target)
        var generator = AdaptiveJitterGenerator(seed: 7)
        let interval = 1_000_000_000 / captureRate
        let frames = Int(seconds * captureRate)
        var count = 0
        for i in 0..<frames {
            let offset = jitter == 0 ? 0 : UInt64.random(in: 0...(2 * jitter), using: &generator)
            let timestamp = 5_000_000_000 + UInt64(Double(i) * interval) + offset - jitter
            if decimator.admit(timestamp: timestamp) { count += 1 }
        }
        return count
    }

    @Test(arguments: [
        (30.0, 15.0, 0 as UInt64), (30.0, 7.5, 0), (30.0, 15.0, 5_000_000), (30.0, 7.5, 8_000_000),
        (25.0, 15.0, 0), (29.97, 7.5, 3_000_000), (30.0, 30.0, 5_000_000), (15.0, 7.5, 4_000_000),
    ] as [(Double, Double, UInt64)])
    func decimationFollowsCaptureTimestamps(captureRate: Double, target: Double, jitter: UInt64) {
        let count = kept(captureRate: captureRate, target: target, seconds: 20, jitter: jitter)
        let expected = min(captureRate, target) * 20
        #expect(abs(Double(count) - expected) <= expected * 0.03, "kept \(count) of \(captureRate) fps for \(target) fps")
    }

    @Test func decimationKeepsFramesEvenlySpaced() {
        var decimator = FrameRateDecimator(sourceFrameRate: 30)
        decimator.setFrameRate(7.5)
        let keptIndices = (0..<40).filter { decimator.admit(timestamp: 1_000_000_000 + UInt64($0) * 33_333_333) }
        #expect(keptIndices == Array(stride(from: 0, to: 40, by: 4)))
        // A stall restarts the grid at the next frame; a clock going back resets it.
        do { let value = decimator.admit(timestamp: 9_000_000_000); #expect(value) }
        do { let value = decimator.admit(timestamp: 9_033_333_333); #expect(!value) }
        do { let value = decimator.admit(timestamp: 100); #expect(value) }
        decimator.setFrameRate(30)
        #expect(decimator.keepsEveryFrame)
    }

    @Test func limitsFitTheAspectAndNeverRaise() {
        let limit = VideoEncodingLimit(maxWidth: 320, maxHeight: 180, maxFrameRate: 7.5)
        #expect(limit.fit(width: 1280, height: 720, frameRate: 30) == (320, 180, 7.5))
        #expect(limit.fit(width: 640, height: 480, frameRate: 30) == (240, 180, 7.5))
        #expect(limit.fit(width: 160, height: 90, frameRate: 5) == (160, 90, 5), "a limit never raises")
        #expect(VideoEncodingLimit(maxWidth: 401).fit(width: 1280, height: 720, frameRate: 30) == (400, 224, 30))
        #expect(VideoEncodingLimit(maxFrameRate: 0).fit(width: 64, height: 64, frameRate: 30).frameRate == 1)
        #expect(limit.admits(width: 320, height: 180) && !limit.admits(width: 640, height: 360))
    }

    @Test func simulcastSplitDropsTheTopFirstAndComesBackWithHysteresis() {
        let second: UInt64 = 1_000_000_000
        // Floors of 640x360@30, 320x180@30, 160x90@30 (0.02 bits per pixel per frame).
        var allocator = SimulcastAllocator(floors: [138_240, 34_560, 8_640])
        do { let value = allocator.update(target: 1_000_000, now: 0); #expect(!value) }
        #expect(allocator.firstActive == 0)
        #expect(allocator.shares == [550_000, 300_000, 150_000])
        // 200 kbps: the top gets 110 kbps < 138 kbps (not half), so it goes after 1 s.
        var now: UInt64 = second
        do { let value = allocator.update(target: 200_000, now: now); #expect(!value) }
        now += second / 2
        do { let value = allocator.update(target: 200_000, now: now); #expect(!value) }
        now += second / 2
        do { let value = allocator.update(target: 200_000, now: now); #expect(value) }
        #expect(allocator.firstActive == 1)
        #expect(allocator.shares == [0, 133_333, 66_666])
        // 40 kbps: the middle's share (26.6 kbps) is under its floor but not under half: 1 s later it goes too.
        now += second
        _ = allocator.update(target: 40_000, now: now)
        now += second
        do { let value = allocator.update(target: 40_000, now: now); #expect(value) }
        #expect(allocator.firstActive == 2 && allocator.shares == [0, 0, 40_000])
        // The smallest never goes.
        now += 10 * second
        do { let value = allocator.update(target: 1_000, now: now); #expect(!value) }
        #expect(allocator.firstActive == 2)
        // Up: 1.3 × floor for 5 s per step, one encoding at a time.
        now += second
        do { let value = allocator.update(target: 1_000_000, now: now); #expect(!value) }
        now += 4 * second
        do { let value = allocator.update(target: 1_000_000, now: now); #expect(!value) }
        now += second
        do { let value = allocator.update(target: 1_000_000, now: now); #expect(value) }
        #expect(allocator.firstActive == 1)
        now += 5 * second
        do { let value = allocator.update(target: 1_000_000, now: now); #expect(!value, "the next step starts its own hold") }
        now += 5 * second
        do { let value = allocator.update(target: 1_000_000, now: now); #expect(value) }
        #expect(allocator.firstActive == 0)
        // A limit excluding the top takes it off at once and keeps it off.
        allocator.setFirstEligible(1)
        #expect(allocator.firstActive == 1)
        now += 20 * second
        _ = allocator.update(target: 5_000_000, now: now)
        now += 20 * second
        do { let value = allocator.update(target: 5_000_000, now: now); #expect(!value) }
        #expect(allocator.firstActive == 1 && allocator.shares[0] == 0)
    }
}

/// The seeded generator for jitter.
typealias AdaptiveJitterGenerator = SplitMix64
