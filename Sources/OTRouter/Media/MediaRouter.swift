import OTMedia
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
/// Calls may come from any thread; each takes a registry lock briefly and never holds it
/// while a thread is stopped or started. Cost: `addPublisher` binds a socket, creates two
/// SRTP sessions and starts the stream's forwarding thread; `addSubscriber` binds a
/// socket, creates two SRTP sessions and hands the leg to the running thread (no restart);
/// `removeSubscriber` hands it back, and the thread closes it at its next wake-up. A
/// subscriber leg keeps up to 600 buffers of 2 KiB (its NACK history), freed when it closes.
public final class MediaRouter: MediaForwarding {
    /// The IP the legs bind to and clients send to.
    public let host: String
    /// The SRTP profile of every leg.
    public let profile: SRTPProfile

    private struct Registry {
        var groups: [String: ForwardingGroup] = [:]
        var subscriberStreams: [String: String] = [:]
        var retired = ForwardingCounters()
        var ssrcs = SSRCAllocator()
        var qualityHandler: SubscriberQualityHandler?
    }

    private let bindAddress: SocketAddress
    private let registry = Mutex(Registry())
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
    /// moves to `log`. Throws `invalidArgument` for anything else. Cost: none until legs
    /// are added.
    public init(host: String = "127.0.0.1", profile: SRTPProfile = .default, log: RouterLog? = nil) throws(MediaError) {
        guard let address = SocketAddress(ipv4: host, port: 0) ?? SocketAddress(ipv6: host, port: 0) else {
            throw MediaError(.invalidArgument, "the media host must be an IP address literal, got '\(host)'")
        }
        self.host = host
        self.profile = profile
        self.log = log
        bindAddress = address
    }

    deinit {
        for group in registry.withLock({ Array($0.groups.values) }) { group.stop() }
    }

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
        guard (1...3).contains(simulcastLayers) else {
            throw MediaError(.invalidArgument, "\(simulcastLayers) simulcast layers is not supported; use 1, 2 or 3")
        }
        guard audio || video else { throw MediaError(.invalidArgument, "stream \(streamId) publishes neither audio nor video") }
        var ssrcs = try registry.withLock { registry throws(MediaError) -> SSRCAllocator in
            guard registry.groups[streamId] == nil else { throw MediaError(.invalidArgument, "stream \(streamId) is already published") }
            return registry.ssrcs
        }
        let leg = try PublisherLeg(streamId: streamId, bindingTo: bindAddress, host: host, profile: profile,
                                   audio: audio, video: video, simulcastLayers: simulcastLayers, ssrcs: &ssrcs, log: log)
        sockets.opened()
        let group: ForwardingGroup
        do { group = try ForwardingGroup(publisher: leg, sockets: sockets, reaper: reaper) } catch {
            leg.socket.close()
            sockets.closed()
            throw error
        }
        let clash = registry.withLock { registry -> Bool in
            if registry.groups[streamId] != nil { return true }
            registry.groups[streamId] = group
            registry.ssrcs = ssrcs
            group.setQualityHandler(registry.qualityHandler)
            return false
        }
        if clash {
            group.stop()
            throw MediaError(.invalidArgument, "stream \(streamId) is already published")
        }
        return leg.wire
    }

    /// Closes the publisher leg and every subscriber leg of `streamId`, joining its thread.
    public func removePublisher(streamId: String) {
        guard let group = registry.withLock({ registry -> ForwardingGroup? in
            guard let group = registry.groups.removeValue(forKey: streamId) else { return nil }
            for id in group.subscriberIds { registry.subscriberStreams[id] = nil }
            return group
        }) else { return }
        group.stop()
        let final = group.snapshot()
        registry.withLock { $0.retired = $0.retired + final }
    }

    /// Opens a subscriber leg of `streamId` for one client. Throws `invalidArgument` for an
    /// unknown stream or a subscriber id already in use, `networkFailure` if a socket or
    /// thread cannot be had.
    public func addSubscriber(subscriberId: String, streamId: String, audio: Bool, video: Bool) throws(MediaError) -> WireMediaLeg {
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
        do throws(MediaError) {
            let leg = try SubscriberLeg(subscriberId: subscriberId, bindingTo: bindAddress, host: host, profile: profile,
                                        audio: audio, video: video, carriesAudio: group.publisher.audioSSRC != nil,
                                        carriesVideo: group.publisher.videoSSRC != nil, ssrcs: &ssrcs, log: log)
            sockets.opened()
            do { try group.add(leg) } catch {
                leg.socket.close()
                sockets.closed()
                throw error
            }
            registry.withLock { $0.ssrcs.merge(ssrcs) }
            return leg.wire
        } catch {
            registry.withLock { _ = $0.subscriberStreams.removeValue(forKey: subscriberId) }
            throw error
        }
    }

    /// Closes a subscriber leg: the stream's thread drops it and closes its socket at its
    /// next wake-up (no restart). Cost: a registry lookup, a short lock, one eventfd write.
    public func removeSubscriber(subscriberId: String) {
        guard let group = registry.withLock({ registry -> ForwardingGroup? in
            guard let streamId = registry.subscriberStreams.removeValue(forKey: subscriberId) else { return nil }
            return registry.groups[streamId]
        }) else { return }
        group.remove(subscriberId: subscriberId)
    }

    /// Starts or stops forwarding audio / video to one subscriber leg (subscribeToAudio /
    /// subscribeToVideo). Video stops and starts at frame boundaries; turning it on asks
    /// the publisher for a keyframe. The leg's sequence numbers stay continuous across
    /// the pause. Unknown ids are ignored. Cost: a registry lookup and two atomic stores.
    public func setForwarding(subscriberId: String, audio: Bool, video: Bool) {
        guard let group = registry.withLock({ registry -> ForwardingGroup? in
            guard let streamId = registry.subscriberStreams[subscriberId] else { return nil }
            return registry.groups[streamId]
        }) else { return }
        group.setForwarding(subscriberId: subscriberId, audio: audio, video: video)
    }

    /// Hands one subscriber's preferences to its leg's layer selection (width/height:
    /// the largest encoding forwarded; frame rate: temporal layers above it are dropped).
    /// Unknown ids are ignored. Cost: a registry lookup and four atomic stores.
    public func setPreferences(subscriberId: String, width: Int?, height: Int?, frameRate: Double?) {
        group(of: subscriberId)?.setPreferences(subscriberId: subscriberId, width: width, height: height, frameRate: frameRate)
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
        return groups.reduce(retired) { $0 + $1.snapshot() }
    }

    /// The counters of one published stream, nil if it is not published.
    public func counters(streamId: String) -> ForwardingCounters? {
        registry.withLock { $0.groups[streamId] }?.snapshot()
    }
}
