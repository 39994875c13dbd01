import OTMedia

/// One timed run of one side: totals over the frames after the warm-up.
struct PassSample {
    /// Thread CPU time spent inside the side's encode calls (timer cost subtracted).
    var cpuNanoseconds: UInt64 = 0
    /// Allocations made inside the side's encode calls.
    var allocations: UInt64 = 0
    /// Frames measured (all frames minus the warm-up).
    var frames = 0
    /// Compressed bytes produced over all frames, warm-up included.
    var bytes = 0
}

/// Measures two encoders side by side, frame by frame, on one thread.
///
/// Each run encodes every frame on both sides back to back: frame i goes to OTKit then
/// to the bare loop, frame i+1 to the bare loop then OTKit, and so on (the first side
/// also flips from run to run), so whatever disturbs the machine over time — another
/// tenant, a cache shared with it, clock drift — falls on both sides alike, and neither
/// always finds the frame already in cache. Each call is timed on
/// `CLOCK_THREAD_CPUTIME_ID` and its allocations are counted; the first `warmUp`
/// frames (encoder start-up, the first keyframe) are encoded but not counted.
struct SideBySide {
    let frameCount: Int
    let warmUp: Int
    /// What one `threadCPUNanoseconds()` reading costs, subtracted from every interval.
    let timerCost: UInt64

    /// Runs both sides over all frames once; `otkitFirst` picks who starts.
    /// Each closure encodes frame `index` and returns the bytes it produced.
    func run(otkitFirst: Bool, otkit: (Int) throws -> Int, bare: (Int) throws -> Int) rethrows -> (otkit: PassSample, bare: PassSample) {
        var o = PassSample(), b = PassSample()
        for index in 0..<frameCount {
            if (index % 2 == 0) == otkitFirst {
                try measure(index, otkit, into: &o)
                try measure(index, bare, into: &b)
            } else {
                try measure(index, bare, into: &b)
                try measure(index, otkit, into: &o)
            }
        }
        return (o, b)
    }

    @inline(__always)
    private func measure(_ index: Int, _ encode: (Int) throws -> Int, into sample: inout PassSample) rethrows {
        let allocationsBefore = AllocationCounter.count
        let start = threadCPUNanoseconds()
        let bytes = try encode(index)
        let end = threadCPUNanoseconds()
        let allocationsAfter = AllocationCounter.count
        sample.bytes += bytes
        guard index >= warmUp else { return }
        sample.cpuNanoseconds += (end - start) > timerCost ? (end - start) - timerCost : 0
        sample.allocations += allocationsAfter - allocationsBefore
        sample.frames += 1
    }

    /// The cost of one `threadCPUNanoseconds()` call: the smallest gap between two
    /// back-to-back readings over a thousand tries (a syscall under KVM, ~0.1–1 µs).
    static func measureTimerCost() -> UInt64 {
        var best = UInt64.max
        for _ in 0..<1000 {
            let a = threadCPUNanoseconds()
            let b = threadCPUNanoseconds()
            best = min(best, b - a)
        }
        return best
    }

    /// Runs `runs` times, flipping which side starts each run, and collects both sides.
    func repeated(runs: Int, label: String, log: ProgressLog,
                  makeRun: (_ otkitFirst: Bool) throws -> (otkit: PassSample, bare: PassSample)) rethrows -> (otkit: SideSamples, bare: SideSamples) {
        var otkitSamples = SideSamples(), bareSamples = SideSamples()
        for run in 0..<runs {
            let (o, b) = try makeRun(run % 2 == 0)
            otkitSamples.append(o)
            bareSamples.append(b)
            let om = otkitSamples.millisecondsPerFrame.last!, bm = bareSamples.millisecondsPerFrame.last!
            log("  \(label) run \(run + 1)/\(runs): OTKit \(TableReport.format(om)) ms/frame, bare \(TableReport.format(bm)) ms/frame, ratio \(TableReport.format(om / bm))")
        }
        return (otkitSamples, bareSamples)
    }
}
