import OTMedia
import OTRecording
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
    /// Opens the publisher leg of `streamId` with `simulcastLayers` (1...3) video
    /// encodings (`PublishRequest.simulcastLayers`): the returned leg's `videoSSRC` is the
    /// full-size encoding's, `simulcastSSRCs` the smaller ones', largest first.
    func addPublisher(streamId: String, audio: Bool, video: Bool, simulcastLayers: Int) throws(MediaError) -> WireMediaLeg
    /// As above, for a client that sent its ICE/DTLS `transport`: a media plane with a
    /// one-port edge opens an edge leg (no key in the reply); nil: as above.
    func addPublisher(streamId: String, audio: Bool, video: Bool, simulcastLayers: Int,
                      transport: WireTransport?) throws(MediaError) -> WireMediaLeg
    /// As `addSubscriber(subscriberId:streamId:audio:video:)` with the client's `transport`.
    func addSubscriber(subscriberId: String, streamId: String, audio: Bool, video: Bool,
                       transport: WireTransport?) throws(MediaError) -> WireMediaLeg
    /// Hands one subscriber's preferredResolution / preferredFrameRate to its leg's layer
    /// selection (nil or ≤ 0: no preference). Unknown ids are ignored.
    func setPreferences(subscriberId: String, width: Int?, height: Int?, frameRate: Double?)
    /// Sets where the router's audio-fallback decisions per subscriber leg go (they become
    /// `ServerMessage.subscriberQuality` to that subscriber); nil: nowhere.
    func setSubscriberQualityHandler(_ handler: SubscriberQualityHandler?)
    /// The publisher's subscriberAudioFallbackEnabled for `streamId`: false means the
    /// router never turns that stream's video off for a subscriber (layers still adapt).
    func setSubscriberAudioFallback(streamId: String, enabled: Bool)
    /// Sets who hears of legs the media plane ended by itself (an edge leg's handshake
    /// failed), once each is removed; nil: nobody.
    func setLegEndedHandler(_ handler: MediaLegEndedHandler?)
    /// Totals over every leg since the router started.
    var totals: ForwardingCounters { get }
    /// The UDP sockets the media plane has open now (one per leg), for the router's
    /// socket limit and `/metrics`.
    var openSockets: Int { get }
    /// The counters of one published stream (its publisher leg and everything forwarded
    /// from it), nil if unknown.
    func counters(streamId: String) -> ForwardingCounters?
    /// Opens a browser publisher's edge leg from its JSEP offer and returns the leg and the
    /// router's answer (see `MediaRouter+Browser`). Throws `BrowserSDPError`.
    func addBrowserPublisher(streamId: String, offer: String) throws(BrowserSDPError) -> BrowserPublisherLeg
    /// Makes the router's offer to a browser subscriber of `streamId` and keeps it pending
    /// (at most `pendingLimit` router-wide) until `answerBrowserSubscriber`; removed by
    /// `removeSubscriber`. Throws `BrowserSDPError`.
    func offerBrowserSubscriber(subscriberId: String, streamId: String, audio: Bool, video: Bool,
                                pendingLimit: Int) throws(BrowserSDPError) -> String
    /// Reads the browser's answer to its pending offer and opens its edge leg.
    func answerBrowserSubscriber(subscriberId: String, answer: String) throws(BrowserSDPError)
    /// Feeds `recorder` (nil: none) from `streamId`'s forwarding thread: its plaintext RTP
    /// and sender reports, a PLI while the recorder needs a keyframe. False if no such
    /// stream is forwarded. The caller finishes the recorder. Cost: a lookup and a short lock.
    func setRecorder(streamId: String, _ recorder: (any RecordingSink)?) -> Bool
}

extension MediaForwarding {
    /// A media plane that cannot record: false (no stream takes a recorder).
    public func setRecorder(streamId: String, _ recorder: (any RecordingSink)?) -> Bool { false }

    /// Media planes without an edge: SDES legs only; a `transport` is refused.
    public func addPublisher(streamId: String, audio: Bool, video: Bool, simulcastLayers: Int,
                             transport: WireTransport?) throws(MediaError) -> WireMediaLeg {
        guard transport == nil else { throw MediaError(.invalidArgument, "this media plane has no one-port edge") }
        return try addPublisher(streamId: streamId, audio: audio, video: video, simulcastLayers: simulcastLayers)
    }

    /// Media planes without an edge: SDES legs only; a `transport` is refused.
    public func addSubscriber(subscriberId: String, streamId: String, audio: Bool, video: Bool,
                              transport: WireTransport?) throws(MediaError) -> WireMediaLeg {
        guard transport == nil else { throw MediaError(.invalidArgument, "this media plane has no one-port edge") }
        return try addSubscriber(subscriberId: subscriberId, streamId: streamId, audio: audio, video: video)
    }

    /// Media planes without simulcast open one encoding.
    public func addPublisher(streamId: String, audio: Bool, video: Bool, simulcastLayers: Int) throws(MediaError) -> WireMediaLeg {
        try addPublisher(streamId: streamId, audio: audio, video: video)
    }

    /// Media planes without layer selection ignore preferences.
    public func setPreferences(subscriberId: String, width: Int?, height: Int?, frameRate: Double?) {}

    /// Media planes without audio fallback report nothing.
    public func setSubscriberQualityHandler(_ handler: SubscriberQualityHandler?) {}

    /// Media planes without an edge end no leg by themselves.
    public func setLegEndedHandler(_ handler: MediaLegEndedHandler?) {}

    /// Media planes without audio fallback have nothing to switch.
    public func setSubscriberAudioFallback(streamId: String, enabled: Bool) {}

    /// Media planes without an edge take no SDP: `.unavailable`.
    public func addBrowserPublisher(streamId: String, offer: String) throws(BrowserSDPError) -> BrowserPublisherLeg {
        throw BrowserSDPError(.unavailable, "this media plane takes no SDP")
    }

    /// Media planes without an edge take no SDP: `.unavailable`.
    public func offerBrowserSubscriber(subscriberId: String, streamId: String, audio: Bool, video: Bool,
                                       pendingLimit: Int) throws(BrowserSDPError) -> String {
        throw BrowserSDPError(.unavailable, "this media plane takes no SDP")
    }

    /// Media planes without an edge take no SDP: `.unavailable`.
    public func answerBrowserSubscriber(subscriberId: String, answer: String) throws(BrowserSDPError) {
        throw BrowserSDPError(.unavailable, "this media plane takes no SDP")
    }
    /// Media planes that open no sockets of their own report none.
    public var openSockets: Int { 0 }
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
    /// NACKed packets not resent because the leg's resend budget was spent
    /// (`LegResendGuard`: 50 % of the leg's media rate, at least 100 kbps).
    public var retransmissionsOverBudget: UInt64 = 0
    /// NACKed packets not resent because they had been resent within the leg's round trip.
    public var retransmissionsDuplicate: UInt64 = 0
    /// Times a leg moved to a new client address after its probation (`LegAddressGuard`).
    public var addressMoves: UInt64 = 0
    /// Datagrams dropped unread because their sender SSRC was past the leg's first 8
    /// authenticated ones (`LegSSRCGate`: libsrtp keeps a stream per SSRC).
    public var unknownSSRCRefused: UInt64 = 0
    /// Authenticated datagrams from a new source that did not (yet) move their leg:
    /// in probation or held by the one-move-per-5-s limit.
    public var addressDatagramsHeld: UInt64 = 0
    /// Sequence numbers the router NACKed to publishers (losses on their legs; a packet
    /// asked for twice counts twice).
    public var upstreamNACKs: UInt64 = 0
    /// Publisher video packets that filled a hole (NACK answers or reordered packets) and
    /// went on to the subscriber legs that forwarded their frames.
    public var upstreamRepaired: UInt64 = 0
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
    /// Padding-only probe packets (`RTPProbe`) received from publishers: recorded for
    /// transport-wide feedback, never forwarded.
    public var probesReceived: UInt64 = 0
    /// Transport-wide feedback messages taken from subscribers (router as sender).
    public var transportFeedbacksIn: UInt64 = 0
    /// Transport-wide feedback messages sent to publishers (router as receiver).
    public var transportFeedbacksOut: UInt64 = 0
    /// CPU time (user + system) the forwarding threads have used, nanoseconds.
    public var forwardingCPUNanoseconds: UInt64 = 0
    /// Edge legs the edge ended on its own (DTLS handshake failed or timed out), removed
    /// as if their client had left. Lapsed ICE consent is not an ending.
    public var edgeLegsEnded: UInt64 = 0
    /// Sends the forwarding threads skipped because the edge leg's ICE consent had lapsed
    /// (RFC 7675; counted per skipped address lookup: a packet, an RTCP report or a probe).
    public var edgeSendsWithheld: UInt64 = 0
    /// Publish/subscribe requests whose `transport` was refused (bad ICE credentials or
    /// fingerprint, or no edge): answered with the failed-leg error.
    public var edgeTransportsRejected: UInt64 = 0

    /// All zero.
    public init() {}
}
