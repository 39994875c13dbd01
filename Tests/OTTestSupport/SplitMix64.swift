import OTMedia

/// The seeded generator random-input tests use, so a test repeats and a failing case can be
/// replayed from its seed: OTMedia's SplitMix64 (`ImpairmentRandom`, the impairment
/// proxy's), not a copy of it.
public typealias SplitMix64 = ImpairmentRandom

extension ImpairmentRandom {
    /// Uniform in [0, 1).
    public mutating func unit() -> Double { nextUnit() }

    /// Uniform in [-1, 1).
    public mutating func symmetric() -> Double { Double(next() >> 11) / Double(1 << 52) - 1 }
}
