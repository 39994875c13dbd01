/// What `session(_:muteForced:)` reports (`OTMuteForcedInfo`).
public struct OTMuteForcedInfo: Sendable, Equatable {
    /// True: a moderator muted the session (every stream, and streams published later,
    /// until the mute is lifted). False: the mute state was lifted (`disableForceMute`).
    public let active: Bool

    /// Info with `active` given.
    public init(active: Bool) { self.active = active }
}
