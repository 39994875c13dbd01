import Dispatch
import OTMedia
import OTSignaling

/// The receiving router's side of a media cascade: a stream published on another node
/// (its origin) arrives here over ONE ingress leg and feeds a local forwarding group that
/// local subscriber legs join exactly as a local publisher's (`addSubscriber` works).
///
/// Set-up (`openCascadeIngress`, blocking, on the control plane): a UDP socket on this
/// router's media host, fresh ICE credentials and this router's certificate go to the
/// origin (`CascadeOrigin.openEgress`), which answers with its egress leg (edge address,
/// ICE credentials, fingerprint, SSRCs). This router then runs the project's ICE client
/// (nominating checks) and DTLS client handshake against the origin's edge
/// (`ICEClientConnector`): the SRTP keys come from that handshake, never from a message.
/// The connected socket becomes the publisher leg of the local group
/// (`LegEndpoint.cascade`), polled by the group's forwarding thread like a socket leg, so
/// the ingress adds no thread and no copy: each datagram is unprotected once and fanned
/// out as a publisher's would be.
///
/// Feedback: the group treats the origin as its publisher — local subscribers'
/// PLI/FIR become one PLI upstream per 300 ms at most; their NACKs are answered from
/// each local leg's own history, and holes in what arrives from the origin are NACKed
/// upstream (`UpstreamGaps`), where the egress answers from its history; receiver reports
/// and transport-wide feedback go upstream for the egress' congestion control; the local
/// subscribers' preferences are aggregated (largest wanted) and sent to the egress
/// (`setPreferences`). ICE consent checks go to the origin's edge every ~5 s from the
/// forwarding thread's timers.
///
/// Tear-down: the last local subscriber leaving starts the linger (`cascadeLinger`, two
/// idle ticks): then the group and the origin's egress close. The origin's stream ending
/// (its egress' RTCP BYE) or consent lapsing (30 s without an answer) removes the group
/// here and tells the leg-ended handler `.publisher(streamId:reason:)`, as for a local
/// publisher's leg ending, so signaling tells local subscribers the stream is gone.
extension MediaRouter {
    /// The linger period of cascade ingresses (ns): one with no local subscriber for two
    /// such ticks in a row closes. 1 s.
    public static let cascadeLinger: UInt64 = 1_000_000_000

    /// Opens the ingress of `streamId` from `origin` (a no-op when the stream already
    /// arrives here by cascade); `node` is this router's node id as the origin knows it.
    /// Blocks for the origin's answer and the ICE + DTLS exchange (at most `timeout` ns).
    /// Throws `invalidArgument` when the stream is published locally or the origin
    /// refuses (unknown stream, bad credentials), `networkFailure` when a socket cannot be
    /// had or ICE/DTLS fail. `consent`: the ICE consent checks to the origin's edge (an
    /// origin gone without a BYE is noticed after `consent.timeout`, 30 s by default).
    /// Cost: one socket, one P-256 handshake, the group's thread.
    public func openCascadeIngress(streamId: String, node: String, origin: any CascadeOrigin, linger: UInt64 = MediaRouter.cascadeLinger,
                                   timeout: UInt64 = 10_000_000_000,
                                   consent: ICEConsentKeeper.Timing = ICEConsentKeeper.Timing()) throws(MediaError) {
        try cascadeSetup.withLock { _ throws(MediaError) in
            let existing = registry.withLock { ($0.cascadeIngresses[streamId] != nil, $0.groups[streamId] != nil) }
            if existing.0 { return }
            if existing.1 { throw MediaError(.invalidArgument, "stream \(streamId) is published on this router") }
            try connectIngress(streamId: streamId, node: node, origin: origin, linger: linger, timeout: timeout, consent: consent)
        }
    }

    /// Whether `streamId` arrives here by cascade. Cost: a registry lookup.
    public func isCascaded(streamId: String) -> Bool { registry.withLock { $0.cascadeIngresses[streamId] != nil } }

    /// Closes the ingress of `streamId` now (its group, local subscribers' legs, and the
    /// origin's egress). Unknown ids are ignored. Cost: as `removePublisher`.
    public func closeCascadeIngress(streamId: String) {
        guard let ingress = registry.withLock({ $0.cascadeIngresses[streamId] }) else { return }
        removePublisher(streamId: streamId)
        ingress.origin.closeEgress(streamId: streamId, node: ingress.node)
    }

    private func connectIngress(streamId: String, node: String, origin: any CascadeOrigin, linger: UInt64,
                                timeout: UInt64, consent: ICEConsentKeeper.Timing) throws(MediaError) {
        let context = try cascadeContext()
        let local = ICECredentials.generate()
        let socket: UDPSocket
        do {
            socket = try UDPSocket(bindingTo: bindAddress, receiveBufferBytes: 4 << 20, sendBufferBytes: 4 << 20)
        } catch {
            throw MediaError(.networkFailure, "cannot bind a cascade ingress socket on \(host): \(error)")
        }
        var handedOver = false
        defer { if !handedOver { socket.close() } }
        let ours = WireTransport(iceUfrag: local.ufrag, icePassword: local.password, fingerprint: context.certificate.fingerprint.sdpValue)
        let leg = try origin.openEgress(streamId: streamId, node: node, transport: ours)
        let peer: ICEPeer
        do { peer = try Self.cascadePeer(leg) } catch {
            origin.closeEgress(streamId: streamId, node: node)
            throw error
        }
        let keys: SRTPLegKeys
        do {
            keys = try ICEClientConnector(socket: socket, peer: peer, local: local, context: context).connect(timeout: timeout)
        } catch {
            origin.closeEgress(streamId: streamId, node: node)
            throw error
        }
        let link = CascadeIngressLink(peer: peer, local: local, timing: consent, counters: cascadeCounters, queue: cascadeQueue)
        let ingress = CascadeIngress(streamId: streamId, node: node, origin: origin, link: link)
        // Set before the leg runs, so a BYE or lost consent at once is not missed; it reports
        // on the cascade queue, after this set-up (which holds no lock it needs) returns.
        link.onEnded { [weak self] reason in
            guard let self, self.registry.withLock({ $0.cascadeIngresses[streamId] === ingress }) else { return }
            self.removePublisher(streamId: streamId)
            self.tellLegEnded(.publisher(streamId: streamId, reason: reason))
        }
        // Registered first, so the group's removal (whatever ends it) finds and ends the record.
        registry.withLock { registry in
            registry.cascadeIngresses[streamId] = ingress
            cascadeCounters.ingressLegs.store(registry.cascadeIngresses.count, ordering: .relaxed)
        }
        do {
            handedOver = true  // the leg owns the socket from here, and closes it when it fails
            _ = try addPublisherLeg(streamId: streamId, audio: leg.audioSSRC != nil, video: leg.videoSSRC != nil, simulcastLayers: 1,
                                    transport: nil, browserSSRCs: (leg.audioSSRC, leg.videoSSRC),
                                    cascade: .cascade(link, socket: socket, keys: keys, origin: peer.address))
        } catch {
            registry.withLock { registry in
                if registry.cascadeIngresses[streamId] === ingress { registry.cascadeIngresses[streamId] = nil }
                cascadeCounters.ingressLegs.store(registry.cascadeIngresses.count, ordering: .relaxed)
            }
            origin.closeEgress(streamId: streamId, node: node)
            throw error
        }
        cascadeCounters.ingressOpened.add(1, ordering: .relaxed)
        ingress.startLinger(every: linger, on: cascadeQueue, idle: { [weak self] in
            guard let self else { return false }
            return self.registry.withLock { $0.groups[streamId]?.subscriberIds.isEmpty ?? false }
        }, close: { [weak self] in
            guard let self, self.registry.withLock({ $0.cascadeIngresses[streamId] === ingress }) else { return }
            self.closeCascadeIngress(streamId: streamId)
        })
    }

    /// Hands a local subscriber's preferences on to the origin as the aggregate of the
    /// stream's subscribers here, when the stream is cascaded and the aggregate changed
    /// (asynchronously, on the cascade queue). Cost: a registry lookup, a pass over the
    /// stream's subscribers.
    func cascadePreferencesChanged(subscriberId: String, width: Int?, height: Int?, frameRate: Double?) {
        guard let (ingress, current) = registry.withLock({ registry -> (CascadeIngress, [String])? in
            guard let streamId = registry.subscriberStreams[subscriberId], let ingress = registry.cascadeIngresses[streamId],
                  let group = registry.groups[streamId] else { return nil }
            return (ingress, group.subscriberIds)
        }), let wanted = ingress.aggregate(subscriberId: subscriberId, width: width, height: height, frameRate: frameRate,
                                           current: current) else { return }
        cascadeQueue.async {
            ingress.origin.setPreferences(streamId: ingress.streamId, node: ingress.node, width: wanted.width, height: wanted.height,
                                          frameRate: wanted.frameRate)
        }
    }

    /// The origin's leg as the ICE client needs it; `networkFailure` naming a bad field.
    static func cascadePeer(_ leg: WireMediaLeg) throws(MediaError) -> ICEPeer {
        guard let transport = leg.transport else { throw MediaError(.networkFailure, "the origin's cascade leg has no transport") }
        guard (1...65_535).contains(leg.port),
              let address = SocketAddress(ipv4: leg.host, port: UInt16(leg.port)) ?? SocketAddress(ipv6: leg.host, port: UInt16(leg.port))
        else { throw MediaError(.networkFailure, "the origin's cascade leg address is not an IP literal and port") }
        let credentials: ICECredentials
        do { credentials = try ICECredentials(ufrag: transport.iceUfrag, password: transport.icePassword) } catch {
            throw MediaError(.networkFailure, "the origin's ICE ufrag or password is not 4/22-256 ICE characters")
        }
        guard let sdp = try? SDPFingerprint(sdpValue: Substring(transport.fingerprint)), sdp.algorithm == DTLSFingerprint.sha256,
              let fingerprint = DTLSFingerprint(sha256: sdp.bytes) else {
            throw MediaError(.networkFailure, "the origin's certificate fingerprint is not \"sha-256\" and 32 hex pairs")
        }
        return ICEPeer(address: address, credentials: credentials, fingerprint: fingerprint)
    }

    /// This router's DTLS identity as a cascade client: one P-256 certificate, made once.
    private func cascadeContext() throws(MediaError) -> DTLSContext {
        try cascadeIdentity.withLock { identity throws(MediaError) -> DTLSContext in
            if let identity { return identity }
            do {
                let made = try DTLSContext(certificate: DTLSCertificate(commonName: "OTKit router cascade"))
                identity = made
                return made
            } catch {
                throw MediaError(.networkFailure, "cannot make the cascade DTLS certificate: \(error)")
            }
        }
    }
}
