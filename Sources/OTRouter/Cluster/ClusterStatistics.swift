/// What a node's cluster plane has done since it started (counters only grow).
public struct ClusterStatistics: Sendable, Equatable {
    /// Heartbeats that reached Redis.
    public var heartbeats: UInt64 = 0
    /// Redis commands that failed (unreachable, timed out, malformed reply, refused).
    public var redisErrors: UInt64 = 0
    /// Sessions this node claimed (it saw them first).
    public var claimsWon: UInt64 = 0
    /// Sessions this node saw that another node had claimed.
    public var claimsLost: UInt64 = 0
    /// Claims found missing at a heartbeat (Redis restarted) and taken again.
    public var claimsRetaken: UInt64 = 0
    /// Claims found taken by another node at a heartbeat (this node had lapsed).
    public var claimsDropped: UInt64 = 0
    /// Sessions this node took over from an owner found dead (its `alive` key or its claim
    /// lapsed) when a client of the session came back through this node.
    public var claimsTakenOver: UInt64 = 0
    /// Nodes this node removed from the registry because their heartbeat lapsed.
    public var nodesPruned: UInt64 = 0
    /// Times this node wrote its registration after finding it missing (first start and
    /// after Redis lost it).
    public var registrations: UInt64 = 0
    /// Session records received over pub/sub from other nodes.
    public var sessionEvents: UInt64 = 0
    /// Client connects refused because the session was not placed and Redis did not answer.
    public var refusedWithoutRedis: UInt64 = 0
    /// Sessions this node owns now (a gauge, not a counter).
    public var ownedSessions = 0

    /// All zero.
    public init() {}
}
