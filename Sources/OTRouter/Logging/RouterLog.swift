import OTSignaling
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The router's structured log: one JSON object per line on standard error,
/// `{"time":"2026-11-29T22:10:25.123Z","level":"info","event":"connection.created","session":"1_MX4…","connection":"…",…}`.
/// Lines below the configured level cost one comparison. Callers never pass secrets or
/// whole tokens (only a token's format and why it was refused).
public final class RouterLog: Sendable {
    /// The least severe level written.
    public let level: LogLevel
    private let sink: @Sendable (String) -> Void

    /// A log writing lines at or above `level`; `sink` receives each line with its newline
    /// (default: standard error, one `write(2)` per line so lines never interleave).
    public init(level: LogLevel, sink: (@Sendable (String) -> Void)? = nil) {
        self.level = level
        self.sink = sink ?? RouterLog.writeStandardError
    }

    /// Writes one line if `level` is enabled. `fields` are extra string values (sorted by
    /// name in the output). Cost when enabled: one JSON encode and one write.
    public func log(_ level: LogLevel, _ event: String, session: String? = nil, connection: String? = nil,
                    _ fields: [String: String] = [:]) {
        guard level != .off, level >= self.level else { return }
        var line = "{\"time\":\(Self.quote(Self.timestamp())),\"level\":\(Self.quote(level.rawValue)),\"event\":\(Self.quote(event))"
        if let session { line += ",\"session\":\(Self.quote(session))" }
        if let connection { line += ",\"connection\":\(Self.quote(connection))" }
        if !fields.isEmpty {
            line += ",\"fields\":{" + fields.sorted { $0.key < $1.key }.map { "\(Self.quote($0.key)):\(Self.quote($0.value))" }
                .joined(separator: ",") + "}"
        }
        line += "}\n"
        sink(line)
    }

    /// A JSON string literal of `text` (OTSignaling's one escaping rule).
    static func quote(_ text: String) -> String { JSONString.literal(text) }

    private static func timestamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = time_t(spec.tv_sec)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(spec.tv_nsec / 1_000_000))
    }

    @Sendable private static func writeStandardError(_ line: String) {
        var line = line
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
