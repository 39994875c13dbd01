/// One receiver of a publisher's packets as its congestion controller sees it: the
/// sent-packet history its feedback refers to, the feedback adapter and the bandwidth
/// estimator for the path to it. Routed mode has one leg (the configured destination,
/// `address` nil: feedback from any source counts); relayed mode one per address that
/// sent authenticated RTCP recently (`PublisherTransport.learn`).
///
/// Cost: the estimator's and history's rings (~170 KB) allocated when the leg is made,
/// nothing per packet. Owned by the transport thread.
final class PublisherTransportLeg {
    /// Where this receiver is (relayed), nil for the routed leg. With keys per receiver
    /// it follows the receiver's authenticated SRTCP to a new address, after that
    /// address's probation (`addressGuard`).
    var address: SocketAddress? { addressGuard.address }
    /// Decides when the receiver may move: one spoofed datagram under its keys must not
    /// point its media and resends at a third party.
    var addressGuard = LegAddressGuard()
    /// The receiver's own SRTP contexts (relayed, keys per receiver), else nil.
    let contexts: RelayedReceiverContexts?
    /// When authenticated RTCP last came from it (relayed expiry).
    var lastHeard: UInt64
    var history = SentPacketHistory()
    var adapter = TransportFeedbackAdapter()
    var estimator: BandwidthEstimator
    /// Probe clusters sent to this receiver, measured from its feedback.
    var probes = ProbeClusterEstimator()
    var hasFeedback = false
    var lastFeedbackAt: UInt64 = 0

    init(address: SocketAddress?, contexts: RelayedReceiverContexts? = nil, configuration: BandwidthEstimatorConfiguration,
         now: UInt64) {
        _ = addressGuard.observe(address, now: now)
        self.contexts = contexts
        lastHeard = now
        estimator = BandwidthEstimator(configuration: configuration)
    }

    /// Whether transport-wide feedback came within the last 2 s.
    func isAnswering(now: UInt64) -> Bool { hasFeedback && now &- lastFeedbackAt < 2_000_000_000 }
}
