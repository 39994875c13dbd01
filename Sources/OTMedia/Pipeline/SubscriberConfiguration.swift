/// What a `SubscriberPipeline` expects to receive and how it answers.
public struct SubscriberConfiguration: Sendable {
    /// The video stream to accept (payload type, clock rate; SSRC 0 accepts any SSRC on
    /// that payload type). Nil: ignore video.
    public var videoStream: RTPStreamParameters? = RTPStreamParameters(ssrc: 0, payloadType: 96, clockRate: 90_000)
    /// The audio stream to accept, as for video. Nil: ignore audio.
    public var audioStream: RTPStreamParameters? = RTPStreamParameters(ssrc: 0, payloadType: 111, clockRate: 48_000)
    /// The decoded audio's format (channels must match what the sender encodes).
    public var audioFormat = AudioFormat.mono20ms
    /// SRTP keys of this leg (`receive` checks media, `send` protects RTCP); nil: plain RTP.
    public var keys: SRTPLegKeys?
    /// Where the socket binds (port 0: any free port).
    public var localAddress: SocketAddress = .ipv4Any(port: 0)
    /// A socket an `ICEClientConnector` already connected to the router's edge (ICE
    /// nominated, DTLS done; `keys` are the handshake's): the pipeline receives and sends
    /// on it instead of binding `localAddress`, and closes it on `stop`. Its clock must
    /// be the pipeline's. Nil: the pipeline binds its own.
    public var connectedSocket: UDPSocket?
    /// ICE consent checks for a leg on `connectedSocket` (RFC 7675), sent by the receive
    /// thread; STUN answers arriving on the socket go to it. Nil: no checks.
    public var consent: ICEConsentKeeper?
    /// Where RTCP (receiver reports, NACK, PLI) goes; nil: back to where media comes from.
    public var feedbackDestination: SocketAddress?
    /// End-to-end encryption (an `e2ee` session): every reassembled frame is opened with
    /// SFrame under this slot's key before decoding (`SFrameFrameLayout`); a frame that
    /// does not verify is dropped, never decoded (`SubscriberPipeline.decryption`). Nil:
    /// frames are decoded as received.
    public var endToEndEncryption: SFrameKeySlot?
    /// Video jitter buffer limits.
    public var jitterBuffer = JitterBufferConfiguration()
    /// How long audio waits before it starts playing (its jitter allowance), milliseconds.
    public var audioTargetDelayMilliseconds = 60
    /// Nanoseconds between receiver reports.
    public var receiverReportIntervalNanoseconds: UInt64 = 1_000_000_000
    /// The RTCP CNAME of this receiver.
    public var cname = "otkit-subscriber"
    /// This receiver's own SSRC (the sender SSRC of its RTCP).
    public var ssrc = UInt32.random(in: 1...UInt32.max)

    /// A configuration with the defaults above.
    public init() {}
}

/// What the subscriber knows about a decoded video frame besides its pixels.
public struct DecodedVideoFrameInfo: Sendable, Equatable {
    /// The frame's RTP timestamp (90 kHz).
    public var rtpTimestamp: UInt32
    /// Whether it was a keyframe.
    public var isKeyframe: Bool
    /// RFC 7741 PictureID, when the sender set one.
    public var pictureID: UInt16?
    /// When the first and last of its packets arrived (monotonic ns).
    public var firstPacketArrivalNanoseconds: UInt64
    /// See `firstPacketArrivalNanoseconds`.
    public var lastPacketArrivalNanoseconds: UInt64
    /// When decoding finished (monotonic ns).
    public var decodedAtNanoseconds: UInt64
    /// When to show the frame so that it matches the audio playing then (lip sync from
    /// both streams' sender reports, audio as the master clock); nil until both streams
    /// have sent a report and audio has played, or without audio: show it at once.
    public var presentAtNanoseconds: UInt64?
}
