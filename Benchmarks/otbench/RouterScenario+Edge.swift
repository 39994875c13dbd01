import CBareRelay
import OTMedia
import OTRouter
import OTSignaling

/// `otbench router`, the one-port edge rows: the same blast as the SDES rows, through the
/// router's `MediaEdge` instead of per-leg sockets.
///
/// The publisher and each subscriber connect as native clients do (`ICEClientConnector`: ICE
/// checks, then a DTLS client handshake against the edge's port); the blaster sends from the
/// publisher's socket
/// (the address ICE selected) packets protected with the DTLS-exported keys, and the drain
/// empties the subscriber clients' sockets. On the router an edge worker unprotects each
/// packet and copies it into the stream's inbox; the forwarding thread copies, rewrites and
/// protects it per leg with the leg's DTLS-exported session and sends each leg's batch from
/// the edge's port. Figure: forwarded packets ÷ CPU seconds of the edge's workers AND the
/// forwarding thread (the unprotect moved from the latter to the former), against the bare
/// C relay in the same run. Goal ≥ 0.6.
///
/// One core's worth each: the router's two threads (the edge worker and the stream's
/// forwarding thread) and the bare relay's thread are pinned to the same CPU (1), the
/// load generator (blaster, drain) runs unpinned beside them. The router's hand-over
/// then stays in one core's caches, as in the scaling row's one-worker configuration.
/// Unpinned, the scheduler's placement moved the router's figure by ±20 % between runs
/// (1x1 medians of 0.55-0.75 in one hour on this VM); pinned, 0.64-0.82 over nine
/// invocations. The machine is shared: figures still vary run to run.
extension RouterScenario {
    static let edgeFanOuts = [1, 4, 16]
    /// The CPU the measured threads share (the generator mostly gets the other one).
    static let pinnedCPU: Int32 = 1

    /// A native client's identity for an edge leg: ICE credentials, a certificate and the
    /// transport the router is told about.
    static func edgeIdentity() throws -> (ICECredentials, DTLSCertificate, WireTransport) {
        let credentials = ICECredentials.generate()
        let certificate = try DTLSCertificate(commonName: "otbench")
        return (credentials, certificate, WireTransport(iceUfrag: credentials.ufrag, icePassword: credentials.password,
                                                        fingerprint: certificate.fingerprint.sdpValue))
    }

    /// Connects `socket` to the edge leg as a native client does (ICE checks, then a DTLS
    /// client handshake); returns the keys the handshake exported.
    static func edgeConnect(_ leg: WireMediaLeg, _ credentials: ICECredentials, _ certificate: DTLSCertificate,
                            socket: UDPSocket) throws -> SRTPLegKeys {
        guard let transport = leg.transport, let address = SocketAddress(ipv4: leg.host, port: UInt16(leg.port)) else {
            throw ScenarioError("the edge leg has no transport")
        }
        let peer = ICEPeer(address: address,
                           credentials: try ICECredentials(ufrag: transport.iceUfrag, password: transport.icePassword),
                           fingerprint: try DTLSFingerprint(sdp: SDPFingerprint(sdpValue: Substring(transport.fingerprint))))
        let connector = ICEClientConnector(socket: socket, peer: peer, local: credentials,
                                           context: try DTLSContext(certificate: certificate))
        return try connector.connect()
    }

    /// Pins the first thread named each of `names` to `cpu`, waiting up to a second for
    /// threads that have not named themselves yet (a thread takes its name once it runs:
    /// the bare relay's is started just before).
    static func pinWhenNamed(_ names: [String], cpu: Int32) throws {
        var waiting = names
        for _ in 0 ..< 1000 {
            waiting = waiting.filter { bare_pin_named_thread($0, 0, cpu) != 0 }
            if waiting.isEmpty { return }
            sleepMilliseconds(1)
        }
        throw ScenarioError("cannot pin \(waiting.joined(separator: ", ")) to CPU \(cpu)")
    }

    static func measureEdge(subscribers n: Int, packets: Int, runs: Int, log: ProgressLog) throws -> [BenchResult] {
        // Consent long enough for the whole measurement (the clients send no checks meanwhile).
        let configuration = MediaEdgeConfiguration(workerCount: 1, consentTimeout: 600_000_000_000)
        let router = try MediaRouter(host: "127.0.0.1", profile: .aeadAES128GCM, edge: configuration)
        guard let edge = router.edge else { throw ScenarioError("the router opened no edge") }
        let stream = "bench"
        let (publisherCredentials, publisherCertificate, publisherTransport) = try edgeIdentity()
        let publisherLeg = try router.addPublisher(streamId: stream, audio: false, video: true, simulcastLayers: 1,
                                                   transport: publisherTransport)
        defer { router.removePublisher(streamId: stream) }
        let publisher = try UDPSocket(bindingTo: .ipv4Loopback())
        let keys = try edgeConnect(publisherLeg, publisherCredentials, publisherCertificate, socket: publisher).send
        let protector = try SRTPSession(keys: keys, direction: .sender)
        let ssrc = publisherLeg.videoSSRC ?? 1
        var clients: [UDPSocket] = []
        for index in 0..<n {
            let (credentials, certificate, transport) = try edgeIdentity()
            let leg = try router.addSubscriber(subscriberId: "r\(index)", streamId: stream, audio: false, video: true, transport: transport)
            let client = try UDPSocket(bindingTo: .ipv4Loopback())
            _ = try edgeConnect(leg, credentials, certificate, socket: client)
            clients.append(client)
        }
        log("  edge 1x\(n): \(n + 1) legs on port \(edge.localAddress.port), SRTP \(keys.profile.rfcName) from DTLS, "
            + "\(router.openSockets) leg sockets open")
        let drain = try clients.map(\.fileDescriptor).withUnsafeBufferPointer { fds in
            guard let drain = bare_drain_start(fds.baseAddress, Int32(n)) else { throw ScenarioError("cannot start the drain thread") }
            return drain
        }
        defer { bare_drain_stop(drain) }
        // The bare relay, as in the SDES rows, to the same receivers; it reads with UDP GRO
        // as the edge workers do (the SDES legs' sockets and their relay do not).
        let bareIn = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 4 << 20, receiveCoalescing: true)
        guard bareIn.usesReceiveCoalescing == (router.edge?.usesReceiveCoalescing ?? false) else {
            throw ScenarioError("the bare relay and the edge do not read the same way (UDP GRO)")
        }
        var bareOut: [UDPSocket] = []
        for _ in 0..<n { bareOut.append(try UDPSocket(bindingTo: .ipv4Loopback(), sendBufferBytes: 4 << 20)) }
        let bareBlaster = try UDPSocket(bindingTo: .ipv4Loopback(), sendBufferBytes: 4 << 20)
        let bare = try bareOut.map(\.fileDescriptor).withUnsafeBufferPointer { outs in
            let ports = clients.map { $0.localAddress.port }
            return try ports.withUnsafeBufferPointer { ports in
                guard let relay = bare_relay_start(bareIn.fileDescriptor, outs.baseAddress, ports.baseAddress, Int32(n)) else {
                    throw ScenarioError("cannot start the bare relay")
                }
                return relay
            }
        }
        defer { bare_relay_stop(bare) }
        // One core's worth each: the stream's router threads and the bare relay on CPU 1.
        guard bare_named_thread_cpu("otk-sfu-fwd", 1) < 0, bare_named_thread_cpu("otk-edge-0", 1) < 0,
              bare_named_thread_cpu("bare-relay", 1) < 0 else { throw ScenarioError("another router's or relay's thread is alive") }
        try pinWhenNamed(["otk-edge-0", "otk-sfu-fwd", "bare-relay"], cpu: pinnedCPU)

        let ring = RouterBlastRing(packets: packets, ssrc: ssrc, payloadBytes: payloadBytes)
        func blast(from socket: UDPSocket, to port: UInt16, forwarded: () -> UInt64) throws {
            try ring.blast(from: socket, to: port, drain: drain, receivers: n, forwarded: forwarded)
        }
        let edgePort = edge.localAddress.port
        var routerRates: [Double] = [], bareRates: [Double] = [], workerShares: [Double] = []
        try ring.fill(protector: protector)  // warm-up: pools, histories, libsrtp stream clones
        try blast(from: publisher, to: edgePort) { router.counters(streamId: stream)?.packetsOut ?? 0 }
        for run in 0..<runs {
            try ring.fill(protector: protector)
            let before = try requireCounters(router, stream)
            let workersBefore = edge.workerCPUNanoseconds
            try blast(from: publisher, to: edgePort) { router.counters(streamId: stream)?.packetsOut ?? 0 }
            let after = try requireCounters(router, stream)
            let workers = edge.workerCPUNanoseconds - workersBefore
            let forwarded = after.packetsOut - before.packetsOut
            let cpu = after.forwardingCPUNanoseconds - before.forwardingCPUNanoseconds + workers
            let routerRate = Double(forwarded) / (Double(cpu) / 1e9)
            workerShares.append(Double(workers) / Double(max(cpu, 1)))

            try ring.fill(protector: nil)
            let bareRate = try bareRelayRate(bare) { try blast(from: bareBlaster, to: bareIn.localAddress.port, forwarded: $0) }.rate
            routerRates.append(routerRate)
            bareRates.append(bareRate)
            log("  edge 1x\(n) run \(run + 1)/\(runs): router \(Int(routerRate)) pkt/CPU-s (\(forwarded) forwarded, "
                + "\(after.packetsDropped - before.packetsDropped) dropped, workers \(Int(workerShares.last! * 100)) % of its CPU), "
                + "bare \(Int(bareRate)) pkt/CPU-s, ratio \(TableReport.format(routerRate / bareRate))")
        }
        let routerRate = median(routerRates), bareRate = median(bareRates)
        let label = "router edge 1x\(n)"
        return [
            .comparedAtLeast("\(label) one-port edge forwarding per CPU second (workers + forwarding thread)", value: routerRate,
                             unit: "pkt/s", baseline: bareRate, goal: 0.6),
            .info("\(label) CPU per forwarded packet", value: 1e9 / routerRate, unit: "ns", baseline: 1e9 / bareRate),
            .info("\(label) edge workers' share of that CPU", value: median(workerShares) * 100, unit: "%"),
        ]
    }
}
