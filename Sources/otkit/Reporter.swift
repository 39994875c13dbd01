import Glibc

/// A value in a log line: text, a whole number, a decimal or a flag.
enum LogValue {
    case text(String)
    case int(Int)
    case number(Double)
    case flag(Bool)

    var json: String {
        switch self {
        case .text(let s): return Reporter.quoted(s)
        case .int(let i): return "\(i)"
        case .number(let d): return d.isFinite ? formatted(d, 3) : "null"
        case .flag(let b): return b ? "true" : "false"
        }
    }
}

/// What the long-running commands print. On a terminal (and `--log-format text`): one
/// live status line rewritten in place, with events on lines of their own above it.
/// Otherwise (`--log-format json`, or output to a pipe, a file or the journal): one
/// JSON object per line, `{"time":…,"event":…,…}`, for status reports and events alike.
/// Writes go straight to standard output (unbuffered), so a supervisor sees them at once.
final class Reporter: @unchecked Sendable {
    /// Whether lines are JSON.
    let json: Bool
    private let live: Bool
    private var shown = false
    private let lock = Lock()

    /// `format`: "json", "text" or nil (JSON unless standard output is a terminal).
    init(format: String?) throws {
        switch format {
        case nil: json = isatty(STDOUT_FILENO) != 1
        case "json": json = true
        case "text": json = false
        case let other?: throw Arguments.UsageError(description: "--log-format must be json or text, not '\(other)'")
        }
        live = !json && isatty(STDOUT_FILENO) == 1
    }

    /// An event (connected, camera lost, reconnecting…): `message` for people, the fields for machines.
    func event(_ name: String, _ message: String, _ fields: [(String, LogValue)] = []) {
        lock.locked {
            if json {
                writeAll(STDOUT_FILENO, line(name, [("message", .text(message))] + fields))
            } else {
                writeAll(STDOUT_FILENO, (live && shown ? "\r\u{1B}[K" : "") + message + "\n")
                shown = false
            }
        }
    }

    /// A periodic status report: rewritten in place on a terminal, a JSON line otherwise.
    func status(_ text: String, _ fields: [(String, LogValue)]) {
        lock.locked {
            if json {
                writeAll(STDOUT_FILENO, line("status", fields))
            } else if live {
                writeAll(STDOUT_FILENO, "\r\u{1B}[K" + text)
                shown = true
            } else {
                writeAll(STDOUT_FILENO, text + "\n")
            }
        }
    }

    /// Ends the live line (before the process prints its last words).
    func finish() {
        lock.locked {
            if live && shown { writeAll(STDOUT_FILENO, "\n") }
            shown = false
        }
    }

    private func line(_ event: String, _ fields: [(String, LogValue)]) -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let time = Double(ts.tv_sec) + Double(ts.tv_nsec / 1_000_000) / 1000
        var out = "{\"time\":\(formatted(time, 3)),\"event\":\(Self.quoted(event))"
        for (key, value) in fields { out += ",\(Self.quoted(key)):\(value.json)" }
        return out + "}\n"
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// A pthread mutex for the command's small critical sections (no I/O-heavy work inside
/// except the one unbuffered write of a log line).
final class Lock: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}
