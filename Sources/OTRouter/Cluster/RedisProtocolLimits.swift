/// The most a Redis reply may hold before ``RedisReplyParser`` refuses it (a hostile or
/// broken server must not make the router allocate without bound). The defaults fit the
/// cluster's small keys and values with a wide margin.
public struct RedisProtocolLimits: Sendable, Equatable {
    /// Longest bulk string, bytes (Redis' own limit is 512 MiB; the cluster's values are < 4 KiB).
    public var maxBulkBytes = 1 << 20
    /// Most elements in one array (a `HGETALL` of 10,000 sessions is 20,000).
    public var maxArrayElements = 1 << 20
    /// Deepest nesting of arrays (the cluster's replies are at most 2 deep).
    public var maxDepth = 8
    /// Longest status, error or integer line, bytes.
    public var maxLineBytes = 64 << 10
    /// Most replies' bytes waiting in the parser, bytes.
    public var maxBufferedBytes = 64 << 20

    /// The defaults above.
    public init() {}
}
