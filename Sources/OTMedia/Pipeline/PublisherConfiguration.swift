/// Everything a `PublisherPipeline` needs besides its sources: codecs, RTP identities,
/// keys and addresses.
public struct PublisherConfiguration: Sendable {
    /// VP8 settings (size and rate must match the video source's format); nil: no video.
    public var video: VP8EncoderSettings?
    /// Opus settings (format must match the audio source's); nil: no audio.
    public var audio: OpusEncoderSettings?
    /// The video stream's SSRC and payload type.
    public var videoStream = RTPStreamParameters.vp8()
    /// The audio stream's SSRC and payload type.
    public var audioStream = RTPStreamParameters.opus()
    /// SRTP keys of this leg; nil sends plain RTP (for debugging; peers expect SRTP).
    public var keys: SRTPLegKeys?
    /// Where the publisher's socket binds (port 0: any free port).
    public var localAddress: SocketAddress = .ipv4Any(port: 0)
    /// A socket an `ICEClientConnector` already connected to the router's edge (ICE
    /// nominated, DTLS done; `keys` are the handshake's): the pipeline sends and receives
    /// on it instead of binding `localAddress`, and closes it on `stop`. Its clock must
    /// be the pipeline's. Nil: the pipeline binds its own.
    public var connectedSocket: UDPSocket?
    /// ICE consent checks for a leg on `connectedSocket` (RFC 7675), sent by the feedback
    /// thread; STUN answers arriving on the socket go to it. Nil: no checks.
    public var consent: ICEConsentKeeper?
    /// Where video (and, unless `audioDestination` is set, audio) goes.
    public var destination: SocketAddress
    /// A different destination for audio (peers that take one SSRC per port).
    public var audioDestination: SocketAddress?
    /// End-to-end encryption (an `e2ee` session): every encoded frame is sealed with
    /// SFrame under this slot's key before packetization (`SFrameFrameLayout`); frames
    /// are not sent while the slot has no key. Nil: frames go out as encoded.
    public var endToEndEncryption: SFrameKeySlot?
    /// Largest RTP payload (VP8 descriptor included), bytes.
    public var maximumPayloadSize = VP8Packetizer.defaultMaxPayloadSize
    /// Packet buffers (1.6 KB each) made when the pipeline is created: room for one
    /// keyframe's packets in flight plus the feedback thread's (96 by default, ~150 KB).
    /// While every buffer is in flight the pool grows, up to 1,200, by allocating on the
    /// capture thread (2 allocations a buffer, once: grown buffers stay). Raise it when the
    /// source can run far ahead of the transport thread (an unpaced file or benchmark
    /// source on a loaded machine), so the hot path does not allocate then either. Cost:
    /// 1.6 KB of memory per buffer, made at creation. Clamped to 1...1,200.
    public var packetBufferCount = 96
    /// The RTCP CNAME (RFC 3550 6.5.1) shared by this publisher's streams.
    public var cname = "otkit-publisher"
    /// The congestion controller's bounds: the estimate starts at `initialBitrate`, stays
    /// within `minBitrate...maxBitrate` (audio and video together, bits/s), and probing
    /// stops at the maximum.
    public var bandwidthEstimation = BandwidthEstimatorConfiguration(initialBitrate: 1_000_000, minBitrate: 100_000,
                                                                     maxBitrate: 2_500_000)
    /// Relayed fan-out: instead of `destination` (and `audioDestination`), every packet goes
    /// to each address that sent authenticated RTCP (SRTCP that passed, or plain RTCP
    /// without keys) within `relayedDestinationTimeoutNanoseconds`, at most
    /// `relayedDestinationLimit` of them; each gets its own bandwidth estimate and the
    /// video target is the smallest. Receivers must send RTCP first (a subscriber's first
    /// receiver report goes out at start). Off: routed, one fixed destination.
    public var relayedFanOut = false
    /// Relayed fan-out with `keys`: each receiver gets keys of its own
    /// (`SRTPLegKeys.relayedReceiver(ssrc:)` of `keys` and the SSRC its SRTCP carries), so no
    /// receiver can read or forge another's copy. A receiver is added when its first SRTCP
    /// authenticates under its derived keys (at most 20 derivations a second, against
    /// floods of made-up SSRCs); each packet is protected once per receiver, as each
    /// receiver already gets a copy of its own. False: every receiver shares `keys`.
    public var relayedKeysPerReceiver = false
    /// Whether the video capture thread sends a frame itself when the transport is free
    /// and the pacer lets the frame go at once (routed only): saves the transport thread's
    /// wake-up, `ppoll` and `read` per frame. On by default; off, every packet goes through
    /// the transport thread (`otbench transport` measures both in one run).
    public var directSends = true
    /// Most relayed destinations (8).
    public var relayedDestinationLimit = 8
    /// A relayed destination not heard from for this long is dropped (5 s).
    public var relayedDestinationTimeoutNanoseconds: UInt64 = 5_000_000_000
    /// The keys the pipeline's own senders and RTCP receiver use: `keys`, or nil when each
    /// relayed receiver has its own (packets are protected per receiver by the transport).
    var streamKeys: SRTPLegKeys? { relayedFanOut && relayedKeysPerReceiver ? nil : keys }
    /// Nanoseconds between sender reports.
    public var senderReportIntervalNanoseconds: UInt64 = 1_000_000_000

    // MARK: Encoding (adaptation, layers)

    /// Spatial encodings sent at once (simulcast), 1...3: the full size on `videoStream`,
    /// then ½ and ¼ size on `simulcastStreams`. Routed sessions only (the router picks one
    /// per subscriber). Each costs its own encoder's CPU. Checked by the pipeline's init.
    public var simulcastLayers = 1
    /// The SSRCs of the smaller encodings, largest first (the router hands them out in
    /// `WireMediaLeg.simulcastSSRCs`); at least `simulcastLayers - 1` of them.
    public var simulcastStreams: [RTPStreamParameters] = []
    /// Whether the encoder follows `PublisherPipeline.targetVideoBitrate` (quality ladder,
    /// simulcast split, audio fallback). False keeps the configured size, rate and bitrate.
    public var adaptiveVideo = true
    /// Publisher audio fallback: thresholds, and `enabled` (OpenTok's
    /// `publisherAudioFallbackEnabled`, off by default as in OpenTok). The warning comes
    /// after 2 s and video goes off 3 s later, as on the router's legs: with the generic
    /// 3 s + 4 s holds, a starved uplink's estimate needed up to 3 s more to fall and
    /// video went off only after 7.5-10 s (the issue asks for 10 s).
    public var audioFallback: AudioFallbackConfiguration = {
        var configuration = AudioFallbackConfiguration(side: .publisher, enabled: false)
        configuration.warningHold = 2_000_000_000
        configuration.disableHold = 3_000_000_000
        return configuration
    }()
    /// The quality ladder's hysteresis (step down after 1 s below a floor, up after 5 s
    /// at 1.3 × the richer floor).
    public var quality = QualityController.Configuration()

    /// OpenTok's `publisherAudioFallbackEnabled`: when on, a target that stays below the
    /// smallest rung switches video off (warning first) until it recovers; when off,
    /// video is never switched off. Same as `audioFallback.enabled`.
    public var audioFallbackEnabled: Bool {
        get { audioFallback.enabled }
        set { audioFallback.enabled = newValue }
    }

    /// The routed-session layering: three VP8 temporal layers (so the router can thin
    /// 30 → 15 → 7.5 fps per subscriber by dropping TID 2, then TID 1) and one extra
    /// simulcast encoding per SSRC in `simulcastSSRCs` (largest first, at most two; the
    /// router's `WireMediaLeg.simulcastSSRCs`). Does nothing to video when there is none.
    public mutating func useRoutedLayers(simulcastSSRCs: [UInt32]) {
        video?.temporalLayers = 3
        let extra = simulcastSSRCs.prefix(2)
        simulcastLayers = 1 + extra.count
        simulcastStreams = extra.map {
            RTPStreamParameters(ssrc: $0, payloadType: videoStream.payloadType, clockRate: videoStream.clockRate)
        }
    }

    /// A configuration sending to `destination` with the given codecs.
    public init(destination: SocketAddress, video: VP8EncoderSettings?, audio: OpusEncoderSettings?) {
        self.destination = destination
        self.video = video
        self.audio = audio
    }
}
