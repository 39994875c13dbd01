import OTMedia

/// The router's sender side of congestion control on one subscriber leg: its own
/// transport-wide sequence numbers (every RTP packet it sends the leg gets the next one),
/// the history feedback is matched against, a `BandwidthEstimator` fed by the
/// subscriber's transport-wide feedback and receiver-report loss, the `LayerSelector`
/// that picks the encoding and temporal layers from that estimate and the subscriber's
/// preferences, the subscriber-side `AudioFallbackController`, and padding probes.
///
/// Forwarding thread only (no lock); what the control plane reads is published through
/// `SubscriberLeg`'s atomics. Storage: the estimator's rings and a sent-packet history of
/// `packetRecords` packets each (~35 KiB per leg with the feedback scratch; the client-side
/// defaults of 4096 cost ~230 KiB), allocated once per leg; nothing per packet.
struct LegAdaptation {
    /// Estimator bounds for a subscriber leg: start at 1 Mbps (a webcam stream fits; a
    /// capped leg comes down within a second or two of feedback), at least 30 kbps, at
    /// most 50 Mbps.
    static let estimatorConfiguration: BandwidthEstimatorConfiguration = {
        var configuration = BandwidthEstimatorConfiguration(initialBitrate: 1_000_000, minBitrate: 30_000, maxBitrate: 50_000_000)
        configuration.acknowledged.capacity = packetRecords
        return configuration
    }()
    /// Packets the sent-packet history and the acknowledged-bitrate window hold: 512 is
    /// ~1.5 s of a 4 Mbit/s leg (feedback answers within a round trip plus 100 ms) and the
    /// whole 0.5 s window up to ~10 Mbit/s (beyond, the window measures the span it holds).
    static let packetRecords = 512
    /// Packet results one feedback is expected to hold (a bigger one grows the scratch once).
    static let feedbackResults = 256
    /// Padding bytes per probe packet: the most RFC 3550 5.1's one-byte count allows.
    static let probePadding = 255
    /// How long an application-limited probe lasts, and how often one starts.
    static let limitedProbeDuration: UInt64 = 2_000_000_000
    static let limitedProbeInterval: UInt64 = 6_000_000_000
    /// The rate probes send at while audio fallback probes for recovery (bits/s): the
    /// fallback's recovery threshold plus headroom.
    static let fallbackProbeRate = 250_000

    var transport = TransportSequenceNumbers(start: UInt16.random(in: 0 ... .max))
    var history = SentPacketHistory(capacity: LegAdaptation.packetRecords)
    var adapter = TransportFeedbackAdapter()
    var results: [PacketResult] = []
    var estimator = BandwidthEstimator(configuration: LegAdaptation.estimatorConfiguration)
    var selector: LayerSelector?
    var fallback = AudioFallbackController(configuration: LegAdaptation.fallbackConfiguration)
    /// Video stopped by audio fallback.
    var fallbackOff = false
    var preferencesSeen: UInt64 = 0
    var layersSeen: UInt64 = 0
    /// Transport-wide feedback messages taken.
    var feedbacks: UInt64 = 0
    /// Bytes sent on the leg (media, probes), and their smoothed rate (bits/s) as of the
    /// last adaptation round.
    var sentBytes: UInt64 = 0
    var sentBytesSeen: UInt64 = 0
    var sentRate: Double = 0
    var sentRateAt: UInt64 = 0

    // Probing
    var probeRate = 0
    var probeUntil: UInt64 = 0
    var nextLimitedProbe: UInt64 = 0
    var probeCredit: Double = 0
    var probeLast: UInt64 = 0
    var probeSequence = UInt16.random(in: 0 ... .max)
    var probesSent: UInt64 = 0

    /// Subscriber-side fallback, with holds shortened for a router that probes: it warns
    /// after 2 s, disables 3 s later, probes every 4 s for 6 s.
    static var fallbackConfiguration: AudioFallbackConfiguration {
        var c = AudioFallbackConfiguration.subscriber
        c.warningHold = 2_000_000_000
        c.disableHold = 3_000_000_000
        c.probeInterval = 4_000_000_000
        c.recoveryHold = 3_000_000_000
        return c
    }

    init() { results.reserveCapacity(Self.feedbackResults) }

    /// Takes the next transport-wide number for a packet of `size` bytes sent at `now`.
    @inline(__always)
    mutating func nextSequence(size: Int, kind: SentPacketKind, now: UInt64) -> UInt16 {
        let (unwrapped, wire) = transport.allocate()
        history.record(sequenceNumber: unwrapped, sendNanoseconds: now, size: size, kind: kind)
        return wire
    }

    /// The estimate decisions use: the estimator's target once the subscriber has sent
    /// transport-wide feedback; before that (a client that sends none) only the
    /// loss-based part from its receiver reports, since the delay-based part never moves
    /// from its initial value without feedback.
    var estimate: Int {
        feedbacks > 0 ? estimator.targetBitrate
            : min(max(estimator.state.lossBasedBitrate, Self.estimatorConfiguration.minBitrate), Self.estimatorConfiguration.maxBitrate)
    }

    /// Updates the smoothed sent rate (a quarter of each new 100 ms sample: about a
    /// second's memory).
    mutating func measureSent(now: UInt64) {
        defer { sentRateAt = now; sentBytesSeen = sentBytes }
        guard sentRateAt != 0, now > sentRateAt else { return }
        let sample = Double(sentBytes &- sentBytesSeen) * 8e9 / Double(now - sentRateAt)
        sentRate += (sample - sentRate) / 4
    }

    /// What audio fallback may count on: the estimate; while fallback has the leg's video
    /// off, at most twice what the leg carries. An estimate from receiver-report loss
    /// alone keeps rising while a leg sends only audio (nothing is lost), so without the
    /// cap a leg whose video is off would "recover" with its bottleneck unchanged; probes
    /// raise what it carries when it tries to come back. Never while video flows: a
    /// stream that needs little (a still scene, a 5 fps camera: 15-40 kbps) would look
    /// like a leg that cannot carry video, and lose it on a perfect network.
    func fallbackBitrate(estimate: Int) -> Int {
        fallbackOff ? min(estimate, Int(2 * sentRate)) : estimate
    }

    /// Feeds one transport-wide feedback from the subscriber. While the leg probes (audio
    /// fallback's recovery probe, or an application-limited leg's burst) what the
    /// subscriber acknowledges (at most what the leg sent) is a rate the path delivers: the
    /// estimate takes it at once
    /// (`BandwidthEstimator.onProbeResult`) instead of climbing 8 % a second, so a leg whose
    /// bottleneck went away gets video back within seconds.
    mutating func take(_ feedback: TransportWideCCFeedback, now: UInt64) {
        adapter.adapt(feedback, history: &history, now: now, into: &results)
        estimator.onTransportFeedback(results, now: now)
        if probeRate > 0 { estimator.onProbeResult(sentBitrate: Int(sentRate), now: now) }
        feedbacks &+= 1
    }
}
