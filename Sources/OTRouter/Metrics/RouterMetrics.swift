import OTNet

/// A snapshot of what the router has done, as `/metrics` prints it. A plain value.
public struct RouterMetrics: Sendable, Equatable {
    /// Sessions the router knows (created by REST or joined; OpenTok sessions never expire).
    public var sessions = 0
    /// Sessions with at least one connection.
    public var activeSessions = 0
    /// Connections, including those waiting out their reconnection grace.
    public var connections = 0
    /// Published streams.
    public var streams = 0
    /// Subscriptions.
    public var subscribers = 0
    /// The media plane's totals (packets in/out/dropped, muted audio dropped, bad packets).
    public var media = ForwardingCounters()
    /// Refused connection tokens by reason (`expired`, `bad_signature`, `wrong_session`, ...).
    public var badTokens: [String: UInt64] = [:]
    /// Signaling messages that did not parse (answered with 1011).
    public var badMessages: UInt64 = 0
    /// Browser SDP (publish offers, subscriber answers) refused: malformed, over
    /// `SDPLimits`, or not negotiable (answered with 1500 / 1600).
    public var sdpRejected: UInt64 = 0
    /// Signals delivered (one per signal request, whoever sent it: client or REST).
    public var signals: UInt64 = 0
    /// REST requests answered, by HTTP status.
    public var restRequests: [Int: UInt64] = [:]
    /// REST calls refused for their project JWT, by reason (`expired`, `lifetime_too_long`,
    /// `replayed`, `bad_signature`, `unknown_api_key`, `missing`, ...).
    public var restAuthRefused: [String: UInt64] = [:]
    /// What the web server refused: bad HTTP framing, unauthenticated WebSockets, accepts
    /// in the descriptor reserve, failed accepts.
    public var web = WebServerStatistics()

    /// Requests refused by a limit, by limit (`RouterLimit` raw values).
    public var limitRefusals: [String: UInt64] = [:]
    /// Sessions removed after sitting empty for `RouterLimits.idleSessionSeconds`.
    public var idleSessionsRemoved: UInt64 = 0
    /// UDP sockets the media plane has open now (one per leg).
    public var mediaSockets = 0
    /// What the cluster plane has done (`--redis`), nil for a router running alone.
    public var cluster: ClusterStatistics?
    /// What the media cascade legs did (`MediaRouter.cascadeCounters`), nil without a `MediaRouter`.
    public var cascade: CascadeStatistics?
    /// What proxying and REST forwarding to other nodes did (`--redis`), nil for a router running alone.
    public var forwarding: ClusterForwardingStatistics?

    /// All zero.
    public init() {}

    /// The total of ``badTokens``.
    public var badTokensTotal: UInt64 { badTokens.values.reduce(0, +) }
}
