import OTMedia
import OTSignaling

/// The router's media plane (the SFU) as its signaling plane drives it. Every media leg
/// is one UDP port on the router with its own SRTP keys: a publisher leg receives a
/// stream's RTP (audio and video multiplexed, SSRCs chosen by the router) and the
/// router's RTCP goes back on it; a subscriber leg sends one stream's RTP to one client
/// and takes its RTCP (receiver reports, NACK, PLI). Calls may come from any thread.
public protocol MediaForwarding: AnyObject, Sendable {
    /// Opens the publisher leg of `streamId`, whose publisher sends audio and/or video.
    /// The returned leg tells the client where to send, with which keys and SSRCs.
    func addPublisher(streamId: String, audio: Bool, video: Bool) throws(MediaError) -> WireMediaLeg
    /// Closes the publisher leg and every subscriber leg of `streamId`.
    func removePublisher(streamId: String)
    /// Opens a subscriber leg forwarding `streamId` (audio and/or video) to one client.
    func addSubscriber(subscriberId: String, streamId: String, audio: Bool, video: Bool) throws(MediaError) -> WireMediaLeg
    /// Closes a subscriber leg.
    func removeSubscriber(subscriberId: String)
    /// Starts or stops forwarding each kind to one subscriber leg (the client's
    /// subscribeToAudio / subscribeToVideo); turning video back on asks for a keyframe.
    /// Unknown ids are ignored.
    func setForwarding(subscriberId: String, audio: Bool, video: Bool)
    /// Force mute: while muted, no audio packet of `streamId` is forwarded to anyone,
    /// whatever its publisher sends (each dropped packet is counted).
    func setAudioMuted(streamId: String, _ muted: Bool)
    /// Totals over every leg since the router started.
    var totals: ForwardingCounters { get }
    /// The counters of one published stream (its publisher leg and everything forwarded
    /// from it), nil if unknown.
    func counters(streamId: String) -> ForwardingCounters?
}

/// What the media plane has done, for `/metrics`, tests and `otbench router`.
public struct ForwardingCounters: Sendable, Equatable {
    /// RTP/RTCP packets received from publishers and subscribers that authenticated.
    public var packetsIn: UInt64 = 0
    /// Bytes of those packets.
    public var bytesIn: UInt64 = 0
    /// Packets sent to subscribers (forwarded media, retransmissions, RTCP).
    public var packetsOut: UInt64 = 0
    /// Bytes of those packets.
    public var bytesOut: UInt64 = 0
    /// Audio packets of a force-muted stream that were not forwarded.
    public var mutedAudioDropped: UInt64 = 0
    /// Packets dropped for another reason (no subscriber, send queue full).
    public var packetsDropped: UInt64 = 0
    /// Datagrams that failed SRTP authentication or did not parse.
    public var badPackets: UInt64 = 0
    /// NACKed packets the router resent from its own history.
    public var retransmissions: UInt64 = 0
    /// Keyframe requests (PLI/FIR) sent to publishers.
    public var keyframeRequests: UInt64 = 0
    /// Authenticated RTP packets from publishers with an SSRC the router did not assign
    /// (dropped; also counted in `packetsDropped`).
    public var unknownSSRCPackets: UInt64 = 0
    /// Receiver reports taken from subscribers.
    public var receiverReports: UInt64 = 0
    /// Packets lost as the subscribers' latest receiver reports say (RFC 3550 cumulative
    /// lost), summed over the legs.
    public var reportedPacketsLost: Int64 = 0
    /// The largest interarrival jitter a subscriber's latest report gives, microseconds.
    public var reportedJitterMicroseconds: UInt64 = 0
    /// CPU time (user + system) the forwarding threads have used, nanoseconds.
    public var forwardingCPUNanoseconds: UInt64 = 0

    /// All zero.
    public init() {}
}
