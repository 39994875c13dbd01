import OTSignaling

/// What this client's token lets it do in the session (`OTSessionCapabilities`). Known
/// once connected (`OTSession.capabilities` is nil before `sessionDidConnect`); the
/// router enforces the same rules, so calls these say no to fail synchronously.
public struct OTSessionCapabilities: Sendable, Equatable {
    /// May publish (publisher, publisheronly and moderator tokens).
    public let canPublish: Bool
    /// May subscribe (not publisheronly tokens).
    public let canSubscribe: Bool
    /// May send signals (not publisheronly tokens).
    public let canSignal: Bool
    /// May force a mute (moderator tokens).
    public let canForceMute: Bool
    /// May force a disconnect (moderator tokens).
    public let canForceDisconnect: Bool

    /// Capabilities with publish and subscribe as given and nothing else
    /// (OpenTok's `initWithCanPublish:canSubscribe:`).
    public init(canPublish: Bool, canSubscribe: Bool) {
        self.init(canPublish: canPublish, canSubscribe: canSubscribe, canSignal: canSubscribe,
                  canForceMute: false, canForceDisconnect: false)
    }

    /// Capabilities with every field given.
    public init(canPublish: Bool, canSubscribe: Bool, canSignal: Bool, canForceMute: Bool, canForceDisconnect: Bool) {
        self.canPublish = canPublish
        self.canSubscribe = canSubscribe
        self.canSignal = canSignal
        self.canForceMute = canForceMute
        self.canForceDisconnect = canForceDisconnect
    }

    init(_ wire: WireCapabilities) {
        self.init(canPublish: wire.canPublish, canSubscribe: wire.canSubscribe, canSignal: wire.canSignal,
                  canForceMute: wire.canForceMute, canForceDisconnect: wire.canForceDisconnect)
    }
}
