import Dispatch
import OTMedia
import OTSignaling
import Synchronization

/// How a router leg reaches its client.
enum LegEndpoint {
    /// Its own UDP socket bound to this address, with random SRTP keys handed to the
    /// client in the leg (SDES). Kept for clients that send no `transport` (older ones);
    /// it goes once every client is on the edge.
    case socket(bind: SocketAddress)
    /// The router's one-port edge: ICE-lite + DTLS there, keys from the handshake, no
    /// socket of its own (`sendSocket` is the edge's; `port` and `transport` go in the leg).
    case edge(EdgeLink, sendSocket: UDPSocket, port: Int, transport: WireTransport)
    /// A cascade ingress (`CascadeIngress`): a socket this router already connected to
    /// another router's edge as an ICE + DTLS client, the handshake's keys (`send`
    /// protects what this router sends upstream, `receive` checks what the origin sends)
    /// and the origin's address; the leg owns the socket from now on.
    case cascade(CascadeIngressLink, socket: UDPSocket, keys: SRTPLegKeys, origin: SocketAddress)
}

/// What every router leg has: its socket, its SRTP sessions (one per direction, fresh
/// random keys), its pool and the client's address once a datagram authenticated.
/// An edge leg (`edge` set) has no socket of its own: the edge unprotects what the client
/// sends, the sender session arrives from its DTLS handshake, its address from ICE, and it
/// sends from the edge's port.
///
/// Threads: built on the control thread, then used by exactly one forwarding thread at a
/// time (a group stops its thread before it starts the next one), so the mutable state
/// needs no lock; `@unchecked Sendable` for that hand-over. The reported figures at the
/// bottom are atomics that the control plane reads. For the same reason the mutable
/// fields (here and in the subclasses) opt out of Swift's dynamic exclusivity checks
/// (`@exclusivity(unchecked)`): they are touched per packet per leg, by one thread, and
/// a runtime check per access showed in the forwarding thread's profile.
class RouterLeg: @unchecked Sendable {
    /// The socket this leg's packets leave from: its own UDP port, or for an edge leg the
    /// edge's shared port (never polled nor closed by the leg's group).
    let socket: UDPSocket
    /// Set on a leg of the one-port edge.
    let edge: EdgeLink?
    /// Checks what the client sends (keys = the leg's `clientKey`); nil on an edge leg
    /// (the edge unprotects).
    let receiver: SRTPSession?
    /// Protects what the router sends (keys = the leg's `routerKey`, or on an edge leg the
    /// DTLS-exported keys, set by the forwarding thread once the handshake connected).
    @exclusivity(unchecked) var sender: SRTPSession?
    /// An edge leg's ICE-selected address (forwarding thread only).
    @exclusivity(unchecked) var edgeAddress: SocketAddress?
    /// Buffers for what this leg sends (and, for subscribers, its retransmission history).
    let pool: PacketBufferPool
    /// What the client is told about this leg.
    let wire: WireMediaLeg
    /// The client's address: learned from the first authenticated datagram, moved to a
    /// new source only after its probation (`LegAddressGuard`).
    /// An edge leg's: its ICE-selected address once its keys arrived, and nil while its
    /// ICE consent is lapsed (RFC 7675: send nothing; every caller about to send skips the
    /// leg, so each such read is counted as withheld).
    var address: SocketAddress? {
        guard let edge else { return addressGuard.address }
        guard sender != nil, let edgeAddress else { return nil }
        if edge.lapsed.load(ordering: .relaxed) {
            edge.withheld.count.add(1, ordering: .relaxed)
            return nil
        }
        return edgeAddress
    }
    /// Decides when the address moves (forwarding thread only).
    @exclusivity(unchecked) var addressGuard = LegAddressGuard()
    /// The sender SSRCs the client may use (forwarding thread only).
    @exclusivity(unchecked) var ssrcGate = LegSSRCGate()
    /// Where moves are logged (nil: not logged).
    let log: RouterLog?
    /// The router's SDES CNAME bytes, kept for the leg's lifetime.
    let cname: UnsafeRawBufferPointer
    /// Set on a cascade ingress' publisher leg: its consent keeper and its ending.
    let cascade: CascadeIngressLink?

    init(endpoint: LegEndpoint, host: String, profile: SRTPProfile, pool: PacketBufferPool,
         audioSSRC: UInt32?, videoSSRC: UInt32?, simulcastSSRCs: [UInt32]? = nil, log: RouterLog? = nil) throws(MediaError) {
        self.log = log
        let bytes = Array("otkit-router".utf8)
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        storage.copyBytes(from: bytes)
        cname = UnsafeRawBufferPointer(storage)
        self.pool = pool
        let bind: SocketAddress
        switch endpoint {
        case let .cascade(link, connected, keys, origin):
            socket = connected
            edge = nil
            cascade = link
            do {
                receiver = try SRTPSession(keys: keys.receive, direction: .receiver)
                sender = try SRTPSession(keys: keys.send, direction: .sender)
            } catch {
                connected.close()
                throw MediaError(.invalidArgument, "SRTP \(profile): \(error)")
            }
            wire = WireMediaLeg(host: host, port: Int(connected.localAddress.port), profile: profile.rfcName, clientKey: nil,
                                routerKey: nil, audioSSRC: audioSSRC, videoSSRC: videoSSRC, simulcastSSRCs: simulcastSSRCs)
            _ = addressGuard.observe(origin, now: 0)  // the origin's address is known: RTCP may go at once
            return
        case let .edge(link, sendSocket, port, transport):
            socket = sendSocket
            cascade = nil
            edge = link
            receiver = nil
            sender = nil
            var leg = WireMediaLeg(host: host, port: port, profile: profile.rfcName, clientKey: nil, routerKey: nil,
                                   audioSSRC: audioSSRC, videoSSRC: videoSSRC, simulcastSSRCs: simulcastSSRCs)
            leg.transport = transport
            wire = leg
            return
        case let .socket(address):
            bind = address
        }
        edge = nil
        cascade = nil
        let clientKeys = SRTPKeyMaterial.random(profile: profile)
        let routerKeys = SRTPKeyMaterial.random(profile: profile)
        do {
            socket = try UDPSocket(bindingTo: bind, receiveBufferBytes: 4 << 20, sendBufferBytes: 4 << 20)
        } catch {
            throw MediaError(.networkFailure, "cannot bind a media leg to \(bind): \(error)")
        }
        do {
            receiver = try SRTPSession(keys: clientKeys, direction: .receiver)
            sender = try SRTPSession(keys: routerKeys, direction: .sender)
        } catch {
            socket.close()
            throw MediaError(.invalidArgument, "SRTP \(profile): \(error)")
        }
        wire = WireMediaLeg(host: host, port: Int(socket.localAddress.port), profile: profile.rfcName,
                            clientKey: clientKeys.base64, routerKey: routerKeys.base64,
                            audioSSRC: audioSSRC, videoSSRC: videoSSRC, simulcastSSRCs: simulcastSSRCs)
    }

    /// Whether the leg has a UDP socket of its own (polled by its group, closed with it).
    var ownsSocket: Bool { edge == nil }

    /// Closes the leg's own socket once (an edge leg has none) and takes it off `gauge`.
    func closeOwnSocket(_ gauge: SocketGauge) {
        guard edge == nil, socket.fileDescriptor >= 0 else { return }
        socket.close()
        gauge.closed()
    }

    /// Takes the keys and address the edge parked for this leg (`EdgeLink`); true when
    /// the leg became able to send (keys and address both known) or moved. Forwarding thread.
    func takeEdgeChanges() -> Bool {
        guard let edge, let changes = edge.takeChanges() else { return false }
        let before = sender == nil ? nil : edgeAddress
        if let session = changes.sender { sender = session }
        if let moved = changes.address { edgeAddress = moved }
        let after = sender == nil ? nil : edgeAddress
        return after != nil && (after != before || changes.restored)
    }

    deinit { UnsafeMutableRawPointer(mutating: cname.baseAddress)?.deallocate() }

    /// Unprotects a datagram of `length` bytes in place if its sender SSRC passes the
    /// leg's `LegSSRCGate` (admitting a new SSRC once it authenticated); the plain length,
    /// or nil when refused by the gate (counted in `counters`) or by SRTP. Forwarding thread only.
    @inline(__always)
    func unprotect(_ bytes: UnsafeMutableRawBufferPointer, length: Int, isRTCP: Bool, counters: GroupCounters) -> Int? {
        let datagram = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[0..<min(length, bytes.count)])
        guard let ssrc = SenderSSRC.read(datagram, isRTCP: isRTCP) else { return nil }
        let verdict = ssrcGate.check(ssrc)
        if verdict == .refused {
            GroupCounters.bump(counters.unknownSSRCRefused)
            return nil
        }
        guard let receiver else { return nil }
        let plain = isRTCP ? try? receiver.unprotectRTCP(bytes, length: length) : try? receiver.unprotect(bytes, length: length)
        if plain != nil, verdict == .trial { ssrcGate.admit(ssrc) }
        return plain
    }

    /// Notes the source of an authenticated datagram (see `LegAddressGuard`); true when
    /// the leg now sends to a new address (its first, or a move). Moves and datagrams held
    /// in probation are counted in `counters`; a move is logged off this thread (one
    /// allocation, at most one per 5 s per leg). O(1) otherwise.
    @inline(__always)
    func learn(_ source: SocketAddress?, now: UInt64, counters: GroupCounters) -> Bool {
        switch addressGuard.observe(source, now: now) {
        case .unchanged: return false
        case .learned: return true
        case .held:
            GroupCounters.bump(counters.addressDatagramsHeld)
            return false
        case .moved(let from):
            GroupCounters.bump(counters.addressMoves)
            if let log, let to = address { Self.logMove(log, leg: legName, from: from, to: to) }
            return true
        }
    }

    /// How the log names this leg (stream or subscriber id).
    var legName: String { "" }

    private static func logMove(_ log: RouterLog, leg: String, from: SocketAddress, to: SocketAddress) {
        let fields = ["leg": leg, "from": from.description, "to": to.description]
        DispatchQueue.global(qos: .utility).async { log.log(.info, "media.leg.moved", fields) }
    }
}

/// The leg a publisher sends its stream on (audio and video multiplexed, SSRCs chosen by
/// the router), and the router's RTCP (receiver reports, PLI) goes back on.
final class PublisherLeg: RouterLeg, @unchecked Sendable {
    let streamId: String
    /// The SSRCs the client must use (nil: that kind is not published). `videoSSRC` is
    /// the full-size encoding.
    let audioSSRC: UInt32?
    let videoSSRC: UInt32?
    /// Every video encoding's SSRC by spatial index, smallest first (the last is
    /// `videoSSRC`); empty without video.
    let encodingSSRCs: [UInt32]
    /// Per encoding (forwarding thread only): whether its last packet ended a frame, and
    /// the size its last keyframe gave (0 until one arrived).
    @exclusivity(unchecked) var encodingFrameEnded: [Bool]
    @exclusivity(unchecked) var encodingWidth: [Int]
    @exclusivity(unchecked) var encodingHeight: [Int]
    /// Per encoding: the holes in its sequence numbers, NACKed to the publisher.
    @exclusivity(unchecked) var gaps: [UpstreamGaps]
    /// Transport-wide arrivals for the feedback to the publisher.
    @exclusivity(unchecked) var arrivals = TransportFeedbackRecorder(configuration: .reordering)
    /// The router's own SSRC as a receiver (its RRs and PLIs).
    let routerSSRC: UInt32
    @exclusivity(unchecked) var audioStatistics = ReceiveStreamStatistics(clockRate: 48_000)
    /// Per video encoding (spatial index): what the router's receiver reports say of it.
    /// Each layer a simulcast publisher sends gets its own report block (RFC 3550 6.4.2):
    /// a browser shows remote-inbound-rtp and measures its round trip per SSRC it sends,
    /// and stops repeating mid/rid on a layer only once a report names it.
    @exclusivity(unchecked) var encodingStatistics: [ReceiveStreamStatistics]
    @exclusivity(unchecked) var audioSeen = false
    @exclusivity(unchecked) var videoSeen = false
    /// The latest sender report of each video encoding and of the audio: NTP middle 32
    /// bits and arrival (monotonic ns), for the LSR/DLSR of our receiver reports (RFC 3550
    /// 6.4.1), from which the publisher computes its round trip.
    @exclusivity(unchecked) var encodingReportNotes: [(middle32: UInt32, receivedAt: UInt64)]
    @exclusivity(unchecked) var audioReportNote: (middle32: UInt32, receivedAt: UInt64) = (0, 0)
    /// Whether the last video packet received ended a frame (RTP marker): the next one
    /// starts a picture, where a subscriber's video may be switched on or off.
    @exclusivity(unchecked) var videoFrameEnded = true
    /// When the router last sent a PLI to this publisher (monotonic ns; 0 = never).
    @exclusivity(unchecked) var lastKeyframeRequest: UInt64 = 0

    /// A publisher leg on its own socket bound to `bind` (SDES keys).
    convenience init(streamId: String, bindingTo bind: SocketAddress, host: String, profile: SRTPProfile,
                     audio: Bool, video: Bool, simulcastLayers: Int = 1, ssrcs: inout SSRCAllocator,
                     log: RouterLog? = nil) throws(MediaError) {
        try self.init(streamId: streamId, endpoint: .socket(bind: bind), host: host, profile: profile, audio: audio, video: video,
                      simulcastLayers: simulcastLayers, ssrcs: &ssrcs, log: log)
    }

    /// A browser publisher's numbering, rewritten to the router's on arrival (edge legs
    /// negotiated by SDP; nil for native clients, which use the router's numbering).
    @exclusivity(unchecked) var ingress: BrowserIngressMap?

    /// `browserSSRCs`: the SSRCs a browser's offer announced (it chooses its own), used
    /// instead of fresh ones (one video encoding); `ingress`: its PT / extension map.
    init(streamId: String, endpoint: LegEndpoint, host: String, profile: SRTPProfile,
         audio: Bool, video: Bool, simulcastLayers: Int = 1, ssrcs: inout SSRCAllocator, log: RouterLog? = nil,
         browserSSRCs: (audio: UInt32?, video: UInt32?)? = nil, ingress: BrowserIngressMap? = nil) throws(MediaError) {
        self.streamId = streamId
        self.ingress = ingress
        audioSSRC = audio ? browserSSRCs?.audio ?? ssrcs.next() : nil
        let layers = video ? (browserSSRCs?.video != nil ? 1 : min(max(simulcastLayers, 1), 3)) : 0
        var encodings: [UInt32] = []
        for _ in 0..<layers { encodings.append(browserSSRCs?.video ?? ssrcs.next()) }
        encodingSSRCs = encodings
        videoSSRC = encodings.last
        encodingFrameEnded = [Bool](repeating: true, count: layers)
        gaps = [UpstreamGaps](repeating: UpstreamGaps(), count: layers)
        encodingWidth = [Int](repeating: 0, count: layers)
        encodingHeight = [Int](repeating: 0, count: layers)
        encodingStatistics = [ReceiveStreamStatistics](repeating: ReceiveStreamStatistics(clockRate: 90_000), count: layers)
        encodingReportNotes = [(middle32: UInt32, receivedAt: UInt64)](repeating: (0, 0), count: layers)
        routerSSRC = ssrcs.next()
        let pool = PacketBufferPool(initialCount: 48, maximumCount: 64, bufferSize: 2048, headroom: 0)
        // The wire lists the smaller encodings largest first.
        let smaller = layers > 1 ? Array(encodings.dropLast().reversed()) : nil
        try super.init(endpoint: endpoint, host: host, profile: profile, pool: pool, audioSSRC: audioSSRC, videoSSRC: videoSSRC,
                       simulcastSSRCs: smaller, log: log)
        self.ingress?.adopt(layerSSRCs: encodings)
    }

    /// The SSRC the publisher itself sends `ssrc` under: a browser's learned simulcast SSRC
    /// for the router's, else `ssrc`; what RTCP to the publisher names. O(1) for native.
    @inline(__always)
    func sourceSSRC(_ ssrc: UInt32) -> UInt32 { ingress?.browserSSRC(for: ssrc) ?? ssrc }

    /// "publisher <stream id>", for the log.
    override var legName: String { "publisher \(streamId)" }

    /// The spatial index of a video SSRC, or nil. O(encodings ≤ 3).
    @inline(__always)
    func encoding(of ssrc: UInt32) -> Int? {
        for index in encodingSSRCs.indices where encodingSSRCs[index] == ssrc { return index }
        return nil
    }
}

/// The leg the router forwards one stream to one client on; the client's RTCP (receiver
/// reports, NACK, PLI/FIR) comes back on it.
final class SubscriberLeg: RouterLeg, @unchecked Sendable {
    /// Packets of video kept per leg for NACKs (about 1 s of a 1–4 Mbps stream).
    static let historyCapacity = 512
    /// How old a kept packet may be and still be resent.
    static let historyAgeNanoseconds: UInt64 = 1_000_000_000
    /// Address space reserved for the kept packets' bytes (1 s of a 16 Mbit/s stream);
    /// resident is what the leg's last second of video needs (`LegHistory`).
    static let historyArenaBytes = 2 << 20
    /// Send buffers a leg starts with: what it queues between two fan-out sends
    /// (`ForwardingHandler.legQueueTarget`); it grows only for bursts of resends.
    static let poolInitialCount = 8

    let subscriberId: String
    /// Whether the client wants audio / video forwarded now (subscribeToAudio/Video):
    /// written by the control plane (`MediaRouter.setForwarding`), read per packet by the
    /// forwarding thread (relaxed loads, no lock).
    let takesAudio: Atomic<Bool>
    let takesVideo: Atomic<Bool>
    /// Whether the leg carries video at all (its SSRC was given to the client).
    let hasVideo: Bool
    /// The SSRCs the router sends this client with.
    let audioSSRC: UInt32
    let videoSSRC: UInt32
    /// Forwarded audio sequence = publisher sequence - skipped + offset; set by the first
    /// packet forwarded, so every leg starts at a random sequence number. (Video: `route`.)
    @exclusivity(unchecked) var audioOffset: UInt16?
    /// Audio packets not forwarded to this leg (the client turned audio off, or a
    /// moderator force-muted the stream), modulo 2^16: the leg's sequence numbers are
    /// shifted down by it so the pause does not look like loss.
    @exclusivity(unchecked) var audioSkipped: UInt16 = 0
    let audioStart = UInt16.random(in: 0 ... .max)
    /// Packets protected and waiting for the next `sendmmsg`.
    @exclusivity(unchecked) var outgoing: [PacketBuffer] = []
    /// Retransmissions waiting for the next `sendmmsg` (copies out of `history`, in pool
    /// buffers that go back once sent).
    @exclusivity(unchecked) var resend: [PacketBuffer] = []
    /// Sent video packets (SRTP-protected, as sent), for the client's NACKs.
    let history: LegHistory
    /// Which NACKed packets may be resent now: once per round trip, within the leg's
    /// budget (forwarding thread only).
    @exclusivity(unchecked) var resendGuard = LegResendGuard(slots: SubscriberLeg.historyCapacity)
    /// The last sender report forwarded to this leg per kind: its NTP middle 32 bits and
    /// when it went (monotonic ns), to measure the leg's round trip from the LSR/DLSR of
    /// the client's receiver reports (RFC 3550 6.4.1).
    @exclusivity(unchecked) var videoReportSent: (middle32: UInt32, sentAt: UInt64) = (0, 0)
    @exclusivity(unchecked) var audioReportSent: (middle32: UInt32, sentAt: UInt64) = (0, 0)
    /// Latest receiver-report figures for this leg, read by the control plane.
    let reportedLost = Atomic<Int64>(0)
    let reportedJitterMicroseconds = Atomic<UInt64>(0)
    /// Congestion control, layers and audio fallback (forwarding thread only).
    @exclusivity(unchecked) var adaptation = LegAdaptation()
    /// Which encoding and temporal layers reach the client (forwarding thread only).
    @exclusivity(unchecked) var route: LegVideoRoute
    /// The subscriber's preferences (control plane writes, then bumps the generation;
    /// 0 = none; frame rate in millihertz).
    let preferredWidth = Atomic<Int>(0)
    let preferredHeight = Atomic<Int>(0)
    let preferredFrameRateMillihertz = Atomic<Int>(0)
    let preferencesGeneration = Atomic<UInt64>(0)
    /// What the forwarding thread publishes for the control plane and tests.
    let status = LegStatusAtomics()
    /// Set on a cascade egress (`MediaRouter.openCascadeEgress`) before the leg joins its
    /// group: what it sends is counted there too, and it gets a BYE when the stream ends.
    var cascadeEgress: CascadeCounters?

    /// `audio`/`video`: whether each kind is forwarded from the start; `carriesAudio` /
    /// `carriesVideo`: whether the leg has that kind at all (the publisher sends it), so
    /// the client is given its SSRC and a kind turned off can be turned back on.
    convenience init(subscriberId: String, bindingTo bind: SocketAddress, host: String, profile: SRTPProfile,
                     audio: Bool, video: Bool, carriesAudio: Bool, carriesVideo: Bool, ssrcs: inout SSRCAllocator,
                     log: RouterLog? = nil) throws(MediaError) {
        try self.init(subscriberId: subscriberId, endpoint: .socket(bind: bind), host: host, profile: profile, audio: audio,
                      video: video, carriesAudio: carriesAudio, carriesVideo: carriesVideo, ssrcs: &ssrcs, log: log)
    }

    /// As above, reaching the client through `endpoint` (its own socket or the edge).
    init(subscriberId: String, endpoint: LegEndpoint, host: String, profile: SRTPProfile,
         audio: Bool, video: Bool, carriesAudio: Bool, carriesVideo: Bool, ssrcs: inout SSRCAllocator,
         log: RouterLog? = nil, fixedSSRCs: (audio: UInt32, video: UInt32)? = nil) throws(MediaError) {
        self.subscriberId = subscriberId
        takesAudio = Atomic(audio)
        takesVideo = Atomic(video)
        hasVideo = carriesVideo
        route = LegVideoRoute(spatial: 0, on: video)
        // A browser subscriber's SSRCs were chosen when its offer was made.
        audioSSRC = fixedSSRCs?.audio ?? ssrcs.next()
        videoSSRC = fixedSSRCs?.video ?? ssrcs.next()
        history = try LegHistory(slots: Self.historyCapacity, arenaBytes: Self.historyArenaBytes,
                                 ageNanoseconds: Self.historyAgeNanoseconds)
        outgoing.reserveCapacity(ForwardingHandler.sendBatch)
        resend.reserveCapacity(ForwardingHandler.sendBatch)
        let pool = PacketBufferPool(initialCount: Self.poolInitialCount, maximumCount: 2 * ForwardingHandler.sendBatch + 16,
                                    bufferSize: 2048, headroom: 0)
        try super.init(endpoint: endpoint, host: host, profile: profile, pool: pool,
                       audioSSRC: carriesAudio ? audioSSRC : nil, videoSSRC: carriesVideo ? videoSSRC : nil, log: log)
    }

    /// "subscriber <subscriber id>", for the log.
    override var legName: String { "subscriber \(subscriberId)" }

    /// The history slot of a sequence number.
    @inline(__always)
    static func slot(of sequence: UInt16) -> Int { Int(sequence) % historyCapacity }

    /// Keeps a copy of a sent video packet for NACKs (the buffer stays the caller's).
    /// O(1) amortized, no allocation.
    @inline(__always)
    func remember(_ packet: UnsafeRawBufferPointer, sequence: UInt16, now: UInt64) {
        if history.remember(packet, sequence: sequence, now: now) { resendGuard.forget(slot: Self.slot(of: sequence)) }
    }

    /// The kept bytes of `sequence`, if still there and young enough; valid until the next
    /// `remember`.
    @inline(__always)
    func kept(_ sequence: UInt16, now: UInt64) -> UnsafeRawBufferPointer? {
        guard let bytes = history.kept(sequence, now: now), bytes.count >= 12,
              WireBytes.be16(UnsafeMutableRawPointer(mutating: bytes.baseAddress!), 2) == sequence else { return nil }
        return bytes
    }

    /// Forgets the history and gives every queued buffer back to the pool.
    func releaseAll() {
        history.removeAll()
        for buffer in outgoing { pool.release(buffer) }
        for buffer in resend { pool.release(buffer) }
        outgoing.removeAll(keepingCapacity: true)
        resend.removeAll(keepingCapacity: true)
    }
}

/// Random, distinct, nonzero SSRCs for one router.
struct SSRCAllocator {
    private var used: Set<UInt32> = []

    /// A fresh SSRC no leg of this router uses yet.
    mutating func next() -> UInt32 {
        while true {
            let candidate = UInt32.random(in: 1 ... .max)
            if used.insert(candidate).inserted { return candidate }
        }
    }

    /// Takes in the SSRCs another copy handed out.
    mutating func merge(_ other: SSRCAllocator) { used.formUnion(other.used) }
}
