import OTNet
import Synchronization

/// The router's event counters (the gauges come from the session registry), updated from
/// any thread under one small lock.
final class MetricsCounters: Sendable {
    private struct Counts {
        var badTokens: [String: UInt64] = [:]
        var badMessages: UInt64 = 0
        var sdpRejected: UInt64 = 0
        var signals: UInt64 = 0
        var restRequests: [Int: UInt64] = [:]
        var restAuthRefused: [String: UInt64] = [:]
        var limitRefusals: [String: UInt64] = [:]
        var idleSessionsRemoved: UInt64 = 0
    }

    private let counts = Mutex(Counts())
    /// Where the web server's refusal counts come from, once it listens.
    private let webStatistics = Mutex<(@Sendable () -> WebServerStatistics)?>(nil)

    func badToken(_ reason: String) { counts.withLock { $0.badTokens[reason, default: 0] += 1 } }
    func badMessage() { counts.withLock { $0.badMessages += 1 } }
    /// A browser's SDP refused (does not parse, too large, cannot be negotiated).
    func sdpRejected() { counts.withLock { $0.sdpRejected += 1 } }
    func signal() { counts.withLock { $0.signals += 1 } }
    func restRequest(status: Int) { counts.withLock { $0.restRequests[status, default: 0] += 1 } }
    /// A REST call whose project JWT was refused, by reason (`expired`, `replayed`, ...).
    func restAuthRefused(_ reason: String) { counts.withLock { $0.restAuthRefused[reason, default: 0] += 1 } }
    /// Reads the web server's refusal counts from `source` from now on.
    func attachWebStatistics(_ source: @escaping @Sendable () -> WebServerStatistics) { webStatistics.withLock { $0 = source } }
    /// A request refused by one of the router's limits (`RouterLimit.rawValue`).
    func limitRefused(_ limit: RouterLimit) { counts.withLock { $0.limitRefusals[limit.rawValue, default: 0] += 1 } }
    /// `count` idle sessions were removed.
    func idleSessionsRemoved(_ count: Int) { counts.withLock { $0.idleSessionsRemoved += UInt64(count) } }

    /// Copies the counters into `metrics`.
    func fill(_ metrics: inout RouterMetrics) {
        counts.withLock { counts in
            metrics.badTokens = counts.badTokens
            metrics.badMessages = counts.badMessages
            metrics.sdpRejected = counts.sdpRejected
            metrics.signals = counts.signals
            metrics.restRequests = counts.restRequests
            metrics.restAuthRefused = counts.restAuthRefused
            metrics.limitRefusals = counts.limitRefusals
            metrics.idleSessionsRemoved = counts.idleSessionsRemoved
        }
        if let source = webStatistics.withLock({ $0 }) { metrics.web = source() }
    }
}
