/// How a router joins other routers through Redis (`otkit router --redis … --node-id …`):
/// the server, this node's id and the timings of its heartbeat and session claims.
/// A router without one runs alone, exactly as before.
public struct ClusterConfiguration: Sendable, Equatable {
    /// The Redis server every node of the cluster uses.
    public var redis: RedisEndpoint
    /// This node's id, unique in the cluster: 1-64 of `A-Z a-z 0-9 . _ -`.
    public var nodeId: String
    /// How often the node refreshes its registration and its session claims, ms.
    public var heartbeatMilliseconds = 1000
    /// A node whose heartbeat has not come for this long is pruned by the others, ms
    /// (at least twice the heartbeat).
    public var nodeTTLMilliseconds = 3000
    /// A session claim not renewed for this long lapses and another node may take the
    /// session, ms (at least twice the heartbeat).
    public var claimTTLMilliseconds = 5000
    /// Connect, send and receive timeout of each Redis command, ms.
    public var redisTimeoutMilliseconds = 1000
    /// The prefix of every key and channel (several clusters may share one Redis).
    public var keyPrefix = "otkit:"
    /// The secret nodes sign what they forward to each other with (proxied sockets, REST
    /// calls; `--cluster-secret`, config `clusterSecret`). Nil derives it from the project
    /// secrets, which every node of a cluster shares (docs/scale.md). Never logged.
    public var secret: String?
    /// Messages a proxied client may have waiting for the owner's socket before that client
    /// is closed (1008, counted); other clients are not affected.
    public var proxyQueueMessages = 256
    /// How long SIGTERM waits for the node to empty (clients moved, connections gone)
    /// before it stops anyway, seconds (config `clusterDrainSeconds`).
    public var drainTimeoutSeconds: Double = 30

    /// A configuration with the default timings.
    public init(redis: RedisEndpoint, nodeId: String) {
        self.redis = redis
        self.nodeId = nodeId
    }

    /// What is wrong with the values, nil when they are usable. Cost: a scan of the id.
    public func problem() -> (field: String, text: String)? {
        guard (1...64).contains(nodeId.utf8.count),
              nodeId.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 46 || $0 == 95 || $0 == 45 })
        else { return ("nodeId", "\"\(nodeId)\" must be 1-64 of A-Z a-z 0-9 . _ -") }
        guard (50...60_000).contains(heartbeatMilliseconds) else { return ("clusterHeartbeatMilliseconds", "must be 50...60000") }
        guard nodeTTLMilliseconds >= 2 * heartbeatMilliseconds, nodeTTLMilliseconds <= 600_000 else {
            return ("clusterNodeTTLMilliseconds", "must be at least twice the heartbeat and at most 600000")
        }
        guard claimTTLMilliseconds >= 2 * heartbeatMilliseconds, claimTTLMilliseconds <= 600_000 else {
            return ("clusterClaimTTLMilliseconds", "must be at least twice the heartbeat and at most 600000")
        }
        guard (10...60_000).contains(redisTimeoutMilliseconds) else { return ("redisTimeoutMilliseconds", "must be 10...60000") }
        guard (1...64).contains(keyPrefix.utf8.count), keyPrefix.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            return ("keyPrefix", "must be 1-64 printable ASCII characters without spaces")
        }
        guard drainTimeoutSeconds >= 0, drainTimeoutSeconds <= 3600 else { return ("clusterDrainSeconds", "must be 0...3600") }
        guard (1...100_000).contains(proxyQueueMessages) else { return ("clusterProxyQueueMessages", "must be 1...100000") }
        return nil
    }
}
