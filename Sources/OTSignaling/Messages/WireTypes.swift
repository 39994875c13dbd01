/// A client connected to a session, as the router describes it to the others
/// (`OTConnection`).
public struct WireConnection: Codable, Sendable, Equatable {
    /// The router-assigned connection id (unique within the session, URL-path safe).
    public var connectionId: String
    /// When the client connected, Unix milliseconds.
    public var creationTime: Int64
    /// The token's connection data, nil when the token had none.
    public var data: String?

    /// A connection with every field given.
    public init(connectionId: String, creationTime: Int64, data: String?) {
        self.connectionId = connectionId
        self.creationTime = creationTime
        self.data = data
    }
}

/// A published stream (`OTStream`).
public struct WireStream: Codable, Sendable, Equatable {
    /// The router-assigned stream id (a UUID string, as OpenTok's).
    public var streamId: String
    /// The connection that publishes it.
    public var connectionId: String
    /// The publisher's name (may be empty).
    public var name: String
    /// Whether the publisher currently sends audio (publishAudio).
    public var hasAudio: Bool
    /// Whether the publisher currently sends video (publishVideo).
    public var hasVideo: Bool
    /// Encoded picture width, pixels (0 without video).
    public var videoWidth: Int
    /// Encoded picture height, pixels (0 without video).
    public var videoHeight: Int
    /// "camera", "screen" or "custom".
    public var videoType: String
    /// When it was published, Unix milliseconds.
    public var creationTime: Int64

    /// A stream with every field given.
    public init(streamId: String, connectionId: String, name: String, hasAudio: Bool, hasVideo: Bool,
                videoWidth: Int, videoHeight: Int, videoType: String, creationTime: Int64) {
        self.streamId = streamId
        self.connectionId = connectionId
        self.name = name
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.videoWidth = videoWidth
        self.videoHeight = videoHeight
        self.videoType = videoType
        self.creationTime = creationTime
    }
}

/// What the token lets this connection do (`OTSessionCapabilities`).
public struct WireCapabilities: Codable, Sendable, Equatable {
    /// May publish.
    public var canPublish: Bool
    /// May subscribe.
    public var canSubscribe: Bool
    /// May send signals.
    public var canSignal: Bool
    /// May force mute (moderator).
    public var canForceMute: Bool
    /// May force disconnect (moderator).
    public var canForceDisconnect: Bool

    /// Capabilities with every field given.
    public init(canPublish: Bool, canSubscribe: Bool, canSignal: Bool, canForceMute: Bool, canForceDisconnect: Bool) {
        self.canPublish = canPublish
        self.canSubscribe = canSubscribe
        self.canSignal = canSignal
        self.canForceMute = canForceMute
        self.canForceDisconnect = canForceDisconnect
    }

    /// What `role` grants.
    public init(role: Role) {
        self.init(canPublish: role.canPublish, canSubscribe: role.canSubscribe, canSignal: role.canSignal,
                  canForceMute: role.canModerate, canForceDisconnect: role.canModerate)
    }
}

/// One media leg between a client and the router (routed mode): where the client sends
/// its SRTP (and RTCP, multiplexed), and the keys, SDES style. Each publisher and each
/// subscriber has its own leg. The router learns the client's address from the first
/// packet on the leg that authenticates (SRTP or SRTCP), and follows it if it changes.
public struct WireMediaLeg: Codable, Sendable, Equatable {
    /// The router's media host (an IP literal).
    public var host: String
    /// The router's UDP port for this leg.
    public var port: Int
    /// The SRTP profile's RFC name (`AEAD_AES_128_GCM`, `AES_CM_128_HMAC_SHA1_80`, ...).
    public var profile: String
    /// Base64 master key || salt protecting what the client sends on this leg (SDES legs).
    /// Nil on legs of the one-port edge (`transport` set): their keys come from the DTLS
    /// handshake and never travel in signaling.
    public var clientKey: String?
    /// Base64 master key || salt protecting what the router sends on this leg (SDES legs);
    /// nil on edge legs, as `clientKey`.
    public var routerKey: String?
    /// SSRC of the audio stream on this leg (publisher leg: the one the client must use;
    /// subscriber leg: the one the router sends), nil without audio.
    public var audioSSRC: UInt32?
    /// SSRC of the video stream on this leg, as for audio (with simulcast: the full-size
    /// encoding's).
    public var videoSSRC: UInt32?
    /// Publisher legs with simulcast: the SSRCs of the smaller encodings, largest first
    /// (half size, then quarter size). Nil or empty without simulcast.
    public var simulcastSSRCs: [UInt32]?
    /// Relayed subscriber legs: the SSRC the subscriber must send its RTCP with; its keys
    /// on this leg are derived from the publisher's and this SSRC, so they are its own.
    /// Nil on every other leg.
    public var receiverSSRC: UInt32?
    /// Legs on the router's one-port edge: the router's ICE credentials and certificate
    /// fingerprint (the client runs ICE and a DTLS client handshake against `host:port`,
    /// and the SRTP keys come from that handshake). Nil on SDES legs.
    public var transport: WireTransport?

    /// A leg with every field given (keys nil and `transport` set afterwards for an edge leg).
    public init(host: String, port: Int, profile: String, clientKey: String?, routerKey: String?,
                audioSSRC: UInt32?, videoSSRC: UInt32?, simulcastSSRCs: [UInt32]? = nil) {
        self.simulcastSSRCs = simulcastSSRCs
        self.host = host
        self.port = port
        self.profile = profile
        self.clientKey = clientKey
        self.routerKey = routerKey
        self.audioSSRC = audioSSRC
        self.videoSSRC = videoSSRC
    }
}

/// The archive running in a session.
public struct WireArchive: Codable, Sendable, Equatable {
    /// The archive id (a UUID string).
    public var id: String
    /// Its name (may be empty).
    public var name: String

    /// An archive with every field given.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
