/// How severe a log line is; the router writes lines at or above its configured level.
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    /// Every message and event (noisy).
    case debug
    /// Connections, streams, REST calls that change state.
    case info
    /// Refused input (bad tokens, malformed messages), dropped sockets.
    case warning
    /// Failures of the router itself.
    case error
    /// Nothing.
    case off

    private var rank: Int {
        switch self {
        case .debug: return 0
        case .info: return 1
        case .warning: return 2
        case .error: return 3
        case .off: return 4
        }
    }

    /// Orders levels from debug (least severe) to off.
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rank < b.rank }
}
