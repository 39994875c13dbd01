import Dispatch
import OTMedia
import OTRecording
import OTSignaling
import Synchronization

/// The router's SFU: forwards each published stream from its publisher leg to its
/// subscriber legs, re-keyed per leg, as `MediaForwarding` describes.
///
/// - Every leg is one UDP socket bound to `host`, port 0 (the kernel picks), with fresh
///   random SRTP keys per direction (`clientKey` protects what the client sends,
///   `routerKey` what the router sends). Publisher legs carry the SSRCs the client must
///   use; subscriber legs the SSRCs the router sends with.
/// - A leg's client address is learned from the first datagram that authenticates, and
///   moves to a new source (a reconnection's or NAT rebinding's new path) only after that
///   source's probation, at most once per 5 s (`LegAddressGuard`). Nothing is sent on a
///   leg before then; junk and forged datagrams change nothing and are counted in
///   `badPackets`.
/// - Forwarding, retransmission from the router's own history, keyframe requests, sender
///   report rewriting and receiver reports: see `ForwardingHandler`. Threads: one per
///   published stream, see `ForwardingGroup`.
///
/// - With an edge (`MediaEdge`, one UDP port, see `init`), a publish or subscribe that
///   carries the client's `transport` gets an EDGE leg instead: no socket of its own, no
///   key in signaling (`clientKey`/`routerKey` nil), the router's ICE credentials and
///   certificate fingerprint in the leg's `transport`, host = `publicIP`, port = the
///   edge's. The client runs ICE checks and a DTLS client handshake against that port;
///   the edge's workers hand the unprotected packets to the stream's forwarding thread
///   (`ForwardingInbox`), which forwards them as it does a socket leg's, protects with the
///   leg's DTLS-exported sender session and sends from the edge's port. A request without
///   `transport` keeps its SDES socket leg (older clients; SDES goes once every client
///   is on the edge). An edge leg whose handshake fails is removed as if it had left
///   (`edgeLegsEnded`). One whose ICE consent lapses (a client cut off for 30 s) is NOT:
///   nothing is sent to it (`edgeSendsWithheld`) until the client's next check, and it
///   stays until signaling removes its stream or subscriber (the client leaves, or its
///   connection is destroyed after the reconnection window), so memory stays bounded.
///
/// Calls may come from any thread; each takes a registry lock briefly and never holds it
/// while a thread is stopped or started. Cost: `addPublisher` binds a socket, creates two
/// SRTP sessions and starts the stream's forwarding thread; `addSubscriber` binds a
/// socket, creates two SRTP sessions and hands the leg to the running thread (no restart);
/// `removeSubscriber` hands it back, and the thread closes it at its next wake-up. A
/// subscriber leg holds ~250 KiB resident on the edge (`docs/benchmarks.md`, "Memory per
/// subscriber leg"): its NACK history (about 1 s of its video, `LegHistory`), 8+ send
/// buffers of 2 KiB, its DTLS and SRTP state and estimator rings; freed when it closes.
public final class MediaRouter: MediaForwarding {
    /// The IP the legs bind to and clients send to.
    public let host: String
    /// The SRTP profile of every leg.
    public let profile: SRTPProfile

    struct Registry {
        var groups: [String: ForwardingGroup] = [:]
        var subscriberStreams: [String: String] = [:]
        var retired = ForwardingCounters()
        var ssrcs = SSRCAllocator()
        var qualityHandler: SubscriberQualityHandler?
        /// Edge legs by "p:<stream id>" / "s:<subscriber id>".
        var edgeLegs: [String: EdgeLegID] = [:]
        /// Browser subscribers offered SDP and not answered yet (`MediaRouter+Browser`).
        var pendingOffers: [String: PendingBrowserOffer] = [:]
        /// Who hears of edge legs ended by the edge (signaling).
        var legEnded: MediaLegEndedHandler?
        /// Cascade egress legs (this router is the origin): subscriber id by stream and node.
        var cascadeEgresses: [CascadeEgressKey: String] = [:]
        /// Cascade ingresses (streams this router receives from their origin), by stream id.
        var cascadeIngresses: [String: CascadeIngress] = [:]
    }

    /// What this router's cascade legs did (`MediaRouter+CascadeEgress`, `+CascadeIngress`).
    public let cascadeCounters = CascadeCounters()
    /// Where cascade ingresses end (origin gone, linger over), off the forwarding threads.
    let cascadeQueue = DispatchQueue(label: "otk-sfu-cascade")
    /// One cascade ingress set up at a time (each blocks for its ICE + DTLS exchange).
    let cascadeSetup = Mutex(())
    /// This router's DTLS identity as a cascade client, made on first use.
    let cascadeIdentity = Mutex<DTLSContext?>(nil)

    /// The one-port edge edge legs live on (nil: every leg is an SDES socket leg).
    public let edge: MediaEdge?
    /// The host announced in edge legs (`publicIP`, else `host`).
    public let publicHost: String
    private let nextEdgeLeg = Atomic<UInt64>(1)
    private let edgeLegsEnded = Atomic<UInt64>(0)
    private let edgeWithheld = EdgeWithheldCounter()
    private let edgeTransportsRejected = Atomic<UInt64>(0)
    /// Ended edge legs are removed here, off the edge's worker threads.
    private let endings = DispatchQueue(label: "otk-sfu-edge-endings")

    let bindAddress: SocketAddress
    let registry = Mutex(Registry())
    /// Where legs log their address moves (nil: nowhere).
    private let log: RouterLog?
    private let sockets = SocketGauge()
    private let reaper = LegReaper()

    /// The leg sockets open now (one per publisher and per subscriber leg). One atomic load.
    public var openSockets: Int { sockets.value }
    /// Closed legs not freed yet (their SRTP sessions and buffers go on a background
    /// queue, then the freed pages go back to the kernel). One atomic load.
    public var legsAwaitingRelease: Int { reaper.legsWaiting }

    /// A router whose legs bind to `host` (an IPv4 or IPv6 literal) and log their address
    /// moves to `log`, with a one-port edge of one worker on a kernel-picked port of `host`
    /// (clients that send a `transport` get edge legs there; the others SDES socket legs).
    /// Throws `invalidArgument` for a host that is not an IP literal, `networkFailure` when
    /// the edge cannot start. Cost: one edge worker thread and socket, a P-256 certificate.
    public convenience init(host: String = "127.0.0.1", profile: SRTPProfile = .default, log: RouterLog? = nil) throws(MediaError) {
        try self.init(host: host, profile: profile, log: log, edge: MediaEdgeConfiguration(workerCount: 1))
    }

    /// As above, plus the one-port edge: `edge` nil opens none; otherwise its workers bind
    /// `host`:`edge.address.port` (0: the kernel picks; `otkit router` uses 7882) and edge
    /// legs announce `publicIP` (nil: `host`; set it behind NAT). Throws `invalidArgument`
    /// for a host or public IP that is not an IP literal, `networkFailure` when the edge
    /// cannot start. Cost: the edge's worker threads and sockets, a P-256 certificate.
    public init(host: String, profile: SRTPProfile = .default, log: RouterLog? = nil, edge configuration: MediaEdgeConfiguration?,
                publicIP: String? = nil) throws(MediaError) {
        guard let address = SocketAddress(ipv4: host, port: 0) ?? SocketAddress(ipv6: host, port: 0) else {
            throw MediaError(.invalidArgument, "the media host must be an IP address literal, got '\(host)'")
        }
        if let publicIP, SocketAddress(ipv4: publicIP, port: 0) == nil, SocketAddress(ipv6: publicIP, port: 0) == nil {
            throw MediaError(.invalidArgument, "the public IP must be an IP address literal, got '\(publicIP.prefix(64))'")
        }
        self.host = host
        self.profile = profile
        self.log = log
        bindAddress = address
        publicHost = publicIP ?? host
        if var configuration {
            let port = configuration.address.port
            configuration.address = SocketAddress(ipv4: host, port: port) ?? SocketAddress(ipv6: host, port: port) ?? address
            do {
                // Every edge leg has a sink: nothing reaches the edge-wide receive handler.
                edge = try MediaEdge(configuration: configuration, receive: { _, _, _ in })
            } catch {
                throw MediaError(.networkFailure, "cannot open the media edge on \(host):\(port): \(error)")
            }
        } else {
            edge = nil
        }
    }

    deinit {
        for group in registry.withLock({ Array($0.groups.values) }) { group.stop() }
        edge?.stop()
    }

    /// The edge's UDP port (nil without an edge).
    public var mediaPort: Int? { edge.map { Int($0.localAddress.port) } }

    /// Opens the publisher leg of `streamId` and starts its forwarding thread. Throws
    /// `invalidArgument` if the stream already has one or publishes nothing,
    /// `networkFailure` if a socket or thread cannot be had.
    public func addPublisher(streamId: String, audio: Bool, video: Bool) throws(MediaError) -> WireMediaLeg {
        try addPublisher(streamId: streamId, audio: audio, video: video, simulcastLayers: 1)
    }

    /// Opens the publisher leg of `streamId` with `simulcastLayers` video encodings (1...3;
    /// each gets its own SSRC, see `MediaForwarding`). Throws `invalidArgument` for a count
    /// outside 1...3, otherwise as `addPublisher(streamId:audio:video:)`.
    public func addPublisher(streamId: String, audio: Bool, video: Bool, simulcastLayers: Int) throws(MediaError) -> WireMediaLeg {
        try addPublisher(streamId: streamId, audio: audio, video: video, simulcastLayers: simulcastLayers, transport: nil)
    }

    /// As `addPublisher(streamId:audio:video:simulcastLayers:)`; with the client's
    /// `transport` the leg is an edge leg (see the type's notes). Throws `invalidArgument`
    /// for a transport that breaks the ICE grammar or is not a sha-256 fingerprint of 32
    /// bytes, or when the router has no edge (counted in `edgeTransportsRejected`).
    public func addPublisher(streamId: String, audio: Bool, video: Bool, simulcastLayers: Int,
                             transport: WireTransport?) throws(MediaError) -> WireMediaLeg {
        try addPublisherLeg(streamId: streamId, audio: audio, video: video, simulcastLayers: simulcastLayers, transport: transport)
    }

    /// The publisher path behind the public `addPublisher`s; a browser's leg (`MediaRouter+Browser`)
    /// also brings the ICE credentials its answer announced, its own SSRCs and its ingress map.
    func addPublisherLeg(streamId: String, audio: Bool, video: Bool, simulcastLayers: Int, transport: WireTransport?,
                         local: ICECredentials? = nil, browserSSRCs: (audio: UInt32?, video: UInt32?)? = nil,
                         ingress: BrowserIngressMap? = nil, cascade: LegEndpoint? = nil) throws(MediaError) -> WireMediaLeg {
        guard (1...3).contains(simulcastLayers) else {
            throw MediaError(.invalidArgument, "\(simulcastLayers) simulcast layers is not supported; use 1, 2 or 3")
        }
        guard audio || video else { throw MediaError(.invalidArgument, "stream \(streamId) publishes neither audio nor video") }
        var ssrcs = try registry.withLock { registry throws(MediaError) -> SSRCAllocator in
            guard registry.groups[streamId] == nil else { throw MediaError(.invalidArgument, "stream \(streamId) is already published") }
            return registry.ssrcs
        }
        let inbox = edge == nil ? ForwardingInbox(capacity: 0) : ForwardingInbox()
        var link: EdgeLink?
        let endpoint: LegEndpoint
        if let cascade {
            endpoint = cascade
        } else if let transport {
            let (edgeEndpoint, edgeLink) = try openEdgeLeg(transport, tag: 0, inbox: inbox, local: local) { [weak self] ending in
                self?.edgeLegEnded(publisher: streamId, ending)
            }
            endpoint = edgeEndpoint
            link = edgeLink
        } else {
            endpoint = .socket(bind: bindAddress)
        }
        let leg: PublisherLeg
        do {
            leg = try PublisherLeg(streamId: streamId, endpoint: endpoint, host: transport == nil ? host : publicHost,
                                   profile: profile, audio: audio, video: video, simulcastLayers: simulcastLayers,
                                   ssrcs: &ssrcs, log: log, browserSSRCs: browserSSRCs, ingress: ingress)
        } catch {
            if let link { edge?.remove(link.id) }
            throw error
        }
        if leg.ownsSocket { sockets.opened() }
        let group: ForwardingGroup
        do { group = try ForwardingGroup(publisher: leg, sockets: sockets, reaper: reaper, inbox: inbox) } catch {
            leg.closeOwnSocket(sockets)
            if let link { edge?.remove(link.id) }
            throw error
        }
        let clash = registry.withLock { registry -> Bool in
            if registry.groups[streamId] != nil { return true }
            registry.groups[streamId] = group
            registry.ssrcs = ssrcs
            if let link { registry.edgeLegs["p:" + streamId] = link.id }
            group.setQualityHandler(registry.qualityHandler)
            return false
        }
        if clash {
            group.stop()
            if let link { edge?.remove(link.id) }
            throw MediaError(.invalidArgument, "stream \(streamId) is already published")
        }
        return leg.wire
    }

    /// Closes the publisher leg and every subscriber leg of `streamId`, joining its thread.
    public func removePublisher(streamId: String) {
        guard let (group, edgeIDs) = registry.withLock({ registry -> (ForwardingGroup, [EdgeLegID])? in
            // Browser offers for the stream go with it, answered or not.
            registry.pendingOffers = registry.pendingOffers.filter { $0.value.streamId != streamId }
            guard let group = registry.groups.removeValue(forKey: streamId) else { return nil }
            cascadeStreamEnded(streamId, &registry)
            var edgeIDs: [EdgeLegID] = []
            if let id = registry.edgeLegs.removeValue(forKey: "p:" + streamId) { edgeIDs.append(id) }
            for id in group.subscriberIds {
                registry.subscriberStreams[id] = nil
                if let edgeID = registry.edgeLegs.removeValue(forKey: "s:" + id) { edgeIDs.append(edgeID) }
            }
            return (group, edgeIDs)
        }) else { return }
        for id in edgeIDs { edge?.remove(id) }
        group.stop()
        let final = group.snapshot()
        registry.withLock { $0.retired = $0.retired + final }
    }

    /// Hands `recorder` to `streamId`'s forwarding thread (`RecorderSlot`). False if the
    /// stream is not forwarded here. Cost: the registry lock and the slot's lock.
    public func setRecorder(streamId: String, _ recorder: (any RecordingSink)?) -> Bool {
        guard let group = registry.withLock({ $0.groups[streamId] }) else { return false }
        group.recording.set(recorder)
        group.requestKeyframe(encoding: max(0, group.publisher.encodingSSRCs.count - 1))
        return true
    }

    /// Opens a subscriber leg of `streamId` for one client. Throws `invalidArgument` for an
    /// unknown stream or a subscriber id already in use, `networkFailure` if a socket or
    /// thread cannot be had.
    public func addSubscriber(subscriberId: String, streamId: String, audio: Bool, video: Bool) throws(MediaError) -> WireMediaLeg {
        try addSubscriber(subscriberId: subscriberId, streamId: streamId, audio: audio, video: video, transport: nil)
    }

    /// As `addSubscriber(subscriberId:streamId:audio:video:)`; with the client's
    /// `transport` the leg is an edge leg (errors as for `addPublisher`).
    public func addSubscriber(subscriberId: String, streamId: String, audio: Bool, video: Bool,
                              transport: WireTransport?) throws(MediaError) -> WireMediaLeg {
        try addSubscriberLeg(subscriberId: subscriberId, streamId: streamId, audio: audio, video: video, transport: transport)
    }

    /// The subscriber path behind the public `addSubscriber`s; a browser's leg also brings
    /// the ICE credentials and SSRCs its offer announced.
    func addSubscriberLeg(subscriberId: String, streamId: String, audio: Bool, video: Bool, transport: WireTransport?,
                          local: ICECredentials? = nil, fixedSSRCs: (audio: UInt32, video: UInt32)? = nil,
                          cascadeEgress: CascadeCounters? = nil)
        throws(MediaError) -> WireMediaLeg {
        var ssrcs = SSRCAllocator()
        let group = try registry.withLock { registry throws(MediaError) -> ForwardingGroup in
            guard registry.subscriberStreams[subscriberId] == nil else {
                throw MediaError(.invalidArgument, "subscriber \(subscriberId) already has a leg")
            }
            guard let group = registry.groups[streamId] else { throw MediaError(.invalidArgument, "no stream \(streamId) is published") }
            registry.subscriberStreams[subscriberId] = streamId  // reserved while the leg is built
            ssrcs = registry.ssrcs
            return group
        }
        var link: EdgeLink?
        do throws(MediaError) {
            let endpoint: LegEndpoint
            if let transport {
                let (edgeEndpoint, edgeLink) = try openEdgeLeg(transport, tag: group.inbox.makeTag(), inbox: group.inbox, local: local) {
                    [weak self] ending in self?.edgeLegEnded(subscriber: subscriberId, ending)
                }
                endpoint = edgeEndpoint
                link = edgeLink
            } else {
                endpoint = .socket(bind: bindAddress)
            }
            let leg = try SubscriberLeg(subscriberId: subscriberId, endpoint: endpoint, host: transport == nil ? host : publicHost,
                                        profile: profile, audio: audio, video: video,
                                        carriesAudio: group.publisher.audioSSRC != nil,
                                        carriesVideo: group.publisher.videoSSRC != nil, ssrcs: &ssrcs, log: log,
                                        fixedSSRCs: fixedSSRCs)
            if leg.ownsSocket { sockets.opened() }
            leg.cascadeEgress = cascadeEgress
            do { try group.add(leg) } catch {
                leg.closeOwnSocket(sockets)
                throw error
            }
            registry.withLock { registry in
                registry.ssrcs.merge(ssrcs)
                if let link { registry.edgeLegs["s:" + subscriberId] = link.id }
            }
            return leg.wire
        } catch {
            if let link { edge?.remove(link.id) }
            registry.withLock { _ = $0.subscriberStreams.removeValue(forKey: subscriberId) }
            throw error
        }
    }

    /// Closes a subscriber leg: the stream's thread drops it and closes its socket at its
    /// next wake-up (no restart). Cost: a registry lookup, a short lock, one eventfd write.
    public func removeSubscriber(subscriberId: String) {
        guard let (group, edgeID) = registry.withLock({ registry -> (ForwardingGroup?, EdgeLegID?)? in
            registry.pendingOffers[subscriberId] = nil  // a browser's unanswered offer goes too
            guard let streamId = registry.subscriberStreams.removeValue(forKey: subscriberId) else { return nil }
            cascadeEgressLeft(subscriberId: subscriberId, streamId: streamId, &registry)
            return (registry.groups[streamId], registry.edgeLegs.removeValue(forKey: "s:" + subscriberId))
        }) else { return }
        if let edgeID { edge?.remove(edgeID) }
        group?.remove(subscriberId: subscriberId)
    }

    /// Starts or stops forwarding audio / video to one subscriber leg (subscribeToAudio /
    /// subscribeToVideo). Video stops and starts at frame boundaries; turning it on asks
    /// the publisher for a keyframe. The leg's sequence numbers stay continuous across
    /// the pause. Unknown ids are ignored. Cost: a registry lookup and two atomic stores.
    public func setForwarding(subscriberId: String, audio: Bool, video: Bool) {
        guard let group = registry.withLock({ registry -> ForwardingGroup? in
            if registry.pendingOffers[subscriberId] != nil {  // a browser not answered yet: its leg starts so
                registry.pendingOffers[subscriberId]!.audio = audio
                registry.pendingOffers[subscriberId]!.video = video
            }
            guard let streamId = registry.subscriberStreams[subscriberId] else { return nil }
            return registry.groups[streamId]
        }) else { return }
        group.setForwarding(subscriberId: subscriberId, audio: audio, video: video)
    }

    /// Hands one subscriber's preferences to its leg's layer selection (width/height:
    /// the largest encoding forwarded; frame rate: temporal layers above it are dropped).
    /// Unknown ids are ignored. Cost: a registry lookup and four atomic stores.
    public func setPreferences(subscriberId: String, width: Int?, height: Int?, frameRate: Double?) {
        registry.withLock { registry in  // a browser not answered yet: applied when its leg opens
            if registry.pendingOffers[subscriberId] != nil { registry.pendingOffers[subscriberId]!.preferences = (width, height, frameRate) }
        }
        group(of: subscriberId)?.setPreferences(subscriberId: subscriberId, width: width, height: height, frameRate: frameRate)
        cascadePreferencesChanged(subscriberId: subscriberId, width: width, height: height, frameRate: frameRate)
    }

    /// Allows or forbids audio fallback for every subscriber of `streamId` (unknown ids are
    /// ignored). Cost: a registry lookup and one atomic store.
    public func setSubscriberAudioFallback(streamId: String, enabled: Bool) {
        registry.withLock { $0.groups[streamId] }?.audioFallbackAllowed.store(enabled, ordering: .relaxed)
    }

    /// Sets where audio-fallback events go, for every stream now and later.
    public func setSubscriberQualityHandler(_ handler: SubscriberQualityHandler?) {
        let groups = registry.withLock { registry in
            registry.qualityHandler = handler
            return Array(registry.groups.values)
        }
        for group in groups { group.setQualityHandler(handler) }
    }

    /// Where one subscriber leg's adaptation stands (estimate, layers, audio fallback),
    /// nil for an unknown id. Cost: a registry lookup and a few atomic loads.
    public func status(subscriberId: String) -> SubscriberLegStatus? {
        group(of: subscriberId)?.status(subscriberId: subscriberId)
    }

    private func group(of subscriberId: String) -> ForwardingGroup? {
        registry.withLock { registry -> ForwardingGroup? in
            guard let streamId = registry.subscriberStreams[subscriberId] else { return nil }
            return registry.groups[streamId]
        }
    }

    /// Starts or stops dropping every audio packet of `streamId` (counted in
    /// `mutedAudioDropped`). One atomic store.
    public func setAudioMuted(streamId: String, _ muted: Bool) {
        registry.withLock { $0.groups[streamId] }?.audioMuted.store(muted, ordering: .relaxed)
    }

    /// Totals over every stream, removed ones included. Cost: one pass over the streams.
    public var totals: ForwardingCounters {
        let (groups, retired) = registry.withLock { (Array($0.groups.values), $0.retired) }
        var totals = groups.reduce(retired) { $0 + $1.snapshot() }
        totals.edgeLegsEnded = edgeLegsEnded.load(ordering: .relaxed)
        totals.edgeSendsWithheld = edgeWithheld.count.load(ordering: .relaxed)
        totals.edgeTransportsRejected = edgeTransportsRejected.load(ordering: .relaxed)
        return totals
    }

    /// The counters of one published stream, nil if it is not published.
    public func counters(streamId: String) -> ForwardingCounters? {
        registry.withLock { $0.groups[streamId] }?.snapshot()
    }

    // MARK: - Edge legs

    /// Validates the client's `transport`, registers a leg for it on the edge (fresh ICE
    /// credentials, the client's fingerprint to check) with a link into `inbox`, and
    /// returns the endpoint the leg is built on; `ended` hears of the edge ending it (set
    /// before the leg is registered, so no ending is missed). Rejections are counted.
    private func openEdgeLeg(_ transport: WireTransport, tag: UInt32, inbox: ForwardingInbox, local chosen: ICECredentials? = nil,
                             ended: @escaping @Sendable (EdgeLegEnding) -> Void) throws(MediaError) -> (LegEndpoint, EdgeLink) {
        func reject(_ reason: String) -> MediaError {
            edgeTransportsRejected.add(1, ordering: .relaxed)
            return MediaError(.invalidArgument, "the media transport was refused: \(reason)")
        }
        guard let edge else { throw reject("this router has no media edge") }
        if let problem = transport.problem { throw reject(problem) }
        guard let bytes = transport.sha256Fingerprint, let fingerprint = DTLSFingerprint(sha256: bytes) else {
            throw reject("the fingerprint is not a sha-256 digest of 32 bytes")
        }
        let local = chosen ?? ICECredentials.generate()
        let description: EdgeLegDescription
        do {
            description = try EdgeLegDescription(local: local, remoteUfrag: transport.iceUfrag, remotePassword: transport.icePassword,
                                                 remoteFingerprint: fingerprint)
        } catch {
            throw reject("\(error)")
        }
        let link = EdgeLink(id: EdgeLegID(nextEdgeLeg.add(1, ordering: .relaxed).newValue), tag: tag, inbox: inbox,
                            withheld: edgeWithheld)
        link.onEnded(ended)
        do {
            try edge.register(link.id, description, sink: link)
        } catch {
            throw MediaError(.networkFailure, "the media edge refused the leg: \(error)")
        }
        let ours = WireTransport(iceUfrag: local.ufrag, icePassword: local.password, fingerprint: edge.fingerprint.sdpValue)
        return (.edge(link, sendSocket: edge.sendSocket, port: Int(edge.localAddress.port), transport: ours), link)
    }

    /// The edge ended a publisher leg's handshake: the stream goes as if its
    /// publisher had left. Off the worker thread (stopping a group joins its thread).
    private func edgeLegEnded(publisher streamId: String, _ ending: EdgeLegEnding) {
        edgeLegsEnded.add(1, ordering: .relaxed)
        log?.log(.info, "media.edge.legEnded", ["stream": streamId, "reason": ending.description])
        endings.async { [weak self] in
            self?.removePublisher(streamId: streamId)
            self?.tellLegEnded(.publisher(streamId: streamId, reason: ending.description))
        }
    }

    /// The edge ended a subscriber leg: it is removed as if the subscriber had left.
    private func edgeLegEnded(subscriber subscriberId: String, _ ending: EdgeLegEnding) {
        edgeLegsEnded.add(1, ordering: .relaxed)
        log?.log(.info, "media.edge.legEnded", ["subscriber": subscriberId, "reason": ending.description])
        endings.async { [weak self] in
            self?.removeSubscriber(subscriberId: subscriberId)
            self?.tellLegEnded(.subscriber(subscriberId: subscriberId, reason: ending.description))
        }
    }

    /// Sets who hears of edge legs the edge ended (after each is removed), on the
    /// endings queue. Cost: a short lock.
    public func setLegEndedHandler(_ handler: MediaLegEndedHandler?) { registry.withLock { $0.legEnded = handler } }

    func tellLegEnded(_ ended: MediaLegEnded) { registry.withLock { $0.legEnded }?(ended) }
}
