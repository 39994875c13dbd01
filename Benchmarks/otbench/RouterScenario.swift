import CBareRelay
import CBareSRTP
import OTMedia
import OTRouter

/// `otbench router`: what the SFU's forwarding costs per forwarded packet, against a bare
/// C relay with the same shape and none of the work, in the same run.
///
/// For 1 publisher × N subscribers (N = 1, 4, 16): a C blaster thread sends pre-protected
/// RTP (1200-byte payloads, AEAD_AES_128_GCM) with `sendmmsg` into the publisher leg; a
/// C drain thread empties the N receiver sockets with `recvmmsg`. The blaster keeps at
/// most 256 packets per leg in flight (it counts what the drain received): flat out, but
/// no socket queue overflows, so neither side is charged for datagrams the kernel
/// delivers only to drop (on loopback the thread whose send raises the softirq pays). Each receiver first
/// sends one SRTCP receiver report so the router learns its address. The router
/// unprotects each packet once and, per leg, copies, rewrites and protects it and sends
/// the batch with `sendmmsg`. Figure: forwarded packets ÷ CPU seconds of the forwarding
/// thread (its own CPU clock, `ForwardingCounters.forwardingCPUNanoseconds`).
///
/// Baseline (`CBareRelay`): one C thread doing `recvmmsg` from one socket and one
/// `sendmmsg` of the same bytes per destination socket, no SRTP, measured the same way
/// (its thread CPU clock). Runs alternate router / bare; medians are reported. Goal:
/// router throughput per core ≥ 0.5 × bare (the ratio on the packets-per-CPU-second row).
/// Allocations: the whole process's malloc calls during the router's window ÷ forwarded
/// packets (the blaster and drain allocate nothing; libsrtp's own share, 0 on OTKit's
/// OpenSSL primitives and several per call on Debian's NSS ones, is shown beside it).
enum RouterScenario: Scenario {
    static let name = "router"
    static let summary = "SFU forwarding per core (SRTP per leg) vs a bare C relay, 1 x N subscribers"

    static let defaultPackets = 32_768
    static let defaultRuns = 3
    static let fanOuts = [1, 4, 16]
    static let payloadBytes = 1200

    static func run(options: Options, log: ProgressLog) throws -> [BenchResult] {
        try AllocationCounter.verify()
        let packets = options.frames ?? defaultPackets
        let runs = options.runs ?? defaultRuns
        let libsrtp = try LibSRTPAllocations.measure(keys: .random(profile: .aeadAES128GCM))
        let unprotectAllocations = try bareUnprotectAllocations()
        log("bare libsrtp2 (GCM) allocates \(TableReport.format(libsrtp.perRTPPacket)) times per protect and "
            + "\(TableReport.format(unprotectAllocations)) per unprotect of a 1200-byte packet")
        var results: [BenchResult] = []
        let labels = fanOuts.map { "1x\($0)" } + edgeFanOuts.map { "edge 1x\($0)" } + ["edge scaling", "edge first frame"]
        // `--only` names a group exactly ("edge 1x1" is not "edge 1x16"), else any group containing it.
        func selected(_ label: String) -> Bool {
            guard let only = options.only else { return true }
            return labels.contains(only) ? label == only : label.contains(only) || "router".contains(only)
        }
        for n in fanOuts {
            guard selected("1x\(n)") else { continue }
            results += try measure(subscribers: n, packets: packets, runs: runs,
                                   libsrtpPerForward: libsrtp.perRTPPacket + unprotectAllocations / Double(n), log: log)
        }
        for n in edgeFanOuts {
            guard selected("edge 1x\(n)") else { continue }
            results += try measureEdge(subscribers: n, packets: packets, runs: runs, log: log)
        }
        if selected("edge scaling") {
            // The library's own scaling first, in a process no router has run in yet.
            let library = try measureSRTPThreadScaling(seconds: 1, runs: runs, log: log)
            results += try measureEdgeScaling(packets: packets, runs: runs, log: log) + library
        }
        if selected("edge first frame") {
            results += try measureFirstFrame(runs: runs, log: log)
        }
        return results
    }

    /// Runs the router and the bare relay alternately for one fan-out. `libsrtpPerForward`
    /// is what libsrtp itself allocates per forwarded packet (a protect plus 1/N unprotect).
    private static func measure(subscribers n: Int, packets: Int, runs: Int, libsrtpPerForward: Double,
                                log: ProgressLog) throws -> [BenchResult] {
        let router = try MediaRouter(host: "127.0.0.1", profile: .aeadAES128GCM)
        let stream = "bench"
        let publisherLeg = try router.addPublisher(streamId: stream, audio: false, video: true)
        defer { router.removePublisher(streamId: stream) }
        let profile = SRTPProfile.aeadAES128GCM
        let publisherKeys = try SRTPKeyMaterial(profile: profile, base64: publisherLeg.clientKey ?? "")
        let protector = try SRTPSession(keys: publisherKeys, direction: .sender)
        let ssrc = publisherLeg.videoSSRC ?? 1

        // Receivers: one socket per subscriber leg, each announcing itself with an SRTCP RR.
        var receivers: [UDPSocket] = []
        for index in 0..<n {
            let leg = try router.addSubscriber(subscriberId: "r\(index)", streamId: stream, audio: false, video: true)
            let socket = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 8 << 20)
            try announce(from: socket, host: leg.host, port: leg.port, clientKey: leg.clientKey ?? "", profile: profile)
            receivers.append(socket)
        }
        // The bare relay's sockets: one in, n out, the same receivers.
        let bareIn = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 4 << 20)
        var bareOut: [UDPSocket] = []
        for _ in 0..<n { bareOut.append(try UDPSocket(bindingTo: .ipv4Loopback(), sendBufferBytes: 4 << 20)) }
        let blasterSocket = try UDPSocket(bindingTo: .ipv4Loopback(), sendBufferBytes: 4 << 20)
        let drain = try receivers.map(\.fileDescriptor).withUnsafeBufferPointer { fds in
            guard let drain = bare_drain_start(fds.baseAddress, Int32(n)) else { throw ScenarioError("cannot start the drain thread") }
            return drain
        }
        defer { bare_drain_stop(drain) }
        // Wait until the router has heard every receiver.
        let deadline = MonotonicClock.nanoseconds() + 3_000_000_000
        while (router.counters(streamId: stream)?.packetsIn ?? 0) < UInt64(n), MonotonicClock.nanoseconds() < deadline {
            sleepMilliseconds(5)
        }

        let ring = RouterBlastRing(packets: packets, ssrc: ssrc, payloadBytes: payloadBytes)
        func blast(to port: UInt16, forwarded: () -> UInt64) throws {
            try ring.blast(from: blasterSocket, to: port, drain: drain, receivers: n, forwarded: forwarded)
        }

        let bare = try bareOut.map(\.fileDescriptor).withUnsafeBufferPointer { outs in
            let ports = receivers.map { $0.localAddress.port }
            return try ports.withUnsafeBufferPointer { ports in
                guard let relay = bare_relay_start(bareIn.fileDescriptor, outs.baseAddress, ports.baseAddress, Int32(n)) else {
                    throw ScenarioError("cannot start the bare relay")
                }
                return relay
            }
        }
        defer { bare_relay_stop(bare) }

        var routerRates: [Double] = [], bareRates: [Double] = [], allocationRates: [Double] = []
        // Warm-up, not counted: the legs' pools grow to their steady size and the NACK
        // histories fill, libsrtp clones its stream templates.
        try ring.fill(protector: protector)
        try blast(to: UInt16(publisherLeg.port)) { router.counters(streamId: stream)?.packetsOut ?? 0 }
        for run in 0..<runs {
            // Router.
            try ring.fill(protector: protector)
            let before = try requireCounters(router, stream)
            let allocationsBefore = AllocationCounter.count
            try blast(to: UInt16(publisherLeg.port)) { router.counters(streamId: stream)?.packetsOut ?? 0 }
            let allocations = AllocationCounter.count - allocationsBefore
            let after = try requireCounters(router, stream)
            let routerForwarded = after.packetsOut - before.packetsOut
            let routerCPU = after.forwardingCPUNanoseconds - before.forwardingCPUNanoseconds
            let routerRate = Double(routerForwarded) / (Double(routerCPU) / 1e9)
            allocationRates.append(Double(allocations) / Double(max(routerForwarded, 1)))

            // Bare relay.
            try ring.fill(protector: nil)
            let (bareRate, bareForwarded) = try bareRelayRate(bare) { try blast(to: bareIn.localAddress.port, forwarded: $0) }
            routerRates.append(routerRate)
            bareRates.append(bareRate)
            log("  1x\(n) run \(run + 1)/\(runs): router \(Int(routerRate)) pkt/CPU-s (\(routerForwarded) forwarded, "
                + "\(after.packetsDropped - before.packetsDropped) dropped), bare \(Int(bareRate)) pkt/CPU-s "
                + "(\(bareForwarded) forwarded), ratio \(TableReport.format(routerRate / bareRate))")
        }
        let routerRate = median(routerRates), bareRate = median(bareRates)
        let label = "router 1x\(n)"
        return [
            .comparedAtLeast("\(label) forwarded packets per CPU second", value: routerRate, unit: "pkt/s", baseline: bareRate, goal: 0.5),
            .info("\(label) CPU per forwarded packet", value: 1e9 / routerRate, unit: "ns", baseline: 1e9 / bareRate),
            .info("\(label) allocations per forwarded packet (process, libsrtp/NSS included)", value: median(allocationRates),
                  unit: "allocs", baseline: libsrtpPerForward),
            .bounded("\(label) allocations per forwarded packet beyond libsrtp's", value: max(0, median(allocationRates) - libsrtpPerForward),
                     unit: "allocs", goal: 0.01),
        ]
    }

    /// Sends one SRTCP receiver report (+ SDES) from `socket` to the leg, as a subscriber
    /// pipeline does at start, so the router learns where to send.
    private static func announce(from socket: UDPSocket, host: String, port: Int, clientKey: String, profile: SRTPProfile) throws {
        let session = try SRTPSession(keys: try SRTPKeyMaterial(profile: profile, base64: clientKey), direction: .sender)
        let pool = PacketBufferPool(initialCount: 1)
        let buffer = pool.take()!
        let region = buffer.writableBytes
        var writer = RTCPCompoundWriter(buffer: UnsafeMutableRawBufferPointer(rebasing: region[0..<(region.count - SRTPProfile.maxTrailer)]))
        let cname = Array("otbench-receiver".utf8)
        try cname.withUnsafeBytes { cname in
            try writer.append(ReceiverReport(ssrc: 0x5EED))
            try writer.append(SourceDescription(ssrc: 0x5EED, cname: cname))
        }
        let length = try writer.finish().count
        buffer.setLength(try session.protectRTCP(region, length: length))
        buffer.peer = SocketAddress(ipv4: host, port: UInt16(port))
        _ = try socket.send([buffer], batch: UDPMessageBatch(capacity: 1))
        pool.release(buffer)
    }

    /// Allocations of one srtp_unprotect of a 1200-byte GCM packet, from the bare libsrtp
    /// loop: 256 packets protected by a bare sender, then unprotected by a bare receiver.
    private static func bareUnprotectAllocations() throws -> Double {
        let keys = SRTPKeyMaterial.random(profile: .aeadAES128GCM).keyAndSalt
        let profile = Int32(BARE_SRTP_AEAD_AES_128_GCM)
        guard let sender = keys.withUnsafeBufferPointer({ bare_srtp_create(profile, $0.baseAddress, 1) }),
              let receiver = keys.withUnsafeBufferPointer({ bare_srtp_create(profile, $0.baseAddress, 0) }) else {
            throw ScenarioError("bare libsrtp2 refused the GCM policy")
        }
        defer { bare_srtp_destroy(sender); bare_srtp_destroy(receiver) }
        let count = 257, stride = 1280
        var clear = [UInt8](repeating: 0x5A, count: 1212)
        clear[0] = 0x80; clear[1] = 96; clear[8] = 0x11; clear[11] = 0x44
        var ring = [UInt8](repeating: 0, count: stride * count)
        var lengths = [Int32](repeating: 0, count: count)
        var work = [UInt8](repeating: 0, count: stride)
        var sequence: UInt16 = 1
        for index in 0..<count {
            let length = work.withUnsafeMutableBufferPointer { bare_srtp_protect_loop(sender, clear, 1212, $0.baseAddress, 1, &sequence) }
            guard length > 0 else { throw ScenarioError("bare libsrtp2 failed with status \(-length)") }
            lengths[index] = Int32(length)
            for byte in 0..<Int(length) { ring[index * stride + byte] = work[byte] }
        }
        var result = 0
        // The first packet clones the receiver's stream template: not counted.
        _ = work.withUnsafeMutableBufferPointer { bare_srtp_unprotect_loop(receiver, ring, Int32(stride), lengths, 0, 1, $0.baseAddress) }
        let allocations = work.withUnsafeMutableBufferPointer { work in
            AllocationCounter.delta { result = bare_srtp_unprotect_loop(receiver, ring, Int32(stride), lengths, 1, Int32(count - 1), work.baseAddress) }
        }
        guard result > 0 else { throw ScenarioError("bare libsrtp2 unprotect failed with status \(-result)") }
        return Double(allocations) / Double(count - 1)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}

/// The counters of `stream`, or a scenario error when the router lost it.
func requireCounters(_ router: MediaRouter, _ stream: String) throws -> ForwardingCounters {
    guard let counters = router.counters(streamId: stream) else { throw ScenarioError("the router lost stream \(stream)") }
    return counters
}

/// The bare C relay's packets forwarded per CPU second while `blast` drives it, sampled
/// from the relay itself (the blaster's CPU excluded); also the packets it forwarded.
func bareRelayRate(_ bare: OpaquePointer?, blast: (_ forwarded: () -> UInt64) throws -> Void) rethrows -> (rate: Double, forwarded: UInt64) {
    var forwarded0: UInt64 = 0, cpu0: UInt64 = 0, forwarded1: UInt64 = 0, cpu1: UInt64 = 0
    bare_relay_sample(bare, &forwarded0, &cpu0)
    try blast {
        var f: UInt64 = 0, c: UInt64 = 0
        bare_relay_sample(bare, &f, &c)
        return f
    }
    bare_relay_sample(bare, &forwarded1, &cpu1)
    return (Double(forwarded1 - forwarded0) / (Double(cpu1 - cpu0) / 1e9), forwarded1 - forwarded0)
}
