import CBareRelay
import OTMedia
import OTRouter
import OTSignaling

/// `otbench router`, the edge scaling row: two published streams of 1 × 4 subscribers on
/// the one-port edge, blasted at once (the edge rows' blast: 1200-byte payloads, at most
/// 256 packets per leg in flight), forwarded packets per wall-clock second with two
/// workers against one worker, in the same run.
///
/// What a worker is here: one CPU's worth of the router's media threads.
/// - One worker: `mediaWorkers` 1 (one edge worker) and every router media thread (the
///   edge worker and both streams' forwarding threads) pinned to CPU 0.
/// - Two workers: `mediaWorkers` 2; each stream's publisher flow lands on its own edge
///   worker (the second publisher's socket is chosen among fresh ones until the kernel's
///   `SO_REUSEPORT` hash gives it the other worker), and each stream's edge worker and
///   forwarding thread are pinned to its own CPU (0 and 1).
/// The load generator is kept as light as it can be, because on this 2-core machine it
/// shares the cores with the router and caps what two workers can gain: two C blasters
/// (not pinned) sending each 32-packet batch as one UDP GSO send, and no drain thread: each
/// subscriber socket drops what arrives in a socket filter (`bare_sink_start`; the
/// router's send still carries every datagram to the socket), the blasters pacing on the
/// sockets' drop counters. (With C drain threads and one `sendmmsg` per batch the generator
/// took 0.63-0.70 of the 2 cores in the two-worker blast and two workers reached
/// 1.03-1.23 x; with these, and blasters that nap until half their window has drained,
/// it takes 0.10-0.13.)
/// Rows beside the goal say how much CPU the generator took in the two-worker blast and
/// the most two workers could reach with what it left: (2 − its cores) ÷ the cores one
/// worker used.
/// Runs alternate which configuration goes first; medians are reported. Goal ≥ 1.7.
/// Beside it, for information: forwarded packets per CPU second of the router threads on
/// the busier core (`/proc` schedstat), what the router could forward with that core
/// saturated whatever CPU the generator took.
extension RouterScenario {
    static let scalingFanOut = 4

    static func measureEdgeScaling(packets: Int, runs: Int, log: ProgressLog) throws -> [BenchResult] {
        var rates: [Int: [Double]] = [1: [], 2: []], capacities: [Int: [Double]] = [1: [], 2: []]
        var ceilings: [Double] = [], generatorCores: [Double] = []
        for run in 0..<runs {
            var oneWorkerCores = 1.0, twoWorkersGenerator = 0.0
            for workers in run % 2 == 0 ? [1, 2] : [2, 1] {
                let result = try scalingRun(workers: workers, packets: packets, log: log)
                rates[workers, default: []].append(result.rate)
                capacities[workers, default: []].append(result.capacity)
                log("  edge scaling run \(run + 1)/\(runs): \(workers) worker(s) \(Int(result.rate)) pkt/s wall-clock, "
                    + "\(Int(result.capacity)) pkt/s per busiest-core CPU second, router \(TableReport.format(result.routerCores)) "
                    + "cores (\(TableReport.format(result.routerCores / result.rate * 1e6)) µs per forwarded packet), "
                    + "load generator \(TableReport.format(result.generatorCores)) cores")
                if workers == 1 { oneWorkerCores = result.routerCores } else { twoWorkersGenerator = result.generatorCores }
            }
            // What two workers could reach at most: the cores the generator left them, over
            // the cores one worker used (this round's runs).
            generatorCores.append(twoWorkersGenerator)
            ceilings.append((2 - twoWorkersGenerator) / max(oneWorkerCores, 0.01))
        }
        let one = median(rates[1] ?? []), two = median(rates[2] ?? [])
        let pairs = zip(rates[2] ?? [], rates[1] ?? []).map { TableReport.format($0 / $1) }.joined(separator: ", ")
        log("  edge scaling: two workers / one worker per run: \(pairs)")
        let label = "router edge 2 streams x 1x\(scalingFanOut)"
        return [
            .comparedAtLeast("\(label) two workers' forwarded packets per wall-clock second vs one worker's (pinned)",
                             value: two, unit: "pkt/s", baseline: one, goal: 1.7),
            .info("\(label) two workers vs one: forwarded packets per CPU second of the router's busiest core",
                  value: median(capacities[2] ?? []), unit: "pkt/s", baseline: median(capacities[1] ?? [])),
            .info("\(label) load generator's CPU during the two workers' blast (2 blasters, filtered sinks)",
                  value: median(generatorCores), unit: "cores"),
            .info("\(label) the most two workers can reach: (2 cores - generator's) / one worker's router cores",
                  value: median(ceilings), unit: "x"),
        ]
    }

    /// What one configuration did in its timed blast.
    private struct ScalingRun {
        /// Forwarded packets per wall-clock second.
        let rate: Double
        /// Forwarded packets per CPU second of the router's busier core.
        let capacity: Double
        /// CPU the router's pinned threads used, in cores (CPU seconds per wall-clock second).
        let routerCores: Double
        /// CPU the blasters used, in cores.
        let generatorCores: Double
    }

    /// One stream on the edge: its publisher's socket and keys, its subscribers' sink.
    private struct ScalingStream {
        let name: String
        let publisher: UDPSocket
        let protector: SRTPSession
        let ring: RouterBlastRing
        let clients: [UDPSocket]
        let drain: OpaquePointer
    }

    /// Builds a router with `workers` edge workers, two streams, pins its threads, blasts
    /// both streams at once and returns forwarded packets per wall-clock second, and per
    /// CPU second of the router's busiest core (the CPU of the router threads pinned to
    /// each core, the larger sum): what the router could forward with that core saturated,
    /// whatever CPU the load generator took.
    private static func scalingRun(workers: Int, packets: Int, log: ProgressLog) throws -> ScalingRun {
        let n = scalingFanOut
        // 4 MB socket buffers: two publishers' windows (2 × 256 packets) must fit one worker's queue.
        let configuration = MediaEdgeConfiguration(workerCount: workers, consentTimeout: 600_000_000_000,
                                                   receiveBufferBytes: 4 << 20)
        let router = try MediaRouter(host: "127.0.0.1", profile: .aeadAES128GCM, edge: configuration)
        guard let edge = router.edge else { throw ScenarioError("the router opened no edge") }
        let port = edge.localAddress.port
        var streams: [ScalingStream] = []
        defer {
            for stream in streams {
                bare_drain_stop(stream.drain)
                router.removePublisher(streamId: stream.name)
            }
        }
        var firstWorker = -1
        for name in ["a", "b"] {
            // The second publisher must land on the other worker (two workers only).
            var socket = try UDPSocket(bindingTo: .ipv4Loopback())
            if workers == 2 {
                var worker = try edgeWorker(of: socket, port: port)
                var tries = 0
                while worker < 0 || (firstWorker >= 0 && worker == firstWorker) {
                    tries += 1
                    guard tries < 32 else { throw ScenarioError("no socket of the second publisher reached the other edge worker") }
                    socket = try UDPSocket(bindingTo: .ipv4Loopback())
                    worker = try edgeWorker(of: socket, port: port)
                }
                if firstWorker < 0 { firstWorker = worker }
            }
            let (credentials, certificate, transport) = try edgeIdentity()
            let leg = try router.addPublisher(streamId: name, audio: false, video: true, simulcastLayers: 1, transport: transport)
            let keys = try edgeConnect(leg, credentials, certificate, socket: socket)
            var clients: [UDPSocket] = []
            for index in 0..<n {
                let (credentials, certificate, transport) = try edgeIdentity()
                let leg = try router.addSubscriber(subscriberId: "\(name)\(index)", streamId: name, audio: false, video: true,
                                                   transport: transport)
                let client = try UDPSocket(bindingTo: .ipv4Loopback())
                _ = try edgeConnect(leg, credentials, certificate, socket: client)
                clients.append(client)
            }
            let drain = try clients.map(\.fileDescriptor).withUnsafeBufferPointer { fds in
                guard let drain = bare_sink_start(fds.baseAddress, Int32(n)) else { throw ScenarioError("cannot filter the subscribers' sockets") }
                return drain
            }
            streams.append(ScalingStream(name: name, publisher: socket, protector: try SRTPSession(keys: keys.send, direction: .sender),
                                         ring: RouterBlastRing(packets: packets, ssrc: leg.videoSSRC ?? 1, payloadBytes: payloadBytes),
                                         clients: clients, drain: drain))
        }
        // Pinning: stream i's forwarding thread is the i-th "otk-sfu-fwd" (created in order).
        guard bare_named_thread_cpu("otk-sfu-fwd", 2) < 0 else { throw ScenarioError("another router's forwarding thread is alive") }
        if workers == 1 {
            guard bare_pin_named_thread("otk-edge-0", 0, 0) == 0, bare_pin_named_thread("otk-sfu-fwd", 0, 0) == 0,
                  bare_pin_named_thread("otk-sfu-fwd", 1, 0) == 0 else { throw ScenarioError("cannot pin the router's threads") }
        } else {
            let other = 1 - firstWorker
            guard bare_pin_named_thread("otk-edge-\(firstWorker)", 0, 0) == 0, bare_pin_named_thread("otk-sfu-fwd", 0, 0) == 0,
                  bare_pin_named_thread("otk-edge-\(other)", 0, 1) == 0, bare_pin_named_thread("otk-sfu-fwd", 1, 1) == 0
            else { throw ScenarioError("cannot pin the router's threads") }
        }
        func forwarded() -> UInt64 { streams.reduce(0) { $0 + (router.counters(streamId: $1.name)?.packetsOut ?? 0) } }
        /// Both blasts at once; the wall-clock time from their start to the last packet
        /// forwarded, and the CPU the blasters (the load generator) used.
        func blastBoth() throws -> (packets: UInt64, nanoseconds: UInt64, generatorCPU: Int64) {
            for stream in streams { try stream.ring.fill(protector: stream.protector) }
            let before = forwarded()
            let start = MonotonicClock.nanoseconds()
            let blasters = try streams.map { stream in
                guard let blaster = stream.ring.startBlast(from: stream.publisher, to: port, drain: stream.drain, receivers: n) else {
                    throw ScenarioError("cannot start the blaster thread")
                }
                return blaster
            }
            var blasterCPU: Int64 = 0
            for blaster in blasters {
                var cpu: UInt64 = 0
                _ = bare_blaster_finish_cpu(blaster, &cpu)
                blasterCPU += Int64(cpu)
            }
            let expected = before + UInt64(packets * n * streams.count)
            var last = forwarded(), lastChange = MonotonicClock.nanoseconds()
            while last < expected, MonotonicClock.nanoseconds() - lastChange < 50_000_000 {
                sleepMilliseconds(1)
                let now = forwarded()
                if now != last { last = now; lastChange = MonotonicClock.nanoseconds() }
            }
            return (last - before, lastChange - start, blasterCPU)
        }
        // The router's threads on each core: (name, nth) pinned to core 0 and to core 1.
        let onCore: [[(String, Int32)]] = workers == 1
            ? [[("otk-edge-0", 0), ("otk-sfu-fwd", 0), ("otk-sfu-fwd", 1)], []]
            : [[("otk-edge-\(firstWorker)", 0), ("otk-sfu-fwd", 0)], [("otk-edge-\(1 - firstWorker)", 0), ("otk-sfu-fwd", 1)]]
        func coreCPU() -> [Int64] { onCore.map { $0.reduce(0) { $0 + max(0, bare_named_thread_cpu($1.0, $1.1)) } } }
        _ = try blastBoth()  // warm-up: pools, histories, libsrtp stream clones
        let cpuBefore = coreCPU()
        let (count, nanoseconds, generatorCPU) = try blastBoth()
        let cpuAfter = coreCPU()
        let busiest = max(cpuAfter[0] - cpuBefore[0], cpuAfter[1] - cpuBefore[1])
        let wall = Double(max(nanoseconds, 1))
        return ScalingRun(rate: Double(count) / (wall / 1e9), capacity: Double(count) / (Double(max(busiest, 1)) / 1e9),
                          routerCores: Double(cpuAfter[0] - cpuBefore[0] + cpuAfter[1] - cpuBefore[1]) / wall,
                          generatorCores: Double(generatorCPU) / wall)
    }

    /// The edge worker (0 or 1) the kernel hands `socket`'s datagrams to, told by which
    /// worker's CPU time grows while 4000 junk datagrams (first byte 0xFF: counted as
    /// unknown and dropped) arrive from it; -1 when neither clearly did.
    private static func edgeWorker(of socket: UDPSocket, port: UInt16) throws -> Int {
        let before = (bare_named_thread_cpu("otk-edge-0", 0), bare_named_thread_cpu("otk-edge-1", 0))
        let pool = PacketBufferPool(initialCount: 32, maximumCount: 32, bufferSize: 256, headroom: 0)
        let buffers = (0..<32).map { _ in pool.take()! }
        let junk = [UInt8](repeating: 0xFF, count: 100)
        for buffer in buffers {
            junk.withUnsafeBytes { _ = buffer.assign($0) }
            buffer.peer = .ipv4Loopback(port: port)
        }
        let batch = UDPMessageBatch(capacity: 32)
        for _ in 0..<125 {
            _ = try socket.send(buffers, batch: batch)
            sleepMilliseconds(1)  // the worker keeps up: nothing is dropped for a full queue
        }
        sleepMilliseconds(20)
        let after = (bare_named_thread_cpu("otk-edge-0", 0), bare_named_thread_cpu("otk-edge-1", 0))
        let zero = after.0 - before.0, one = after.1 - before.1
        if zero > 2 * one { return 0 }
        if one > 2 * zero { return 1 }
        return -1
    }
}
