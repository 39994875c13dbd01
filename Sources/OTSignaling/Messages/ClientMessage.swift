/// Everything a client sends to the router over the signaling WebSocket
/// (`/v1/session/{sessionId}/ws`). Every message carries a client-chosen `requestId`;
/// the router answers each with exactly one `ServerMessage` carrying the same id (a
/// typed reply, `.ok` or `.error`). See ``SignalingCodec`` for the JSON shape.
public enum ClientMessage: Sendable, Equatable {
    /// Join with a token (first message). `resume` re-attaches a connection that lost its
    /// socket within the router's grace period, keeping its connection id and streams.
    case connect(ConnectRequest)
    /// Publish a stream; answered with `.published`.
    case publish(PublishRequest)
    /// Stop publishing `streamId`.
    case unpublish(streamId: String)
    /// Subscribe to a stream; answered with `.subscribed`.
    case subscribe(SubscribeRequest)
    /// Stop a subscription.
    case unsubscribe(subscriberId: String)
    /// Send a signal to everyone (`to == nil`) or to one connection.
    case signal(SignalRequest)
    /// The publisher toggled audio or video (publishAudio / publishVideo).
    case streamChanged(StreamChange)
    /// The subscriber toggled subscribeToAudio / subscribeToVideo: the router starts or
    /// stops forwarding that kind on the subscriber's leg; answered with `.ok`.
    case subscriptionChanged(SubscriptionChange)
    /// The subscriber set preferredResolution / preferredFrameRate: a routed session's
    /// router picks layers within them; a relayed session's router asks the publisher to
    /// encode within them (`encodingPreferences`). Answered with `.ok`.
    case subscriberPreferences(SubscriberPreferences)
    /// Moderator: mute every stream except `excludedStreamIds`, and streams published later.
    case forceMuteAll(excludedStreamIds: [String])
    /// Moderator: mute one stream.
    case forceMuteStream(streamId: String)
    /// Moderator: lift the session-wide mute state.
    case disableForceMute
    /// Moderator: disconnect a client.
    case forceDisconnect(connectionId: String)
    /// Store recent stats and logs under an issue id; answered with `.issueReported`.
    case reportIssue(IssueReport)
    /// Keep-alive; answered with `.pong`.
    case ping
    /// The client handled every event up to sequence number `through` (the envelope's
    /// `seq`): the router forgets those it kept for a resume. Sent instead of a ping when
    /// events arrived since the last one; answered with `.ok`.
    case acknowledgeEvents(through: Int)
    /// Leave the session (the router then closes the socket).
    case disconnect
    /// A browser subscriber's SDP answer to the router's offer (`SubscribedReply.sdpOffer`):
    /// nothing comes back on success (media starts once ICE and DTLS finish), an `error`
    /// reply (1600 range) when the answer does not fit the offer.
    case subscriberAnswer(SubscriberAnswer)
}

/// The `subscriberAnswer` request: a browser's JSEP answer for one subscription.
public struct SubscriberAnswer: Codable, Sendable, Equatable {
    /// The subscription (the id the router gave in `.subscribed`).
    public var subscriberId: String
    /// The browser's answer SDP (`a=setup:active`), at most ``SDPLimits/maximumBytes``.
    public var sdp: String

    /// An answer with every field given.
    public init(subscriberId: String, sdp: String) {
        self.subscriberId = subscriberId
        self.sdp = sdp
    }
}

/// The `connect` request.
public struct ConnectRequest: Codable, Sendable, Equatable {
    /// The API key the app created its `OTSession` with.
    public var apiKey: String
    /// A T1 or JWT connection token.
    public var token: String
    /// Set when re-attaching after a lost socket: the connection id the router gave.
    public var resumeConnectionId: String?
    /// The secret the router gave with that connection id (proves it is the same client).
    public var resumeSecret: String?
    /// Set by clients that acknowledge events (`acknowledgeEvents`): the last event
    /// sequence number handled (0 on a first connect). The router then keeps each event
    /// sent to the connection until it is acknowledged and, on resume, sends again those
    /// after this number. Nil: the router keeps only the events of the grace period and
    /// sends all of them on resume.
    public var eventSeq: Int?

    /// A request with every field given.
    public init(apiKey: String, token: String, resumeConnectionId: String? = nil, resumeSecret: String? = nil, eventSeq: Int? = nil) {
        self.apiKey = apiKey
        self.token = token
        self.resumeConnectionId = resumeConnectionId
        self.resumeSecret = resumeSecret
        self.eventSeq = eventSeq
    }
}

/// The `publish` request.
public struct PublishRequest: Codable, Sendable, Equatable {
    /// The publisher's name.
    public var name: String
    /// Whether audio is published now.
    public var hasAudio: Bool
    /// Whether video is published now.
    public var hasVideo: Bool
    /// Whether the publisher has an audio track at all (settings.audioTrack).
    public var audioTrack: Bool
    /// Whether it has a video track at all (settings.videoTrack).
    public var videoTrack: Bool
    /// Encoded width, pixels.
    public var videoWidth: Int
    /// Encoded height, pixels.
    public var videoHeight: Int
    /// "camera", "screen" or "custom".
    public var videoType: String
    /// Spatial encodings the publisher sends in a routed session (1...3; nil = 1): the
    /// router then gives one video SSRC per encoding (`WireMediaLeg.simulcastSSRCs`).
    public var simulcastLayers: Int?
    /// Relayed sessions: where subscribers send their RTCP and which keys protect the
    /// media (the publisher's own socket and keys; SSRCs chosen by the publisher).
    /// The router hands it to each subscriber in `.subscribed`. Nil in routed sessions.
    public var relayedLeg: WireMediaLeg?
    /// The publisher's `subscriberAudioFallbackEnabled`: whether the router may turn this
    /// stream's video off for a subscriber whose leg cannot carry it (routed sessions).
    /// Nil (older clients): true.
    public var subscriberAudioFallback: Bool?
    /// Routed sessions: the client's ICE credentials and certificate fingerprint for its
    /// leg on the router's one-port edge. Nil: an SDES leg (keys in the reply).
    public var transport: WireTransport?
    /// A browser publisher's JSEP offer (unified plan, BUNDLE, rtcp-mux, sendonly audio
    /// and/or video). When set the router ignores `transport`, takes the ICE credentials and
    /// fingerprint from the offer and answers in `PublishedReply.sdpAnswer`. Nil: native.
    public var sdpOffer: String?

    /// A request with every field given.
    public init(name: String, hasAudio: Bool, hasVideo: Bool, audioTrack: Bool, videoTrack: Bool,
                videoWidth: Int, videoHeight: Int, videoType: String, simulcastLayers: Int? = nil,
                relayedLeg: WireMediaLeg? = nil, subscriberAudioFallback: Bool? = nil) {
        self.subscriberAudioFallback = subscriberAudioFallback
        self.name = name
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.audioTrack = audioTrack
        self.videoTrack = videoTrack
        self.videoWidth = videoWidth
        self.videoHeight = videoHeight
        self.videoType = videoType
        self.simulcastLayers = simulcastLayers
        self.relayedLeg = relayedLeg
    }
}

/// The `subscribe` request.
public struct SubscribeRequest: Codable, Sendable, Equatable {
    /// The stream to receive.
    public var streamId: String
    /// Whether to receive its audio.
    public var subscribeToAudio: Bool
    /// Whether to receive its video.
    public var subscribeToVideo: Bool
    /// Routed sessions: the client's ICE credentials and certificate fingerprint for its
    /// leg on the router's one-port edge. Nil: an SDES leg (keys in the reply).
    public var transport: WireTransport?
    /// True: a browser subscriber wants an SDP offer (`SubscribedReply.sdpOffer`), answered
    /// with `subscriberAnswer`. Nil or false: native (`transport`).
    public var sdp: Bool?
    /// Set only by a router of a cluster that proxies this client's socket to the
    /// session's owner: true means the proxying router serves this subscriber's media
    /// itself (the stream arrives there by cascade), so the owner records the subscription
    /// and opens no leg (`SubscribedReply.mediaNode`). The owner honours it only on a
    /// socket whose cluster mark verified; the proxying router overwrites whatever a
    /// client put here. Nil: the router that answers opens the leg.
    public var mediaAtProxy: Bool?

    /// A request with every field given.
    public init(streamId: String, subscribeToAudio: Bool = true, subscribeToVideo: Bool = true) {
        self.streamId = streamId
        self.subscribeToAudio = subscribeToAudio
        self.subscribeToVideo = subscribeToVideo
    }
}

/// The `signal` request.
public struct SignalRequest: Codable, Sendable, Equatable {
    /// The signal type (≤ 128 characters of `A–Z a–z 0–9 - _ ~`; may be empty).
    public var type: String
    /// The data (≤ 8192 bytes of UTF-8).
    public var data: String
    /// The target connection id, nil for everyone.
    public var to: String?
    /// The client's number for this signal, increasing by connection (1, 2, ...). A signal
    /// sent again after a resume keeps its number, and the router delivers a number it
    /// has seen from this connection only once. Nil: no duplicate check.
    public var id: Int?

    /// A request with every field given.
    public init(type: String, data: String, to: String?, id: Int? = nil) {
        self.type = type
        self.data = data
        self.to = to
        self.id = id
    }
}

/// The `streamChanged` request / event: a stream's audio or video was toggled, or its
/// encoded picture size changed (OpenTok's `videoDimensions` change).
public struct StreamChange: Codable, Sendable, Equatable {
    /// The stream.
    public var streamId: String
    /// The new hasAudio, nil if unchanged.
    public var hasAudio: Bool?
    /// The new hasVideo, nil if unchanged.
    public var hasVideo: Bool?
    /// The new encoded width, pixels (0...16384), nil if unchanged; sent with `videoHeight`.
    public var videoWidth: Int?
    /// The new encoded height, pixels (0...16384), nil if unchanged.
    public var videoHeight: Int?

    /// A change with every field given (sizes nil: unchanged).
    public init(streamId: String, hasAudio: Bool?, hasVideo: Bool?, videoWidth: Int? = nil, videoHeight: Int? = nil) {
        self.streamId = streamId
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.videoWidth = videoWidth
        self.videoHeight = videoHeight
    }
}

/// The `subscriptionChanged` request: which kinds a subscriber wants forwarded now.
public struct SubscriptionChange: Codable, Sendable, Equatable {
    /// The subscription (the id the router gave in `.subscribed`).
    public var subscriberId: String
    /// The new subscribeToAudio, nil if unchanged.
    public var subscribeToAudio: Bool?
    /// The new subscribeToVideo, nil if unchanged.
    public var subscribeToVideo: Bool?

    /// A change with every field given.
    public init(subscriberId: String, subscribeToAudio: Bool?, subscribeToVideo: Bool?) {
        self.subscriberId = subscriberId
        self.subscribeToAudio = subscribeToAudio
        self.subscribeToVideo = subscribeToVideo
    }
}

/// The `subscriberPreferences` request: a subscriber's preferredResolution and
/// preferredFrameRate (nil or 0: no preference).
public struct SubscriberPreferences: Codable, Sendable, Equatable {
    /// The subscription (the id the router gave in `.subscribed`).
    public var subscriberId: String
    /// Preferred largest width, pixels.
    public var preferredWidth: Int?
    /// Preferred largest height, pixels.
    public var preferredHeight: Int?
    /// Preferred largest frame rate, frames per second.
    public var preferredFrameRate: Double?

    /// Preferences with every field given.
    public init(subscriberId: String, preferredWidth: Int?, preferredHeight: Int?, preferredFrameRate: Double?) {
        self.subscriberId = subscriberId
        self.preferredWidth = preferredWidth
        self.preferredHeight = preferredHeight
        self.preferredFrameRate = preferredFrameRate
    }
}

/// The `reportIssue` request: what the client knows that would help explain a problem.
public struct IssueReport: Codable, Sendable, Equatable {
    /// What the user says happened (may be empty).
    public var description: String
    /// Recent statistics, as `name=value` lines.
    public var stats: [String]
    /// Recent log lines, oldest first.
    public var logs: [String]
    /// The id the client chose for the report (returned by its `reportIssue` at once);
    /// the router stores the report under it. Nil: the router chooses one.
    public var issueId: String?

    /// A report with every field given.
    public init(description: String, stats: [String], logs: [String], issueId: String? = nil) {
        self.description = description
        self.stats = stats
        self.logs = logs
        self.issueId = issueId
    }
}
