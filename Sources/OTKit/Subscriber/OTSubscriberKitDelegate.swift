/// Why a subscriber's video stopped or resumed (`OTSubscriberVideoEventReason`).
public enum OTSubscriberVideoEventReason: Int32, Sendable {
    /// The publisher turned its video off or on.
    case publisherPropertyChanged = 1
    /// This subscriber's `subscribeToVideo` changed.
    case subscriberPropertyChanged = 2
    /// Subscriber audio fallback: the router's leg to this subscriber could not (or can
    /// again) carry video.
    case qualityChanged = 3
    /// The codec is not supported.
    case codecNotSupported = 4
}

/// What a subscriber tells its app (`OTSubscriberKitDelegate`), on the session's
/// `apiQueue`, under the Swift names the OpenTok guides use
/// (`subscriberDidConnect(toStream:)`, `subscriberDidDisconnect(fromStream:)`,
/// `subscriberDidReconnect(toStream:)`). `subscriberDidConnect(toStream:)` and
/// `subscriber(_:didFailWithError:)` are required, as in OpenTok's header (a misspelling
/// does not compile); the others are optional, with empty defaults (a misspelt optional
/// method compiles and is never called).
public protocol OTSubscriberKitDelegate: AnyObject {
    /// Required. Media is set up; frames follow.
    func subscriberDidConnect(toStream subscriber: OTSubscriberKit)
    /// Required. Subscribing failed; the subscriber is detached.
    func subscriber(_ subscriber: OTSubscriberKit, didFailWithError error: OTError)
    /// The stream's path dropped (our own network, or the publisher's): media paused.
    func subscriberDidDisconnect(fromStream subscriber: OTSubscriberKit)
    /// The stream's path came back.
    func subscriberDidReconnect(toStream subscriber: OTSubscriberKit)
    /// A video frame was decoded (once per frame).
    func subscriberVideoDataReceived(_ subscriber: OTSubscriberKit)
    /// Video stopped.
    func subscriberVideoDisabled(_ subscriber: OTSubscriberKit, reason: OTSubscriberVideoEventReason)
    /// Video resumed.
    func subscriberVideoEnabled(_ subscriber: OTSubscriberKit, reason: OTSubscriberVideoEventReason)
    /// Subscriber audio fallback: the network to this subscriber is close to not carrying
    /// video; the router may turn it off soon.
    func subscriberVideoDisableWarning(_ subscriber: OTSubscriberKit)
    /// The danger announced by `subscriberVideoDisableWarning` passed without video being
    /// turned off.
    func subscriberVideoDisableWarningLifted(_ subscriber: OTSubscriberKit)
    /// Deprecated (not marked, so OTKit's forwarding builds without warnings): OTKit's
    /// old name of `subscriberDidDisconnect(fromStream:)`, still called by that method's
    /// default for apps written against it. Implement the reference name instead.
    func subscriberDidDisconnectFromStream(_ subscriber: OTSubscriberKit)
    /// Deprecated (not marked, as above): OTKit's old name of
    /// `subscriberDidReconnect(toStream:)`, still called by that method's default.
    func subscriberDidReconnectToStream(_ subscriber: OTSubscriberKit)
}

/// Defaults for the optional methods: empty, except that the reference names forward to
/// the deprecated OTKit names, so an app implementing either form is called (the old
/// `subscriberDidConnectToStream(_:)` is gone: `subscriberDidConnect(toStream:)` is
/// required, so an app with only the old name fails to compile instead of going deaf).
extension OTSubscriberKitDelegate {
    /// Calls the deprecated `subscriberDidDisconnectFromStream(_:)` (empty by default).
    public func subscriberDidDisconnect(fromStream subscriber: OTSubscriberKit) {
        subscriberDidDisconnectFromStream(subscriber)
    }
    /// Calls the deprecated `subscriberDidReconnectToStream(_:)` (empty by default).
    public func subscriberDidReconnect(toStream subscriber: OTSubscriberKit) {
        subscriberDidReconnectToStream(subscriber)
    }
    /// Does nothing.
    public func subscriberDidDisconnectFromStream(_ subscriber: OTSubscriberKit) {}
    /// Does nothing.
    public func subscriberDidReconnectToStream(_ subscriber: OTSubscriberKit) {}
    /// Does nothing.
    public func subscriberVideoDataReceived(_ subscriber: OTSubscriberKit) {}
    /// Does nothing.
    public func subscriberVideoDisabled(_ subscriber: OTSubscriberKit, reason: OTSubscriberVideoEventReason) {}
    /// Does nothing.
    public func subscriberVideoEnabled(_ subscriber: OTSubscriberKit, reason: OTSubscriberVideoEventReason) {}
    /// Does nothing.
    public func subscriberVideoDisableWarning(_ subscriber: OTSubscriberKit) {}
    /// Does nothing.
    public func subscriberVideoDisableWarningLifted(_ subscriber: OTSubscriberKit) {}
}

/// The level of a subscriber's audio (`OTSubscriberKitAudioLevelDelegate`).
public protocol OTSubscriberKitAudioLevelDelegate: AnyObject {
    /// Peak level of the audio played since the last call, 0...1, once per second.
    func subscriber(_ subscriber: OTSubscriberKit, audioLevelUpdated audioLevel: Float)
}

/// Receive statistics (`OTSubscriberKitNetworkStatsDelegate`), once a second on `apiQueue`.
public protocol OTSubscriberKitNetworkStatsDelegate: AnyObject {
    /// Video statistics.
    func subscriber(_ subscriber: OTSubscriberKit, videoNetworkStatsUpdated stats: OTSubscriberKitVideoNetworkStats)
    /// Audio statistics.
    func subscriber(_ subscriber: OTSubscriberKit, audioNetworkStatsUpdated stats: OTSubscriberKitAudioNetworkStats)
}

/// Empty defaults.
extension OTSubscriberKitNetworkStatsDelegate {
    /// Does nothing.
    public func subscriber(_ subscriber: OTSubscriberKit, videoNetworkStatsUpdated stats: OTSubscriberKitVideoNetworkStats) {}
    /// Does nothing.
    public func subscriber(_ subscriber: OTSubscriberKit, audioNetworkStatsUpdated stats: OTSubscriberKitAudioNetworkStats) {}
}

/// Video receive statistics (`OTSubscriberKitVideoNetworkStats`), from the pipeline's counters.
public struct OTSubscriberKitVideoNetworkStats: Sendable, Equatable {
    /// Packets lost (RFC 3550 cumulative loss).
    public var videoPacketsLost: UInt64
    /// Packets received.
    public var videoPacketsReceived: UInt64
    /// Bytes received.
    public var videoBytesReceived: UInt64
    /// When measured, Unix milliseconds.
    public var timestamp: Double
}

/// Audio receive statistics (`OTSubscriberKitAudioNetworkStats`).
public struct OTSubscriberKitAudioNetworkStats: Sendable, Equatable {
    /// Packets lost.
    public var audioPacketsLost: UInt64
    /// Packets received.
    public var audioPacketsReceived: UInt64
    /// Bytes received.
    public var audioBytesReceived: UInt64
    /// When measured, Unix milliseconds.
    public var timestamp: Double
}

/// The raw WebRTC-style statistics of a subscriber (`OTSubscriberKitRtcStatsReportDelegate`),
/// answering `getRtcStatsReport()`.
public protocol OTSubscriberKitRtcStatsReportDelegate: AnyObject {
    /// A JSON array of RTCStats dictionaries as browsers' `getStats()` gives them
    /// (`inbound-rtp`, `codec`, `transport`), on `apiQueue`.
    func subscriber(_ subscriber: OTSubscriberKit, rtcStatsReport jsonArrayOfReports: String)
}
