import Glibc
import OTMedia
import Synchronization

/// The router's one-port media edge (issue 16): ONE UDP port shared by N worker threads
/// (`SO_REUSEPORT`, one socket each), on which every leg does ICE-lite, a DTLS-SRTP
/// handshake as the server and then SRTP.
///
/// The router registers a leg with what the two descriptions say (`EdgeLegDescription`:
/// ICE credentials and the peer's certificate fingerprint; no media key ever travels in
/// signaling). A worker finds the leg of a STUN check by its USERNAME, answers it
/// (`ICELiteAgent`), and on nomination maps the check's source address to the leg; DTLS,
/// RTP and RTCP are then found by that address. The first ClientHello from it starts the
/// leg's `DTLSTransport` (router = server, peer fingerprint checked, `DTLSHandshakeAdmission`
/// caps per host and in total); the exported keys make the leg's SRTP sessions. From then
/// on SRTP/SRTCP from the peer is unprotected and handed to the receive handler, and
/// `send(leg:rtp:)` protects and sends to the selected address.
///
/// Worker 0 runs the timers every `tickInterval` of the edge's clock: ICE consent (a leg
/// without a valid check for `consentTimeout` lapses: counted, nothing is sent to it, but
/// it stays registered with its address and keys until `remove`, and its peer's next valid
/// check resumes it; memory stays bounded because the router removes a leg when signaling
/// says its client left), DTLS retransmissions, and the handshake bound (an unfinished
/// handshake is freed, counted).
///
/// Registering and removing legs never stops or restarts a worker; it takes the
/// registry's short lookup lock only. Everything hostile is dropped and counted
/// (`counters`), never thrown. Cost: `init` binds the sockets and starts the threads (and
/// makes a P-256 certificate unless given one); each worker holds `batchSize` receive
/// buffers and 64 answer buffers, allocated once.
public final class MediaEdge: Sendable {
    /// The port's address (the real port when 0 was asked for).
    public let localAddress: SocketAddress
    /// The certificate the edge presents in every handshake; its fingerprint goes in the
    /// router's SDP (`a=fingerprint`).
    public let certificate: DTLSCertificate
    /// How the edge was set up.
    public let configuration: MediaEdgeConfiguration

    let core: EdgeCore
    private let sockets: [UDPSocket]
    private let threads: Mutex<[EdgeThread]>

    /// Binds `configuration.workerCount` sockets to `configuration.address` and starts one
    /// worker thread per socket. `receive` gets every unprotected RTP and RTCP packet (on a
    /// worker thread); `clock` drives consent, retransmission and handshake timers (tests
    /// pass a `ManualClock`); `ended` hears of handshakes that failed or timed out
    /// (not of lapsed consent: see `hasConsent`). Throws `EdgeError.transport` when the port cannot be bound,
    /// `.dtls` when no certificate can be made, `.thread` when a worker cannot start.
    public init(configuration: MediaEdgeConfiguration = MediaEdgeConfiguration(), certificate: DTLSCertificate? = nil,
                clock: any MediaClock = SystemMediaClock(), ended: EdgeLegEndedHandler? = nil,
                receive: @escaping EdgeReceiveHandler) throws(EdgeError) {
        let context: DTLSContext
        let presented: DTLSCertificate
        do throws(DTLSError) {
            if let certificate { presented = certificate } else { presented = try DTLSCertificate(commonName: "OTKit router") }
            context = try DTLSContext(certificate: presented)
        } catch {
            throw .dtls(error)
        }
        self.certificate = presented
        var sockets: [UDPSocket] = []
        do throws(TransportError) {
            let first = try UDPSocket(bindingTo: configuration.address, receiveBufferBytes: configuration.receiveBufferBytes,
                                      clock: clock, reusePort: true, receiveCoalescing: configuration.receiveCoalescing)
            sockets.append(first)
            for _ in 1 ..< configuration.workerCount {
                sockets.append(try UDPSocket(bindingTo: first.localAddress, receiveBufferBytes: configuration.receiveBufferBytes,
                                             clock: clock, reusePort: true, receiveCoalescing: configuration.receiveCoalescing))
            }
        } catch {
            for socket in sockets { socket.close() }
            throw .transport(error)
        }
        self.sockets = sockets
        localAddress = sockets[0].localAddress
        self.configuration = configuration
        let core = EdgeCore(configuration: configuration, context: context, clock: clock, ended: ended, receive: receive)
        self.core = core
        var started: [EdgeThread] = []
        for (index, socket) in sockets.enumerated() {
            let worker = EdgeWorker(index: index, socket: socket, core: core)
            do throws(EdgeError) {
                started.append(try EdgeThread { worker.run() })
            } catch {
                core.stopping.store(true, ordering: .relaxed)
                for thread in started { thread.join() }
                for socket in sockets { socket.close() }
                throw error
            }
        }
        threads = Mutex(started)
    }

    deinit { stop() }

    /// Stops the workers (each notices within `pollInterval`), waits for them and closes
    /// the sockets. Idempotent. Legs stay registered but nothing moves.
    public func stop() {
        core.stopping.store(true, ordering: .relaxed)
        let running = threads.withLock { threads in
            defer { threads = [] }
            return threads
        }
        for thread in running { thread.join() }
        if !running.isEmpty { for socket in sockets { socket.close() } }
    }

    /// Whether every worker socket reads with UDP GRO (`receiveCoalescing` asked for it
    /// and the kernel agreed).
    public var usesReceiveCoalescing: Bool { sockets.allSatisfy(\.usesReceiveCoalescing) }

    /// The certificate's fingerprint, for the router's `a=fingerprint`.
    public var fingerprint: DTLSFingerprint { certificate.fingerprint }

    /// CPU time (user + system) the worker threads have used so far, nanoseconds; read
    /// while the edge runs (a stopped worker's clock is gone). Cost: one `clock_gettime`
    /// per worker.
    public var workerCPUNanoseconds: UInt64 {
        guard !core.stopping.load(ordering: .relaxed) else { return 0 }
        return core.workerClocks.withLock { clocks in
            clocks.reduce(0) { total, clock in
                var time = timespec()
                guard clock_gettime(clock, &time) == 0 else { return total }
                return total + UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
            }
        }
    }

    /// Workers (and sockets) sharing the port.
    public var workerCount: Int { sockets.count }

    /// Registers leg `id`: from now on checks signed for `description.local` are answered.
    /// Its consent clock starts now. Throws `.duplicateLeg` (id or local ufrag taken),
    /// `.tooManyLegs`, or `.invalidDescription` (a local ufrag over 32 bytes). Cost: an ICE
    /// agent, a one-packet send buffer and three table inserts; no worker is disturbed.
    /// With a `sink`, the leg's packets, keys, address and ending go to it (see
    /// `EdgeLegSink`) instead of the receive handler and `send`.
    public func register(_ id: EdgeLegID, _ description: EdgeLegDescription, sink: (any EdgeLegSink)? = nil) throws(EdgeError) {
        var agent = ICELiteAgent(maximumLegs: 1, consentTimeoutNanoseconds: configuration.consentTimeout)
        do {
            try agent.register(id, local: description.local, remoteUfrag: description.remoteUfrag, now: core.clock.nanoseconds())
        } catch {
            throw .invalidDescription("\(error)")
        }
        let leg = EdgeLeg(id: id, description: description, agent: agent, packetBytes: configuration.maximumPacketBytes, sink: sink)
        try core.registry.insert(leg)
    }

    /// Removes leg `id` (no-op when unknown): its packets are dropped from now on, its
    /// handshake slot, SSL object and SRTP sessions freed. Other legs are not disturbed.
    public func remove(_ id: EdgeLegID) {
        guard let leg = core.registry.remove(id) else { return }
        core.tearDown(leg)
    }

    /// Legs registered.
    public var legCount: Int { core.registry.count }

    /// Whether leg `id` is registered.
    public func isRegistered(_ id: EdgeLegID) -> Bool { core.registry.leg(id: id) != nil }

    /// The address leg `id`'s peer nominated (where its media goes), nil before.
    public func selectedAddress(of id: EdgeLegID) -> SocketAddress? {
        core.registry.leg(id: id)?.sender.withLock { $0.address }
    }

    /// Whether leg `id` has ICE consent (false when unknown or lapsed): whether the edge
    /// sends to it. Cost: a registry lookup and the leg's send lock.
    public func hasConsent(_ id: EdgeLegID) -> Bool {
        guard let leg = core.registry.leg(id: id) else { return false }
        return !leg.sender.withLock { $0.lapsed }
    }

    /// True once leg `id` has SRTP keys from its handshake (kept here or handed to its sink).
    public func isConnected(_ id: EdgeLegID) -> Bool {
        core.registry.leg(id: id)?.sender.withLock { $0.keyed } ?? false
    }

    /// The socket sends go out of (worker 0's, on the shared port): a router forwarding a
    /// leg itself sends its batches from it (a `UDPSocket` send is safe from any thread).
    public var sendSocket: UDPSocket { sockets[0] }

    /// Protects the RTP packet `rtp` with leg `id`'s keys and sends it to the leg's selected
    /// address from the shared port. Throws `.unknownLeg`, `.notConnected`,
    /// `.consentLapsed` (counted in `mediaWithheld`), `.packetTooLarge`, `.srtp` or `.transport`. Thread-safe (one leg's sends are
    /// serialized by its send lock). Cost: one copy, one libsrtp call, one `sendmmsg`.
    public func send(leg id: EdgeLegID, rtp: UnsafeRawBufferPointer) throws(EdgeError) {
        try send(id, rtp, isRTCP: false)
    }

    /// As `send(leg:rtp:)` for an RTCP (compound) packet, protected as SRTCP.
    public func send(leg id: EdgeLegID, rtcp: UnsafeRawBufferPointer) throws(EdgeError) {
        try send(id, rtcp, isRTCP: true)
    }

    /// What the edge has seen so far. Cost: a relaxed load per counter and per worker socket.
    public var counters: EdgeCounters {
        var counters = core.counters.snapshot
        counters.coalescedDatagrams = sockets.reduce(0) { $0 + $1.coalescedDatagramCount }
        return counters
    }

    /// The handshake admission caps' own counters (in flight, admitted, refusals).
    public var admissionCounters: DTLSHandshakeAdmission.Counters { core.admission.counters }

    private func send(_ id: EdgeLegID, _ packet: UnsafeRawBufferPointer, isRTCP: Bool) throws(EdgeError) {
        guard let leg = core.registry.leg(id: id) else { throw .unknownLeg }
        guard packet.count <= configuration.maximumPacketBytes else { throw .packetTooLarge(packet.count) }
        let socket = sockets[0]
        let failure: EdgeError? = leg.sender.withLock { sender in
            guard !sender.lapsed else { return .consentLapsed }
            guard let session = sender.session, let address = sender.address else { return .notConnected }
            let buffer = sender.buffers[0]
            buffer.reset()
            guard buffer.assign(packet) else { return .packetTooLarge(packet.count) }
            let protected: Int
            do throws(SRTPError) {
                protected = isRTCP ? try session.protectRTCP(buffer.writableBytes, length: packet.count)
                    : try session.protect(buffer.writableBytes, length: packet.count)
            } catch {
                return .srtp(error)
            }
            buffer.setLength(protected)
            buffer.peer = address
            do throws(TransportError) {
                _ = try socket.send(sender.buffers, maximum: 1, batch: sender.batch)
            } catch {
                return .transport(error)
            }
            return nil
        }
        if let failure {
            if failure == .consentLapsed { core.counters.mediaWithheld.add(1, ordering: .relaxed) }
            throw failure
        }
        core.counters.mediaSent.add(1, ordering: .relaxed)
    }
}
