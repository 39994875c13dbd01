/// The median of a non-empty list (mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    precondition(!values.isEmpty, "median of nothing")
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Per-run figures of one side of a comparison.
struct SideSamples {
    /// CPU milliseconds per measured frame, one per run.
    var millisecondsPerFrame: [Double] = []
    /// Allocations per measured frame, one per run.
    var allocationsPerFrame: [Double] = []
    /// Compressed bytes of the last run (the same every run for a deterministic encoder).
    var bytes = 0

    /// Adds one run.
    mutating func append(_ sample: PassSample) {
        millisecondsPerFrame.append(Double(sample.cpuNanoseconds) / 1e6 / Double(max(1, sample.frames)))
        allocationsPerFrame.append(Double(sample.allocations) / Double(max(1, sample.frames)))
        bytes = sample.bytes
    }

    /// "1.23 (1.20–1.31) ms/frame": median and range, for progress lines.
    var summary: String {
        let sorted = millisecondsPerFrame.sorted()
        return "\(TableReport.format(median(sorted))) (\(TableReport.format(sorted.first!))–\(TableReport.format(sorted.last!))) ms/frame"
    }
}
