import CBareRelay
import OTMedia
import OTRouter
import OTSignaling

/// `otbench cascade`: what a packet costs when it crosses a router-to-router cascade leg,
/// against the same packet forwarded on one router, in the same run.
///
/// Local path: one router, a publisher leg and N subscriber legs (SDES sockets, as in
/// `otbench router`). Cascade path: the same publisher on origin router A (with its
/// one-port edge), receiving router B opening a cascade ingress for the stream
/// (`openCascadeIngress`: ICE + DTLS client to A's edge, through `CascadeControl` with
/// the cluster secret), and the same N subscriber legs on B. The same C blaster sends
/// pre-protected RTP (1200-byte payloads, AEAD_AES_128_GCM) into the publisher leg and
/// the same C drain empties the N receivers (at most 256 packets per receiver in flight).
/// Figure: CPU nanoseconds per packet delivered to a subscriber — local: the stream's
/// forwarding thread; cascade: A's forwarding thread (unprotect, one egress protect),
/// A's edge workers (B's RTCP) and B's forwarding thread (ingress unprotect, N
/// protects), all on their own thread CPU clocks — ÷ packets B's subscribers were sent.
/// Goal: cascade ≤ 1.2 × local at N = 16 (the extra leg's cost is spread over the
/// node's fan-out; at N = 4 it shows larger and is reported without a goal).
enum CascadeScenario: Scenario {
    static let name = "cascade"
    static let summary = "CPU per packet across a router-to-router cascade leg vs the local forward path, 1 x N"

    static let fanOuts = [4, 16]
    static let secret = "otbench-cluster-secret"

    static func run(options: Options, log: ProgressLog) throws -> [BenchResult] {
        let packets = options.frames ?? RouterScenario.defaultPackets
        let runs = options.runs ?? RouterScenario.defaultRuns
        var results: [BenchResult] = []
        for n in fanOuts {
            guard options.only.map({ "1x\(n)".contains($0) || "cascade".contains($0) }) ?? true else { continue }
            results += try measure(subscribers: n, packets: packets, runs: runs, log: log)
        }
        return results
    }

    /// One path's set-up: where the blaster sends, what counts delivered packets, and the
    /// CPU spent so far on every thread of the path.
    struct Path {
        let port: UInt16
        let protector: SRTPSession
        let ssrc: UInt32
        let receivers: [UDPSocket]
        /// The path's packets: one ring per path, so its sequence numbers run on across blasts.
        let ring: RouterBlastRing
        let delivered: () -> UInt64
        let cpu: () -> UInt64
    }

    static func measure(subscribers n: Int, packets: Int, runs: Int, log: ProgressLog) throws -> [BenchResult] {
        let profile = SRTPProfile.aeadAES128GCM
        let stream = "bench"
        // Local: one router, no edge.
        let local = try MediaRouter(host: "127.0.0.1", profile: profile, edge: nil)
        defer { local.removePublisher(streamId: stream) }
        let localPath = try path(publisher: local, subscribers: local, stream: stream, n: n, packets: packets, profile: profile) {
            let c = local.counters(streamId: stream)
            return c?.forwardingCPUNanoseconds ?? 0
        }
        // Cascade: origin A (edge) → receiving B.
        let edge = MediaEdgeConfiguration(workerCount: 1, consentTimeout: 600_000_000_000)
        let a = try MediaRouter(host: "127.0.0.1", profile: profile, edge: edge)
        let b = try MediaRouter(host: "127.0.0.1", profile: profile, edge: nil)
        defer { b.closeCascadeIngress(streamId: stream); a.removePublisher(streamId: stream) }
        let origin = CascadeControlOrigin.local(CascadeControl(router: a, secret: secret), secret: secret)
        let cascadePath = try path(publisher: a, subscribers: b, stream: stream, n: n, packets: packets, profile: profile, before: {
            a.setSubscriberAudioFallback(streamId: stream, enabled: false)  // no audio to fall back to
            try b.openCascadeIngress(streamId: stream, node: "b", origin: origin, linger: 3_600_000_000_000)
        }) {
            (a.counters(streamId: stream)?.forwardingCPUNanoseconds ?? 0) + (a.edge?.workerCPUNanoseconds ?? 0)
                + (b.counters(streamId: stream)?.forwardingCPUNanoseconds ?? 0)
        }
        log("  cascade 1x\(n): egress legs on A \(a.cascadeCounters.snapshot.egressLegs), ingress legs on B "
            + "\(b.cascadeCounters.snapshot.ingressLegs)")

        var localCosts: [Double] = [], cascadeCosts: [Double] = []
        for run in 0...runs {  // run 0 warms up: pools, histories, libsrtp stream clones
            let l = try blast(localPath, packets: packets, n: n)
            let c = try blast(cascadePath, packets: packets, n: n)
            if run > 0 {
                localCosts.append(l.cost)
                cascadeCosts.append(c.cost)
            }
            log("  cascade 1x\(n) run \(run)/\(runs)\(run == 0 ? " (warm-up)" : ""): local \(Int(l.cost)) ns/pkt "
                + "(\(l.delivered) delivered), cascade \(Int(c.cost)) ns/pkt (\(c.delivered) delivered), "
                + "ratio \(TableReport.format(c.cost / l.cost))")
        }
        let localCost = RouterScenario.median(localCosts), cascadeCost = RouterScenario.median(cascadeCosts)
        let label = "cascade 1x\(n)"
        let egress = a.cascadeCounters.snapshot
        var rows: [BenchResult] = [
            .info("\(label) egress packets sent (A → B, whole run)", value: Double(egress.egressPackets), unit: "pkt"),
        ]
        if n == 16 {
            rows.insert(.compared("\(label) CPU per delivered packet (A egress + B ingress + B fan-out) vs local fan-out",
                                  value: cascadeCost, unit: "ns", baseline: localCost, goal: 1.2), at: 0)
        } else {
            rows.insert(.info("\(label) CPU per delivered packet (A egress + B ingress + B fan-out) vs local fan-out",
                              value: cascadeCost, unit: "ns", baseline: localCost), at: 0)
        }
        return rows
    }

    /// Publishes `stream` on `publisher` (SDES leg), runs `before`, and subscribes N
    /// receivers on `subscribers`, each announcing itself so the router learns its address.
    static func path(publisher: MediaRouter, subscribers: MediaRouter, stream: String, n: Int, packets: Int, profile: SRTPProfile,
                     before: () throws -> Void = {}, cpu: @escaping () -> UInt64) throws -> Path {
        let leg = try publisher.addPublisher(streamId: stream, audio: false, video: true)
        try before()
        let protector = try SRTPSession(keys: try SRTPKeyMaterial(profile: profile, base64: leg.clientKey ?? ""), direction: .sender)
        var receivers: [UDPSocket] = []
        for index in 0..<n {
            let subscriberLeg = try subscribers.addSubscriber(subscriberId: "r\(index)", streamId: stream, audio: false, video: true)
            let socket = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 8 << 20)
            try announce(from: socket, leg: subscriberLeg, profile: profile)
            receivers.append(socket)
        }
        let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
        while (subscribers.counters(streamId: stream)?.receiverReports ?? 0) < UInt64(n), MonotonicClock.nanoseconds() < deadline {
            sleepMilliseconds(5)
        }
        let ring = RouterBlastRing(packets: packets, ssrc: leg.videoSSRC ?? 1, payloadBytes: RouterScenario.payloadBytes)
        return Path(port: UInt16(leg.port), protector: protector, ssrc: leg.videoSSRC ?? 1, receivers: receivers, ring: ring,
                    delivered: { subscribers.counters(streamId: stream)?.packetsOut ?? 0 }, cpu: cpu)
    }

    /// One blast of `packets` through `path`: CPU per packet delivered to a subscriber.
    static func blast(_ path: Path, packets: Int, n: Int) throws -> (cost: Double, delivered: UInt64) {
        let drain = try path.receivers.map(\.fileDescriptor).withUnsafeBufferPointer { fds in
            guard let drain = bare_drain_start(fds.baseAddress, Int32(n)) else { throw ScenarioError("cannot start the drain thread") }
            return drain
        }
        defer { bare_drain_stop(drain) }
        let blaster = try UDPSocket(bindingTo: .ipv4Loopback(), sendBufferBytes: 4 << 20)
        defer { blaster.close() }
        let ring = path.ring
        try ring.fill(protector: path.protector)
        let delivered0 = path.delivered(), cpu0 = path.cpu()
        try ring.blast(from: blaster, to: path.port, drain: drain, receivers: n, forwarded: path.delivered)
        let delivered = path.delivered() - delivered0, cpu = path.cpu() - cpu0
        return (Double(cpu) / Double(max(delivered, 1)), delivered)
    }

    /// One SRTCP receiver report from `socket` to the subscriber leg (its address for the router).
    static func announce(from socket: UDPSocket, leg: WireMediaLeg, profile: SRTPProfile) throws {
        let session = try SRTPSession(keys: try SRTPKeyMaterial(profile: profile, base64: leg.clientKey ?? ""), direction: .sender)
        let pool = PacketBufferPool(initialCount: 1)
        let buffer = pool.take()!
        let region = buffer.writableBytes
        var writer = RTCPCompoundWriter(buffer: UnsafeMutableRawBufferPointer(rebasing: region[0..<(region.count - SRTPProfile.maxTrailer)]))
        let cname = Array("otbench-cascade".utf8)
        try cname.withUnsafeBytes { cname in
            try writer.append(ReceiverReport(ssrc: 0x5EED))
            try writer.append(SourceDescription(ssrc: 0x5EED, cname: cname))
        }
        let length = try writer.finish().count
        buffer.setLength(try session.protectRTCP(region, length: length))
        buffer.peer = SocketAddress(ipv4: leg.host, port: UInt16(leg.port))
        _ = try socket.send([buffer], batch: UDPMessageBatch(capacity: 1))
        pool.release(buffer)
    }
}
