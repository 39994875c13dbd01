/// The names of the cluster's Redis keys and channel (see docs/scale.md), all under
/// ``ClusterConfiguration/keyPrefix``.
public struct ClusterKeys: Sendable {
    /// The prefix, e.g. `otkit:`.
    public let prefix: String

    /// Keys under `prefix`.
    public init(prefix: String) { self.prefix = prefix }

    /// Hash: node id → node JSON (``ClusterNodeInfo``). Entries of lapsed nodes are pruned.
    public var nodes: String { prefix + "nodes" }
    /// String with a TTL (the heartbeat): present while node `id` lives; its value is the
    /// running process' random instance token.
    public func alive(_ id: String) -> String { prefix + "node:" + id + ":alive" }
    /// Hash: session id → session JSON (``ClusterSessionRecord``). No TTL: OpenTok
    /// sessions do not expire.
    public var sessions: String { prefix + "sessions" }
    /// String with a TTL (the claim, renewed by the owner's heartbeat): the owner's node id.
    public func owner(_ sessionId: String) -> String { prefix + "session:" + sessionId + ":owner" }
    /// Hash: archive id → the id of the node holding the archive (its recording, record and
    /// files). Written when an archive starts, removed when it is deleted; no TTL (archives
    /// are kept until deleted). Written again by the holder after a Redis restart.
    public var archives: String { prefix + "archives" }
    /// Pub/sub channel: cluster events (a session created, a node pruned), JSON.
    public var events: String { prefix + "events" }
}
