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
    /// Where video (and, unless `audioDestination` is set, audio) goes.
    public var destination: SocketAddress
    /// A different destination for audio (peers that take one SSRC per port).
    public var audioDestination: SocketAddress?
    /// Largest RTP payload (VP8 descriptor included), bytes.
    public var maximumPayloadSize = VP8Packetizer.defaultMaxPayloadSize
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
    /// Most relayed destinations (8).
    public var relayedDestinationLimit = 8
    /// A relayed destination not heard from for this long is dropped (5 s).
    public var relayedDestinationTimeoutNanoseconds: UInt64 = 5_000_000_000
    /// Nanoseconds between sender reports.
    public var senderReportIntervalNanoseconds: UInt64 = 1_000_000_000

    /// A configuration sending to `destination` with the given codecs.
    public init(destination: SocketAddress, video: VP8EncoderSettings?, audio: OpusEncoderSettings?) {
        self.destination = destination
        self.video = video
        self.audio = audio
    }
}
