/// What a node tells the cluster about itself (the value in the `nodes` hash): where
/// clients reach it and how loaded it is. Refreshed on every heartbeat.
public struct ClusterNodeInfo: Codable, Sendable, Equatable {
    /// The node id.
    public var id: String
    /// The address announced for media (`--public-ip`, else the media host).
    public var publicIP: String
    /// The base URL of its REST API and signaling (`http://host:port`).
    public var url: String
    /// Its media edge's UDP port, nil without one.
    public var mediaPort: Int?
    /// Sessions it holds now.
    public var sessions: Int
    /// Connections it holds now.
    public var connections: Int
    /// Streams it forwards now.
    public var streams: Int
    /// Sessions it owns in the cluster.
    public var ownedSessions: Int
    /// When this was written, Unix ms (the node's clock; informative only — liveness is
    /// the TTL of its `alive` key, kept by Redis' clock).
    public var heartbeatAt: Int64

    /// A node description with every field given.
    public init(id: String, publicIP: String, url: String, mediaPort: Int?, sessions: Int, connections: Int, streams: Int,
                ownedSessions: Int, heartbeatAt: Int64) {
        self.id = id
        self.publicIP = publicIP
        self.url = url
        self.mediaPort = mediaPort
        self.sessions = sessions
        self.connections = connections
        self.streams = streams
        self.ownedSessions = ownedSessions
        self.heartbeatAt = heartbeatAt
    }
}
