/// A small command-line parser: `--name value` (or `--name=value`) and `--flag`; anything
/// else is a usage error.
/// Errors name the bad argument and what would be right (exit code 2 by convention).
struct Arguments {
    private(set) var options: [String: String] = [:]
    private(set) var flags: Set<String> = []

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses `words`; `valued` names the options that take a value.
    init(_ words: ArraySlice<String>, valued: Set<String>, flags known: Set<String>) throws {
        var iterator = words.makeIterator()
        while let word = iterator.next() {
            guard word.hasPrefix("--") else {
                throw UsageError(description: "unexpected argument '\(word)' (options start with --; see --help)")
            }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if valued.contains(name) {
                guard let value = inlineValue ?? iterator.next() else {
                    throw UsageError(description: "--\(name) needs a value")
                }
                options[name] = value
            } else if known.contains(name) {
                guard inlineValue == nil else { throw UsageError(description: "--\(name) takes no value") }
                flags.insert(name)
            } else {
                let all = (valued.union(known)).sorted().map { "--\($0)" }.joined(separator: ", ")
                throw UsageError(description: "unknown option --\(name) (known: \(all))")
            }
        }
    }

    func int(_ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = options[name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(description: "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    func size(_ name: String, default value: (Int, Int)) throws -> (Int, Int) {
        guard let text = options[name] else { return value }
        let parts = text.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w % 2 == 0, h % 2 == 0 else {
            throw UsageError(description: "--\(name) must be WIDTHxHEIGHT with even numbers, e.g. 640x480, not '\(text)'")
        }
        return (w, h)
    }
}
