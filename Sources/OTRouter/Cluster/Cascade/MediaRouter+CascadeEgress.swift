import OTMedia
import OTSignaling

/// The origin's side of a media cascade: a stream published here is sent to another node
/// over ONE egress leg per (stream, node), however many of its subscribers that node has.
///
/// The egress is a subscriber leg of the stream's forwarding group on the one-port edge
/// (ICE-lite + DTLS server here; the receiving node is the ICE + DTLS client), so it is
/// SRTP over UDP with keys from the DTLS handshake, and everything a subscriber leg does
/// happens on it: PLI/FIR from the receiving node ask this publisher for a keyframe (rate
/// limited by the group, one per 300 ms), its NACKs are answered from the leg's own
/// history, its receiver reports and transport-wide feedback drive the leg's congestion
/// control. Layers: the leg forwards ONE encoding, chosen like a subscriber's — the
/// largest the receiving node's aggregate preferences (`setCascadePreferences`: the
/// largest size and frame rate any of its subscribers wants) and the leg's bandwidth
/// estimate allow; the receiving node then serves its subscribers that encoding. Sending
/// all simulcast layers would cost the origin up to 3 legs' work and the link ~1.4× the
/// bytes for a choice the receiving node can only narrow further.
///
/// The leg is counted apart (`cascadeCounters`: `egressLegs` gauge, packets, bytes). When
/// the stream ends here its egress legs send an RTCP BYE, so the receiving node ends its
/// copy at once. Cost: one subscriber leg (its edge registration, SRTP sessions and NACK
/// history of up to 600 × 2 KiB buffers) per (stream, node).
extension MediaRouter {
    /// Opens (or re-opens: a node asking again replaced its ingress) the egress leg of
    /// `streamId` towards `node`, whose ICE credentials and certificate fingerprint are
    /// `transport`; returns the leg as the receiving node needs it (this router's edge
    /// address, ICE credentials, fingerprint, the SSRCs it sends with; no key). Throws
    /// `notFound`-style `invalidArgument` ("no stream … is published") for an unknown
    /// stream (counted in `requestsUnknownStream`), `invalidArgument` for a bad
    /// transport, `networkFailure` when the edge refuses the leg.
    /// Cost: as `addSubscriber` with a transport.
    public func openCascadeEgress(streamId: String, node: String, transport: WireTransport) throws(MediaError) -> WireMediaLeg {
        let key = CascadeEgressKey(streamId: streamId, node: node)
        guard registry.withLock({ $0.groups[streamId] != nil }) else {
            cascadeCounters.requestsUnknownStream.add(1, ordering: .relaxed)
            throw MediaError(.invalidArgument, "no stream \(streamId) is published")
        }
        removeSubscriber(subscriberId: key.subscriberId)  // a previous leg of the same node goes
        let leg = try addSubscriberLeg(subscriberId: key.subscriberId, streamId: streamId, audio: true, video: true,
                                       transport: transport, cascadeEgress: cascadeCounters)
        registry.withLock { registry in
            registry.cascadeEgresses[key] = key.subscriberId
            cascadeCounters.egressLegs.store(registry.cascadeEgresses.count, ordering: .relaxed)
        }
        cascadeCounters.egressOpened.add(1, ordering: .relaxed)
        return leg
    }

    /// Closes the egress leg of `streamId` towards `node` (its last subscriber there left).
    /// Unknown pairs are ignored. Cost: as `removeSubscriber`.
    public func closeCascadeEgress(streamId: String, node: String) {
        removeSubscriber(subscriberId: CascadeEgressKey(streamId: streamId, node: node).subscriberId)
    }

    /// Hands the receiving node's aggregate preferences (the largest any of its
    /// subscribers wants; nil: no limit) to the egress leg's layer selection. Unknown
    /// pairs are ignored. Cost: as `setPreferences`.
    public func setCascadePreferences(streamId: String, node: String, width: Int?, height: Int?, frameRate: Double?) {
        setPreferences(subscriberId: CascadeEgressKey(streamId: streamId, node: node).subscriberId, width: width, height: height,
                       frameRate: frameRate)
    }

    /// The egress legs open now towards each node, by stream id (tests, metrics). Cost: a
    /// pass over the egress table under the registry lock.
    public func cascadeEgressNodes(streamId: String) -> [String] {
        registry.withLock { $0.cascadeEgresses.keys.filter { $0.streamId == streamId }.map(\.node).sorted() }
    }

    /// The bookkeeping when a leg leaves: an egress' entry goes (registry lock held).
    func cascadeEgressLeft(subscriberId: String, streamId: String, _ registry: inout Registry) {
        guard subscriberId.hasPrefix("cascade/") else { return }
        registry.cascadeEgresses = registry.cascadeEgresses.filter { $0.value != subscriberId }
        cascadeCounters.egressLegs.store(registry.cascadeEgresses.count, ordering: .relaxed)
    }

    /// The bookkeeping when a stream ends here: its egress entries and its ingress record
    /// go (registry lock held; the legs go with the group, which sends the egress BYEs).
    func cascadeStreamEnded(_ streamId: String, _ registry: inout Registry) {
        if !registry.cascadeEgresses.isEmpty {
            registry.cascadeEgresses = registry.cascadeEgresses.filter { $0.key.streamId != streamId }
            cascadeCounters.egressLegs.store(registry.cascadeEgresses.count, ordering: .relaxed)
        }
        if let ingress = registry.cascadeIngresses.removeValue(forKey: streamId) {
            ingress.ended()
            cascadeCounters.ingressLegs.store(registry.cascadeIngresses.count, ordering: .relaxed)
            cascadeCounters.ingressEnded.add(1, ordering: .relaxed)
        }
    }
}
