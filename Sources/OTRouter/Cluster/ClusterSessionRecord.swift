/// A session as the cluster stores it (the value in the `sessions` hash), written by the
/// node that created it, so every node can honour its media mode, archive mode and
/// encryption when a client connects there.
public struct ClusterSessionRecord: Codable, Sendable, Equatable {
    /// The OpenTok session id.
    public var id: String
    /// The project it belongs to.
    public var apiKey: String
    /// Relayed (peer to peer) rather than routed.
    public var relayed: Bool
    /// `manual` or `always`.
    public var archiveMode: String
    /// End-to-end encrypted.
    public var e2ee: Bool
    /// Created at, Unix ms.
    public var createdAt: Int64
    /// The node that created it.
    public var createdBy: String

    /// A record with every field given.
    public init(id: String, apiKey: String, relayed: Bool, archiveMode: String, e2ee: Bool, createdAt: Int64, createdBy: String) {
        self.id = id
        self.apiKey = apiKey
        self.relayed = relayed
        self.archiveMode = archiveMode
        self.e2ee = e2ee
        self.createdAt = createdAt
        self.createdBy = createdBy
    }
}

/// Who owns a session in the cluster: the node id holding its claim and, while that
/// node is registered, its description.
public struct ClusterSessionOwner: Sendable, Equatable {
    /// The owner's node id.
    public var nodeId: String
    /// Its registration, nil if it has been pruned (the claim lapses soon after).
    public var node: ClusterNodeInfo?
}
