/// The router's per-client and router-wide limits, each refused with OpenTok's error code
/// where OpenTok has one and counted in `/metrics` (`otkit_limit_refusals_total{limit=…}`).
/// A plain value; the configuration file's `"limits"` object sets any of its fields.
///
/// Defaults: OpenTok's where it states one (3,000 connections per session, which stays
/// ``RouterConfiguration/maxConnectionsPerSession``), otherwise what keeps one client from
/// exhausting the machine while leaving ordinary use untouched.
public struct RouterLimits: Sendable, Equatable {
    /// Streams one connection may publish at once; the next publish gets 1500 (OpenTok
    /// clients publish one stream per session, and `OTSession` refuses a second with 1015).
    public var streamsPerConnection = 1
    /// Subscriptions one connection may hold at once; the next subscribe gets 1605
    /// (`OTSubscriberStreamLimitExceeded`). Each is a UDP socket and about 0.6 MiB.
    public var subscriptionsPerConnection = 100
    /// Connections (across sessions) from one IP address; the next connect gets 1027.
    /// Generous: many clients can share one NAT address.
    public var connectionsPerAddress = 500
    /// Signals one connection may send per second (a token bucket holding this many, so a
    /// burst of that size passes); the next gets 1550 until the bucket refills.
    public var signalsPerSecond = 50
    /// UDP sockets (media legs) the router keeps open in total; a publish over it gets
    /// 1500, a subscribe 1605.
    public var mediaSockets = 4000
    /// How long a session with no connection is kept, seconds (the reconnection grace plus
    /// five minutes by default). Only sessions a client could re-create as they were are
    /// removed (routed, manual archiving, nothing muted): their id stays valid and a later
    /// connect adopts it again.
    public var idleSessionSeconds: Double = 330
    /// Events kept per connection for a resume: those sent while it waits out its
    /// reconnection grace, and (for clients that acknowledge events, as OTKit does every
    /// heartbeat) those sent but not yet acknowledged. Past this the oldest are dropped and
    /// a resume that needed them is refused (1010; the client reports the session lost).
    /// 1,000 covers a 30 s grace of a busy session (the signal rate limit lets 20 senders
    /// fill it in a second only by flooding).
    public var missedEventsPerConnection = 1000
    /// The same bound in bytes of event text (a signal is up to 8 KiB): about 1 MiB per
    /// connection at most; broadcast events share their text between connections.
    public var missedEventBytesPerConnection = 1 << 20
    /// Browser subscriber offers (`subscribe` with `sdp: true`) the router keeps waiting
    /// for their `subscriberAnswer`, router-wide; the next such subscribe gets 1605. Each
    /// is a few KiB; an offer is freed by its answer, the unsubscribe or the connection's end.
    public var pendingSDPOffers = 1000

    /// The defaults above.
    public init() {}

    /// The first field out of range, with why; nil when every field is usable.
    func problem() -> (field: String, text: String)? {
        if streamsPerConnection < 1 { return ("streamsPerConnection", "must be at least 1") }
        if subscriptionsPerConnection < 1 { return ("subscriptionsPerConnection", "must be at least 1") }
        if connectionsPerAddress < 1 { return ("connectionsPerAddress", "must be at least 1") }
        if signalsPerSecond < 1 { return ("signalsPerSecond", "must be at least 1") }
        if mediaSockets < 1 { return ("mediaSockets", "must be at least 1") }
        if pendingSDPOffers < 1 { return ("pendingSDPOffers", "must be at least 1") }
        if missedEventsPerConnection < 1 { return ("missedEventsPerConnection", "must be at least 1") }
        if missedEventBytesPerConnection < 16_384 {
            return ("missedEventBytesPerConnection", "must be at least 16384 (two of the largest signals)")
        }
        if !(idleSessionSeconds >= 0 && idleSessionSeconds <= 31_536_000) {
            return ("idleSessionSeconds", "must be between 0 and 31536000 (a year)")
        }
        return nil
    }
}
