import Foundation

/// Wall-clock time in whole Unix seconds, the unit of every token and JWT time claim.
/// Token APIs take `now` as a parameter defaulting to this, so tests inject their clock.
public enum UnixTime {
    /// The current Unix time in seconds (one `clock_gettime` via Foundation).
    public static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// 30 days in seconds: the longest a connection token may live.
    public static let thirtyDays: Int64 = 2_592_000
    /// 24 hours in seconds: the default connection-token lifetime.
    public static let oneDay: Int64 = 86_400
}
