/// One measured figure: what it is, its value, and how it compares with the bare loop.
///
/// `goal` bounds `ratio` when the row has one, else `value`; `pass` says whether the
/// bound holds. Rows without a baseline or a goal carry nil there (null in JSON).
struct BenchResult: Equatable {
    var name: String
    var value: Double
    var unit: String
    var baseline: Double? = nil
    var ratio: Double? = nil
    var goal: Double? = nil
    var pass: Bool? = nil
    /// Whether `goal` is a floor (ratio ≥ goal, for throughputs) rather than a ceiling.
    var goalIsMinimum = false

    /// A row measured against a baseline: ratio = value / baseline, pass = ratio ≤ goal.
    static func compared(_ name: String, value: Double, unit: String, baseline: Double, goal: Double?) -> BenchResult {
        let ratio = baseline > 0 ? value / baseline : nil
        var row = BenchResult(name: name, value: value, unit: unit, baseline: baseline, ratio: ratio, goal: goal)
        if let goal { row.pass = ratio.map { $0 <= goal } ?? false }
        return row
    }

    /// A throughput measured against a baseline: ratio = value / baseline, pass = ratio ≥ goal.
    static func comparedAtLeast(_ name: String, value: Double, unit: String, baseline: Double, goal: Double) -> BenchResult {
        let ratio = baseline > 0 ? value / baseline : nil
        return BenchResult(name: name, value: value, unit: unit, baseline: baseline, ratio: ratio, goal: goal,
                           pass: ratio.map { $0 >= goal } ?? false, goalIsMinimum: true)
    }

    /// A row with an upper bound on the value itself (e.g. allocations per frame ≤ 0).
    static func bounded(_ name: String, value: Double, unit: String, baseline: Double? = nil, goal: Double) -> BenchResult {
        BenchResult(name: name, value: value, unit: unit, baseline: baseline, ratio: nil, goal: goal, pass: value <= goal)
    }

    /// A row that only informs (no goal).
    static func info(_ name: String, value: Double, unit: String, baseline: Double? = nil) -> BenchResult {
        BenchResult(name: name, value: value, unit: unit, baseline: baseline,
                    ratio: baseline.flatMap { $0 > 0 ? value / $0 : nil })
    }
}
