import Foundation

/// The human-readable report: one aligned row per result.
enum TableReport {
    /// The table as text, ending with a line that counts passes and misses.
    static func render(scenario: String, results: [BenchResult]) -> String {
        let header = ["result", "value", "unit", "bare", "ratio", "goal", "pass"]
        var rows = [header]
        for row in results {
            rows.append([
                row.name,
                format(row.value),
                row.unit,
                row.baseline.map(format) ?? "-",
                row.ratio.map { String(format: "%.3f", $0) } ?? "-",
                row.goal.map { (row.goalIsMinimum ? "≥ " : "≤ ") + format($0) } ?? "-",
                row.pass.map { $0 ? "yes" : "NO" } ?? "-",
            ])
        }
        var widths = [Int](repeating: 0, count: header.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var out = "otbench \(scenario)\n"
        for (index, row) in rows.enumerated() {
            var line = ""
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                // Text columns left-aligned, numbers right-aligned.
                line += (i == 0 || i == 2) ? cell + pad : pad + cell
                if i < row.count - 1 { line += "  " }
            }
            out += line + "\n"
            if index == 0 { out += String(repeating: "-", count: line.count) + "\n" }
        }
        let goals = results.compactMap(\.pass)
        out += "\(goals.filter { $0 }.count) of \(goals.count) goals met\n"
        return out
    }

    /// A number with 3 significant decimals for small values, fewer for large ones.
    static func format(_ value: Double) -> String {
        let magnitude = abs(value)
        if magnitude == 0 { return "0" }
        if magnitude >= 100 { return String(format: "%.1f", value) }
        if magnitude >= 1 { return String(format: "%.3f", value) }
        return String(format: "%.4f", value)
    }
}
