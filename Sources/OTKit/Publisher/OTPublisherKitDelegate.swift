/// What a publisher tells its app (`OTPublisherKitDelegate`), on the session's
/// `apiQueue`. Methods have empty defaults.
public protocol OTPublisherKitDelegate: AnyObject {
    /// Publishing failed; the publisher is detached from the session.
    func publisher(_ publisher: OTPublisherKit, didFailWithError error: OTError)
    /// The publisher's stream exists in the session (media flowing).
    func publisher(_ publisher: OTPublisherKit, streamCreated stream: OTStream)
    /// The stream ended (unpublish, disconnect, a moderator).
    func publisher(_ publisher: OTPublisherKit, streamDestroyed stream: OTStream)
    /// A moderator muted this publisher's audio (`publishAudio` is now false).
    func muteForced(_ publisher: OTPublisherKit)
}

/// Empty defaults.
extension OTPublisherKitDelegate {
    /// Does nothing.
    public func publisher(_ publisher: OTPublisherKit, didFailWithError error: OTError) {}
    /// Does nothing.
    public func publisher(_ publisher: OTPublisherKit, streamCreated stream: OTStream) {}
    /// Does nothing.
    public func publisher(_ publisher: OTPublisherKit, streamDestroyed stream: OTStream) {}
    /// Does nothing.
    public func muteForced(_ publisher: OTPublisherKit) {}
}

/// The publisher's microphone level (`OTPublisherKitAudioLevelDelegate`).
public protocol OTPublisherKitAudioLevelDelegate: AnyObject {
    /// Peak level of the audio captured since the last call, 0...1, once per stats
    /// interval (1 s), on `apiQueue`.
    func publisher(_ publisher: OTPublisherKit, audioLevelUpdated audioLevel: Float)
}

/// Send statistics (`OTPublisherKitNetworkStatsDelegate`), once a second on `apiQueue`.
public protocol OTPublisherKitNetworkStatsDelegate: AnyObject {
    /// Video statistics, one entry per media leg (routed: one, to the router).
    func publisher(_ publisher: OTPublisherKit, videoNetworkStatsUpdated stats: [OTPublisherKitVideoNetworkStats])
    /// Audio statistics, as for video.
    func publisher(_ publisher: OTPublisherKit, audioNetworkStatsUpdated stats: [OTPublisherKitAudioNetworkStats])
}

/// Empty defaults.
extension OTPublisherKitNetworkStatsDelegate {
    /// Does nothing.
    public func publisher(_ publisher: OTPublisherKit, videoNetworkStatsUpdated stats: [OTPublisherKitVideoNetworkStats]) {}
    /// Does nothing.
    public func publisher(_ publisher: OTPublisherKit, audioNetworkStatsUpdated stats: [OTPublisherKitAudioNetworkStats]) {}
}

/// Video send statistics of one leg (`OTPublisherKitVideoNetworkStats`), from the
/// pipeline's counters.
public struct OTPublisherKitVideoNetworkStats: Sendable, Equatable {
    /// The receiving connection ("" for the router leg of a routed session).
    public var connectionId: String
    /// The receiving subscriber ("" for the router leg).
    public var subscriberId: String
    /// Packets the receiver reported lost (RTCP receiver reports).
    public var videoPacketsLost: Int64
    /// Packets sent.
    public var videoPacketsSent: Int64
    /// Bytes sent.
    public var videoBytesSent: Int64
    /// When measured, Unix milliseconds.
    public var timestamp: Double
    /// When publishing started, Unix milliseconds.
    public var startTime: Double
}

/// Audio send statistics of one leg (`OTPublisherKitAudioNetworkStats`).
public struct OTPublisherKitAudioNetworkStats: Sendable, Equatable {
    /// As for video.
    public var connectionId: String
    /// As for video.
    public var subscriberId: String
    /// Packets the receiver reported lost.
    public var audioPacketsLost: Int64
    /// Packets sent.
    public var audioPacketsSent: Int64
    /// Bytes sent.
    public var audioBytesSent: Int64
    /// When measured, Unix milliseconds.
    public var timestamp: Double
    /// When publishing started, Unix milliseconds.
    public var startTime: Double
}
