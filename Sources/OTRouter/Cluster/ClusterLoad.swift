/// A node's load as it registers it: read from the router on every heartbeat.
public struct ClusterLoad: Sendable, Equatable {
    /// Sessions held.
    public var sessions: Int
    /// Connections held.
    public var connections: Int
    /// Streams forwarded.
    public var streams: Int

    /// A load with every field given.
    public init(sessions: Int, connections: Int, streams: Int) {
        self.sessions = sessions
        self.connections = connections
        self.streams = streams
    }
}
