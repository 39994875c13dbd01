import OTSignaling
/// Writes `{"scenario": s, "results": [...]}` by hand, with a fixed field order
/// (name, value, unit, baseline, ratio, goal, pass) and null for absent fields.
enum JSONReport {
    /// The whole report as one line of JSON.
    static func render(scenario: String, results: [BenchResult]) -> String {
        var out = "{\"scenario\": \(string(scenario)), \"results\": ["
        for (index, row) in results.enumerated() {
            if index > 0 { out += ", " }
            out += "{\"name\": \(string(row.name)), \"value\": \(number(row.value)), \"unit\": \(string(row.unit)), "
            out += "\"baseline\": \(number(row.baseline)), \"ratio\": \(number(row.ratio)), "
            out += "\"goal\": \(number(row.goal)), \"pass\": \(row.pass.map { $0 ? "true" : "false" } ?? "null")}"
        }
        return out + "]}"
    }

    /// A JSON number rounded to 4 decimals, or null (also for NaN and infinities).
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        let rounded = (value * 10_000).rounded() / 10_000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return "\(rounded)"
    }

    /// A JSON string literal (OTSignaling's one escaping rule).
    static func string(_ text: String) -> String { JSONString.literal(text) }
}
