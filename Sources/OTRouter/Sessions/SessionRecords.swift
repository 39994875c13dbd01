import OTNet
import OTSignaling

/// One client connection in a session (the router's view of an `OTConnection`).
struct ConnectionRecord {
    let id: String
    let apiKey: String
    let role: Role
    let data: String?
    let creationTime: Int64
    let layoutClassList: [String]
    /// Presented with `resumeConnectionId` to re-attach after a lost socket.
    let resumeSecret: String
    /// The socket, nil while the connection waits out its reconnection grace.
    var peer: (any WebSocketPeer)?
    /// When the grace ends (set while `peer` is nil).
    var graceDeadline: ContinuousClock.Instant?
    /// Its streams, in publish order.
    var streams: [String] = []
    /// Its subscriptions (subscriber ids).
    var subscriptions: Set<String> = []
    /// The IP address it connected from (`RouterLimits.connectionsPerAddress`).
    var address = ""
    /// Subscriber legs being opened for it outside the hub's lock (they count toward its
    /// subscription limit until they land).
    var pendingSubscriptions = 0
    /// Publisher legs being opened for it outside the hub's lock (they count toward its
    /// stream limit until they land).
    var pendingStreams = 0
    /// Its signal rate limit (`RouterLimits.signalsPerSecond`).
    var signalBudget = SignalBudget()
    /// Its client acknowledges events (`ConnectRequest.eventSeq` was set): the router
    /// keeps what it sends until acknowledged (`EventLog`).
    var acknowledgesEvents = false
    /// The highest signal id (`SignalRequest.id`) delivered from it: a signal with an id
    /// at or below this is a resend of one already delivered and is dropped.
    var lastSignalId = 0

    var wire: WireConnection { WireConnection(connectionId: id, creationTime: creationTime, data: data) }
}

/// One published stream.
struct StreamRecord {
    var wire: WireStream
    /// Force-muted: the media plane forwards none of its audio.
    var muted: Bool
    var layoutClassList: [String]
    /// Relayed sessions: the publisher's own media leg (`PublishRequest.relayedLeg`),
    /// handed to each subscriber as its `media`.
    var relayedLeg: WireMediaLeg? = nil
    /// The publisher's `subscriberAudioFallbackEnabled` (routed sessions).
    var subscriberAudioFallback = true
    /// Relayed sessions: the encoding limit last sent to the publisher (nil: none).
    var encodingLimit: EncodingPreferences? = nil
    /// Relayed sessions: receiver SSRCs handed out whose subscriptions still exist, and
    /// those revoked since (never handed out again: the publisher refuses them).
    var relayedReceivers: Set<UInt32> = []
    var revokedReceivers: Set<UInt32> = []
    /// The router carries its media (a leg and a forwarding group): every stream of a
    /// routed session, and a browser's in a relayed one (a browser cannot meet native
    /// peers directly). False: a relayed publisher's own leg, which the router never sees.
    var routed = true
}

/// One subscription: `connectionId` receives `streamId`.
struct SubscriptionRecord {
    let id: String
    let streamId: String
    let connectionId: String
    /// What the subscriber wants forwarded now (subscribeToAudio / subscribeToVideo).
    var audio = true
    var video = true
    /// The subscriber's preferredResolution / preferredFrameRate (nil: none).
    var preferences: SubscriberPreferences?
    /// Relayed sessions: the SSRC its keys were derived from (unique per stream).
    var relayedReceiverSSRC: UInt32? = nil
    /// The router holds a leg for it (its stream is `StreamRecord.routed`); false: the
    /// subscriber receives straight from a relayed publisher.
    var routed = true
    /// Cluster: the node that serves this subscriber's leg (the one proxying the client's
    /// socket, `SessionHub+MediaAtProxy`); nil when this router holds the leg.
    var mediaNode: String? = nil
}

/// How a session archives, from `POST /session/create`.
enum ArchiveMode: String {
    case manual
    case always
}

/// One session and everything in it.
struct SessionRecord {
    let id: String
    let apiKey: String
    let relayed: Bool
    let archiveMode: ArchiveMode
    let archiveName: String?
    let archiveResolution: String?
    let createdAt: Int64
    /// Created with `e2ee=true`: media is end-to-end encrypted (clients are told at
    /// connect; archiving is refused).
    var e2ee = false
    var connections: [String: ConnectionRecord] = [:]
    /// Connection ids in join order.
    var connectionOrder: [String] = []
    var streams: [String: StreamRecord] = [:]
    /// Stream ids in publish order.
    var streamOrder: [String] = []
    var subscriptions: [String: SubscriptionRecord] = [:]
    /// The archives recording now (started or paused), oldest first: one, or several
    /// with distinct `multiArchiveTag`s.
    var activeArchiveIds: [String] = []
    /// The oldest archive recording now, if any (what a connecting client is told of).
    var activeArchiveId: String? { activeArchiveIds.first }
    /// "Mute all" is active: streams published from now on start muted.
    var muteAll = false
    /// The streams the active "mute all" left alone.
    var muteAllExcluded: Set<String> = []
    /// Since when it has had no connection (nil while it has one): idle sessions are
    /// removed after `RouterLimits.idleSessionSeconds`.
    var emptySince: ContinuousClock.Instant? = .now

    /// Whether a connect could adopt it again exactly as it is (routed, manual archiving,
    /// no archive settings, no mute state, nothing recording), so removing it loses nothing.
    var isReadoptable: Bool {
        !relayed && !e2ee && archiveMode == .manual && archiveName == nil && archiveResolution == nil && !muteAll
            && activeArchiveIds.isEmpty
    }

    /// Connections with an open socket, in join order.
    var attached: [ConnectionRecord] { connectionOrder.compactMap { connections[$0] }.filter { $0.peer != nil } }
}

/// An archive: started → stopped → available (its file's size and path set) or failed
/// (with a reason). Individual archives make a ZIP, composed ones an MP4.
struct ArchiveRecord {
    let id: String
    let apiKey: String
    let sessionId: String
    let name: String?
    let createdAt: Int64
    let hasAudio: Bool
    let hasVideo: Bool
    let outputMode: String
    let streamMode: String
    let resolution: String
    var status: String = "started"
    var stoppedAt: Int64?
    /// The file's bytes once `available` (the ZIP, or the composed MP4).
    var size = 0
    /// Seconds recorded, from the files once `available`; nil: from `stoppedAt`.
    var durationSeconds: Int?
    /// Why it is `failed`.
    var reason: String?
    /// Where the file (ZIP or MP4) is, once `available`.
    var filePath: String?
    /// Several archives of one session may run at once when their tags differ (nil: untagged).
    var multiArchiveTag: String?
    /// It stops itself after this many seconds (`maxDuration`, 60...36000; default 14,400).
    var maxDurationSeconds = ArchiveRecord.defaultMaxDurationSeconds
    /// Manual stream mode: the streams chosen with `PATCH …/streams`, in the order added.
    var selectedStreams: [ArchiveStreamSelection] = []

    /// OpenTok's default longest recording: 4 h.
    static let defaultMaxDurationSeconds = 14_400
    /// The `reason` of an archive stopped by its `maxDuration`.
    static let maxDurationReason = "maximum duration exceeded"
}

/// A client's issue report, kept for a person to read.
struct IssueRecord {
    let id: String
    let apiKey: String
    let sessionId: String
    let connectionId: String
    let time: Int64
    let report: IssueReport
}
