/// The router's limits by name, as `/metrics` labels them (`otkit_limit_refusals_total`).
enum RouterLimit: String, CaseIterable, Sendable {
    /// `RouterLimits.streamsPerConnection` (1500).
    case streamsPerConnection = "streams_per_connection"
    /// `RouterLimits.subscriptionsPerConnection` (1605).
    case subscriptionsPerConnection = "subscriptions_per_connection"
    /// `RouterConfiguration.maxConnectionsPerSession` (1027).
    case connectionsPerSession = "connections_per_session"
    /// `RouterLimits.connectionsPerAddress` (1027).
    case connectionsPerAddress = "connections_per_address"
    /// `RouterLimits.signalsPerSecond` (1550).
    case signalsPerSecond = "signals_per_second"
    /// `RouterLimits.mediaSockets` (1500 on publish, 1605 on subscribe).
    case mediaSockets = "media_sockets"
    /// `RouterLimits.pendingSDPOffers` (1605).
    case pendingSDPOffers = "pending_sdp_offers"
}
