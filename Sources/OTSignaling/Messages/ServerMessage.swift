/// Everything the router sends to a client over the signaling WebSocket: replies to
/// `ClientMessage`s (carrying their `requestId`) and events (no `requestId`).
public enum ServerMessage: Sendable, Equatable {
    /// Reply to `connect`: the session as it is now.
    case connected(ConnectedReply)
    /// Reply to `publish`.
    case published(PublishedReply)
    /// Reply to `subscribe`.
    case subscribed(SubscribedReply)
    /// Reply to `reportIssue`.
    case issueReported(issueId: String)
    /// Reply to a request that needs no data back (unpublish, signal, force mute, ...).
    case ok
    /// Reply to a refused request, or (without a request id) a session-level error.
    case error(ErrorReply)
    /// Reply to `ping`.
    case pong

    /// Another client joined (never sent about the recipient itself).
    case connectionCreated(WireConnection)
    /// A client left; `reason` is "clientDisconnected", "forceDisconnected" or "networkDisconnected".
    case connectionDestroyed(connectionId: String, reason: String)
    /// Another client published (never sent to the stream's own publisher).
    case streamCreated(WireStream)
    /// A stream ended; `reason` is "clientDisconnected", "forceUnpublished",
    /// "networkDisconnected" or "unpublished".
    case streamDestroyed(streamId: String, reason: String)
    /// A stream's audio or video was toggled.
    case streamChanged(StreamChange)
    /// A stream's publisher lost its connection; the router waits for it to come back.
    case streamInterrupted(streamId: String)
    /// The publisher of an interrupted stream came back.
    case streamResumed(streamId: String)
    /// A signal. `from` is nil when the REST API sent it.
    case signal(type: String, data: String, from: String?)
    /// Mute state: with `streamId`, that (own) stream was muted by a moderator
    /// (`muteForced:` on the publisher); without, the session-wide mute state changed
    /// (`session:muteForced:` with `active`).
    case muteForced(streamId: String?, active: Bool)
    /// An archive started recording the session.
    case archiveStarted(WireArchive)
    /// An archive stopped.
    case archiveStopped(archiveId: String)
    /// The router is closing this connection (force disconnect, a fatal error); `code`
    /// is the OpenTok session error code to report, if any.
    case disconnected(reason: String, code: Int?)
    /// Routed sessions: the router's leg to this subscriber cannot (or again can) carry
    /// video; drives OpenTok's subscriber audio-fallback events.
    case subscriberQuality(SubscriberQualityEvent)
    /// Relayed sessions, to the publisher: the largest size and rate any subscriber of
    /// `streamId` wants (the publisher encodes no more than that); nil fields: no limit.
    case encodingPreferences(EncodingPreferences)
    /// Relayed sessions, to the publisher: these subscribers' keys no longer count (they
    /// unsubscribed or left); stop sending to them and refuse their RTCP.
    case relayedReceiversRevoked(RelayedReceiversRevoked)
    /// Routed sessions, to the connection that owns the leg: the router ended one of its
    /// media legs by itself (the leg's DTLS handshake on the one-port edge failed or did
    /// not finish in time) and removed what the leg carried: the stream (a publisher leg;
    /// the others get `streamDestroyed` with "networkDisconnected") or the subscription.
    case mediaFailed(MediaFailure)
    /// The router is draining (stopping in a cluster): the client should close this socket
    /// and resume its connection through another router of the cluster — one of `nodes`
    /// (base URLs) if given, else one it already knows.
    case move(MoveEvent)
}

/// The `move` event: where a client of a draining router should reconnect.
public struct MoveEvent: Codable, Sendable, Equatable {
    /// The base URLs (`http(s)://host:port`) of the routers to try, the draining one left out.
    public var nodes: [String]
    /// Why, for logs ("draining").
    public var reason: String

    /// An event with every field given.
    public init(nodes: [String], reason: String) {
        self.nodes = nodes
        self.reason = reason
    }
}

/// The `connected` reply.
public struct ConnectedReply: Codable, Sendable, Equatable {
    /// This client's own connection.
    public var connection: WireConnection
    /// What it may do.
    public var capabilities: WireCapabilities
    /// The other clients already connected (not this one).
    public var connections: [WireConnection]
    /// The streams already published (by others; on resume, also this client's own).
    public var streams: [WireStream]
    /// The archive running now, if any.
    public var archive: WireArchive?
    /// Whether "mute all" is active (streams this client publishes will start muted).
    public var forceMuteAll: Bool
    /// The secret to present with `resumeConnectionId` when reconnecting.
    public var resumeSecret: String
    /// How long the router keeps this connection after its socket drops, milliseconds.
    public var reconnectGraceMilliseconds: Int
    /// Whether the session is relayed (peer to peer) rather than routed.
    public var relayed: Bool
    /// On resume: how many events the router sends right after this reply, in order — the
    /// ones the client had not acknowledged (`ConnectRequest.eventSeq`). The state above
    /// is the state after them. Nil on a first connect (and from routers that replay nothing).
    public var replayedEvents: Int?
    /// Whether the session is end-to-end encrypted (created with `e2ee=true`): clients
    /// seal media with SFrame under their encryption secret. Sent only when true (absent
    /// = false), so clients that predate it ignore it and routers that predate it are
    /// understood.
    public var e2ee: Bool?
    /// The base URLs (`http(s)://host:port`) of every router of the cluster serving this
    /// session, where the client may reconnect (resuming) when its router goes away or asks
    /// it to move. Absent from a router running alone.
    public var clusterNodes: [String]?

    /// A reply with every field given.
    public init(connection: WireConnection, capabilities: WireCapabilities, connections: [WireConnection],
                streams: [WireStream], archive: WireArchive?, forceMuteAll: Bool, resumeSecret: String,
                reconnectGraceMilliseconds: Int, relayed: Bool, replayedEvents: Int? = nil, e2ee: Bool = false) {
        self.replayedEvents = replayedEvents
        self.e2ee = e2ee ? true : nil
        self.connection = connection
        self.capabilities = capabilities
        self.connections = connections
        self.streams = streams
        self.archive = archive
        self.forceMuteAll = forceMuteAll
        self.resumeSecret = resumeSecret
        self.reconnectGraceMilliseconds = reconnectGraceMilliseconds
        self.relayed = relayed
    }
}

/// The `published` reply.
public struct PublishedReply: Codable, Sendable, Equatable {
    /// The new stream.
    public var stream: WireStream
    /// Where to send its media (routed sessions; nil when relayed).
    public var media: WireMediaLeg?
    /// Whether it starts force-muted ("mute all" is active).
    public var muted: Bool
    /// The router's SDP answer to a browser publisher's `sdpOffer` (ICE-lite, setup
    /// passive, the edge's host candidate and the router's fingerprint); nil for native.
    public var sdpAnswer: String?

    /// A reply with every field given.
    public init(stream: WireStream, media: WireMediaLeg?, muted: Bool, sdpAnswer: String? = nil) {
        self.stream = stream
        self.media = media
        self.muted = muted
        self.sdpAnswer = sdpAnswer
    }
}

/// The `subscribed` reply.
public struct SubscribedReply: Codable, Sendable, Equatable {
    /// The subscription's id.
    public var subscriberId: String
    /// The stream subscribed to.
    public var streamId: String
    /// Where its media comes from (routed sessions).
    public var media: WireMediaLeg?
    /// The router's SDP offer to a browser subscriber (`SubscribeRequest.sdp`): sendonly
    /// sections, ICE-lite, setup actpass; the browser answers with `subscriberAnswer`.
    public var sdpOffer: String?
    /// Cluster: the id of the router that serves this subscriber's leg (the proxying one,
    /// which asked with `SubscribeRequest.mediaAtProxy`). From the owner to that router
    /// `media` is nil; that router fills `media` in with its own leg and passes the reply
    /// on with this kept, so the client knows its leg goes with that router's socket (a
    /// resume then loses it: OTKit holds `subscriberDidReconnect` back until it subscribed
    /// again). Nil for a leg at the owner.
    public var mediaNode: String?

    /// A reply with every field given.
    public init(subscriberId: String, streamId: String, media: WireMediaLeg?, sdpOffer: String? = nil, mediaNode: String? = nil) {
        self.subscriberId = subscriberId
        self.streamId = streamId
        self.media = media
        self.sdpOffer = sdpOffer
        self.mediaNode = mediaNode
    }
}

/// What the router decided about one subscriber's video (`subscriberQuality`).
public struct SubscriberQualityEvent: Codable, Sendable, Equatable {
    /// The subscription.
    public var subscriberId: String
    /// Its stream.
    public var streamId: String
    /// "warning" (video may be turned off soon), "warningLifted", "disabled" (video
    /// stopped for quality), "enabled" (video back).
    public var state: String

    /// An event with every field given.
    public init(subscriberId: String, streamId: String, state: String) {
        self.subscriberId = subscriberId
        self.streamId = streamId
        self.state = state
    }
}

/// The most a relayed publisher should encode for its subscribers (`encodingPreferences`).
public struct EncodingPreferences: Codable, Sendable, Equatable {
    /// The stream.
    public var streamId: String
    /// Largest width any subscriber wants, nil: no limit.
    public var maxWidth: Int?
    /// Largest height any subscriber wants, nil: no limit.
    public var maxHeight: Int?
    /// Largest frame rate any subscriber wants, nil: no limit.
    public var maxFrameRate: Double?

    /// Preferences with every field given.
    public init(streamId: String, maxWidth: Int?, maxHeight: Int?, maxFrameRate: Double?) {
        self.streamId = streamId
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxFrameRate = maxFrameRate
    }
}

/// Receivers of a relayed stream whose keys the publisher must drop (`relayedReceiversRevoked`).
public struct RelayedReceiversRevoked: Codable, Sendable, Equatable {
    /// The stream.
    public var streamId: String
    /// The receiver SSRCs (`WireMediaLeg.receiverSSRC`) of the subscriptions that ended.
    public var receiverSSRCs: [UInt32]

    /// A revocation with every field given.
    public init(streamId: String, receiverSSRCs: [UInt32]) {
        self.streamId = streamId
        self.receiverSSRCs = receiverSSRCs
    }
}

/// A media leg the router ended by itself (`mediaFailed`).
public struct MediaFailure: Codable, Sendable, Equatable {
    /// The stream the leg carried.
    public var streamId: String
    /// The subscription whose leg ended; nil: the stream's publisher leg.
    public var subscriberId: String?
    /// Why, in a sentence (no key, no credential).
    public var message: String
    /// True: the stream goes on and only this subscriber's leg is gone (the router that
    /// served it went away with the client's old socket); a new `subscribe` gets a new leg.
    /// OTKit then subscribes again by itself (bounded) instead of failing the subscriber.
    /// Nil (absent on the wire) for every other failure.
    public var resubscribe: Bool?

    /// A failure with every field given.
    public init(streamId: String, subscriberId: String?, message: String, resubscribe: Bool? = nil) {
        self.streamId = streamId
        self.subscriberId = subscriberId
        self.message = message
        self.resubscribe = resubscribe
    }
}

/// The `error` reply: OpenTok's error code and a readable message.
public struct ErrorReply: Codable, Sendable, Equatable {
    /// The OpenTok code (1004, 1413, 1461, 1520, 1540, ...).
    public var code: Int
    /// What went wrong.
    public var message: String

    /// The answer to a resume that cannot be honoured because the session's state is gone
    /// (its owner in a cluster died; another node took the session over): the client
    /// connects again to the same session with its token, a new connection (OTKit keeps
    /// the app's view: `sessionDidReconnect`, its publisher publishes again). Not an
    /// OpenTok number; a client that does not know it treats it as a refused resume.
    public static let rejoinCode = 1024

    /// An error with every field given.
    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }
}
