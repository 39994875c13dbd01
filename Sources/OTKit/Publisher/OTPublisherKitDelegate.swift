/// Why a publisher's video stopped or resumed (`OTPublisherVideoEventReason`, OpenTok's
/// values).
public enum OTPublisherVideoEventReason: Int32, Sendable {
    /// The app changed `publishVideo`.
    case publisherPropertyChanged = 1
    /// Publisher audio fallback: the uplink could not (or can again) carry video.
    case qualityChanged = 3
}

/// What a publisher tells its app (`OTPublisherKitDelegate`), on the session's
/// `apiQueue`. `publisher(_:didFailWithError:)` is required, as the OpenTok reference
/// marks it (a misspelling does not compile); the others are optional, with empty
/// defaults (a misspelt optional method compiles and is never called).
public protocol OTPublisherKitDelegate: AnyObject {
    /// Required. Publishing failed; the publisher is detached from the session.
    func publisher(_ publisher: OTPublisherKit, didFailWithError error: OTError)
    /// The publisher's stream exists in the session (media flowing).
    func publisher(_ publisher: OTPublisherKit, streamCreated stream: OTStream)
    /// The stream ended (unpublish, disconnect, a moderator).
    func publisher(_ publisher: OTPublisherKit, streamDestroyed stream: OTStream)
    /// A moderator muted this publisher's audio (`publishAudio` is now false).
    func muteForced(_ publisher: OTPublisherKit)
    /// Video stopped: `publishVideo` was set to false (`.publisherPropertyChanged`) or
    /// publisher audio fallback turned it off (`.qualityChanged`; audio goes on).
    func publisherVideoDisabled(_ publisher: OTPublisherKit, reason: OTPublisherVideoEventReason)
    /// Video resumed, for the same reasons.
    func publisherVideoEnabled(_ publisher: OTPublisherKit, reason: OTPublisherVideoEventReason)
    /// Publisher audio fallback: the uplink is close to not carrying video; it may be
    /// turned off soon.
    func publisherVideoDisableWarning(_ publisher: OTPublisherKit)
    /// The danger announced by `publisherVideoDisableWarning` passed without video being
    /// turned off.
    func publisherVideoDisableWarningLifted(_ publisher: OTPublisherKit)
}

/// Empty defaults for the optional methods.
extension OTPublisherKitDelegate {
    /// Does nothing.
    public func publisher(_ publisher: OTPublisherKit, streamCreated stream: OTStream) {}
    /// Does nothing.
    public func publisher(_ publisher: OTPublisherKit, streamDestroyed stream: OTStream) {}
    /// Does nothing.
    public func muteForced(_ publisher: OTPublisherKit) {}
    /// Does nothing.
    public func publisherVideoDisabled(_ publisher: OTPublisherKit, reason: OTPublisherVideoEventReason) {}
    /// Does nothing.
    public func publisherVideoEnabled(_ publisher: OTPublisherKit, reason: OTPublisherVideoEventReason) {}
    /// Does nothing.
    public func publisherVideoDisableWarning(_ publisher: OTPublisherKit) {}
    /// Does nothing.
    public func publisherVideoDisableWarningLifted(_ publisher: OTPublisherKit) {}
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

/// The raw WebRTC-style statistics of a publisher (`OTPublisherKitRtcStatsReportDelegate`),
/// answering `getRtcStatsReport()`.
public protocol OTPublisherKitRtcStatsReportDelegate: AnyObject {
    /// One entry per media leg (routed: the router's; relayed: the publisher's one
    /// socket, shared by its subscribers), on `apiQueue`.
    func publisher(_ publisher: OTPublisherKit, rtcStatsReport stats: [OTPublisherRtcStats])
}

/// One leg's statistics report (`OTPublisherRtcStats`).
public struct OTPublisherRtcStats: Sendable, Equatable {
    /// The receiving connection ("" for the router leg of a routed session and for the
    /// shared socket of a relayed one).
    public var connectionId: String
    /// A JSON array of RTCStats dictionaries, as browsers' `getStats()` gives them
    /// (`outbound-rtp`, `remote-inbound-rtp`, `codec`, `transport`).
    public var jsonArrayOfReports: String
}
