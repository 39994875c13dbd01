/// What a connection may do in a session, as an OpenTok token grants it. The raw value
/// is the wire string in tokens.
public enum Role: String, CaseIterable, Codable, Sendable {
    /// Publish, subscribe and signal (the default role).
    case publisher
    /// Subscribe and signal; cannot publish.
    case subscriber
    /// A publisher that may also force disconnect, force unpublish and force mute.
    case moderator
    /// Publish only: cannot subscribe or send signals.
    case publisheronly

    /// Whether this role may publish a stream.
    public var canPublish: Bool { self != .subscriber }
    /// Whether this role may subscribe to streams.
    public var canSubscribe: Bool { self != .publisheronly }
    /// Whether this role may send signals.
    public var canSignal: Bool { self != .publisheronly }
    /// Whether this role may force mute, force unpublish and force disconnect others.
    public var canModerate: Bool { self == .moderator }
}
