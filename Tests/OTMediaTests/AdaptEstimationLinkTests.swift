import Testing
import OTMedia

/// A deterministic bottleneck for the bandwidth estimator: the sender paces 1200-byte
/// packets at the estimator's target; a drop-tail FIFO (64 KiB, the ImpairmentProxy's
/// default `queueLimitBytes`) is served at `capacity` bits/s; a constant propagation delay
/// each way; optional random loss before the queue (seeded); the receiver sends transport-
/// wide feedback every 50-100 ms (seeded), which reaches the sender one propagation delay
/// later. Time advances in 1 ms ticks; event times inside a tick are exact.
struct AdaptLinkSimulation {
    struct Phase {
        var start: Double          // seconds
        var capacity: Int          // bits/s
        var loss: Double = 0
        /// Extra delay per packet, uniform in 0..<jitter (packets may overtake each other).
        var jitterNanoseconds: UInt64 = 0
    }

    struct Sample {
        var time: Double
        var capacity: Int
        var target: Int
        var delayBased: Int
        var lossBased: Int
        var acknowledged: Int?
        var queueDelayMilliseconds: Double
        var state: BandwidthEstimatorState
    }

    var phases: [Phase]
    var duration: Double
    var initialBitrate = 300_000
    var propagationNanoseconds: UInt64 = 20_000_000
    var queueLimitBytes = 64 * 1024
    var packetSize = 1200
    var seed: UInt64 = 0x5EED
    /// Probe clusters (ProbeController → ProbeClusterEstimator → onProbeResult) on top of
    /// the paced media: a cluster sends its packets at the cluster's rate.
    var probing = false
    /// As `TransportFeedbackRecorder.Configuration.reorderHoldNanoseconds`.
    var reorderHoldNanoseconds: UInt64 = 0

    func run() -> [Sample] {
        let ms: UInt64 = 1_000_000
        let receiverClockOffset: UInt64 = 123_456_789_000   // only differences may matter
        var estimator = BandwidthEstimator(configuration: .init(initialBitrate: initialBitrate, minBitrate: 50_000, maxBitrate: 10_000_000))
        estimator.onRTT(nanoseconds: 2 * propagationNanoseconds)
        var random = SplitMix64(seed: seed)  // reproducible runs

        var sendTimes: [UInt64] = []
        var arrivals: [UInt64?] = []                 // receiver's clock; nil until (or unless) it arrives
        var queue: [(seq: Int, enqueue: UInt64)] = []
        var queueHead = 0
        var queuedBytes = 0
        var serverFreeAt: UInt64 = 0
        var inFlight: [(seq: Int, arrival: UInt64)] = []   // departed, not yet at the receiver (FIFO)
        var inFlightHead = 0
        var highestReceived = -1
        var lastReported = -1
        var nextFeedback: UInt64 = 50 * ms
        var pendingFeedback: [(deliver: UInt64, results: [PacketResult])] = []
        var nextSend: UInt64 = 0
        var lastQueueDelay = 0.0
        var samples: [Sample] = []
        let end = UInt64(duration * 1000) * ms
        var controller = ProbeController(configuration: .init(maxBitrate: 10_000_000))
        var clusters = ProbeClusterEstimator()
        var cluster: (request: ProbeClusterRequest, bytes: Int, packets: Int, last: Int)?
        var accepted = 0

        var now: UInt64 = 0
        while now <= end {
            let phase = phases.last { UInt64($0.start * 1000) * ms <= now } ?? phases[0]
            let capacity = UInt64(phase.capacity)
            // Sender: paced at the current target.
            if probing, cluster == nil,
               let request = controller.nextCluster(estimate: estimator.targetBitrate,
                                                    lastOveruse: estimator.lastOveruseNanoseconds,
                                                    queueingDelayNanoseconds: estimator.state.queueingDelayNanoseconds, now: now) {
                cluster = (request, 0, 0, -1)
                clusters.begin(id: request.id, targetBitrate: request.bitrate, firstSequence: UInt64(sendTimes.count), now: now)
                nextSend = max(nextSend, now)
            }
            while nextSend <= now {
                let seq = sendTimes.count
                sendTimes.append(nextSend)
                arrivals.append(nil)
                if random.unit() >= phase.loss, queuedBytes + packetSize <= queueLimitBytes {
                    queue.append((seq, nextSend))
                    queuedBytes += packetSize
                }
                var rate = estimator.targetBitrate
                if let open = cluster {
                    rate = max(rate, open.request.bitrate)
                    cluster!.bytes += packetSize
                    cluster!.packets += 1
                    cluster!.last = seq
                    if cluster!.bytes >= open.request.bytes && cluster!.packets >= open.request.packets {
                        clusters.end(id: open.request.id, lastSequence: UInt64(seq), now: nextSend)
                        cluster = nil
                    }
                }
                nextSend += UInt64(packetSize * 8) * 1_000_000_000 / UInt64(max(rate, 1))
            }
            // Bottleneck: serve the FIFO at the capacity in force when each packet starts.
            while queueHead < queue.count {
                let head = queue[queueHead]
                let start = max(serverFreeAt, head.enqueue)
                let finish = start + UInt64(packetSize * 8) * 1_000_000_000 / capacity
                guard finish <= now else { break }
                serverFreeAt = finish
                queueHead += 1
                queuedBytes -= packetSize
                lastQueueDelay = Double(finish - head.enqueue) / 1e6
                let arrival = finish + propagationNanoseconds + (phase.jitterNanoseconds > 0 ? random.next() % phase.jitterNanoseconds : 0)
                var at = inFlight.count
                while at > inFlightHead, inFlight[at - 1].arrival > arrival { at -= 1 }
                inFlight.insert((head.seq, arrival), at: at)
            }
            // Receiver.
            while inFlightHead < inFlight.count, inFlight[inFlightHead].arrival <= now {
                let packet = inFlight[inFlightHead]
                arrivals[packet.seq] = packet.arrival + receiverClockOffset
                highestReceived = max(highestReceived, packet.seq)
                inFlightHead += 1
            }
            if now >= nextFeedback {
                var cut = highestReceived
                while cut > lastReported, arrivals[cut].map({ $0 - receiverClockOffset + reorderHoldNanoseconds > now }) ?? true { cut -= 1 }
                if cut > lastReported {
                    var results: [PacketResult] = []
                    for seq in (lastReported + 1)...cut {
                        results.append(PacketResult(sequenceNumber: UInt64(seq), sendNanoseconds: sendTimes[seq],
                                                    arrivalNanoseconds: arrivals[seq], size: packetSize))
                    }
                    lastReported = cut
                    pendingFeedback.append((now + propagationNanoseconds, results))
                }
                nextFeedback = now + 50 * ms + random.next() % (51 * ms)
            }
            // Sender receives feedback.
            while let first = pendingFeedback.first, first.deliver <= now {
                pendingFeedback.removeFirst()
                estimator.onRTT(nanoseconds: 2 * propagationNanoseconds + UInt64(lastQueueDelay * 1e6))
                estimator.onTransportFeedback(first.results, now: now)
                clusters.add(first.results, now: now) { result in
                    if estimator.onProbeResult(result, now: now) { accepted += 1 }
                    controller.onResult(result, estimate: estimator.targetBitrate, now: now)
                }
            }
            if now % (100 * ms) == 0 {
                let state = estimator.state
                let queueDelay = queueHead < queue.count || serverFreeAt > now ? lastQueueDelay : 0
                samples.append(Sample(time: Double(now) / 1e9, capacity: phase.capacity, target: state.targetBitrate,
                                      delayBased: state.delayBasedBitrate, lossBased: state.lossBasedBitrate,
                                      acknowledged: state.acknowledgedBitrate, queueDelayMilliseconds: queueDelay, state: state))
            }
            now += ms
        }
        return samples
    }

    static func printTrajectory(_ title: String, _ samples: [Sample], every: Double = 0.5) {
        print("== \(title)")
        print("   t(s)  C(kbps) target  delay   loss   acked  queue(ms) trend  thresh state")
        for sample in samples where (sample.time / every).rounded() * every == sample.time {
            let acked = sample.acknowledged.map { String($0 / 1000) } ?? "-"
            func pad(_ s: String, _ n: Int) -> String { String(repeating: " ", count: max(0, n - s.count)) + s }
            print("  " + pad(String(format1(sample.time)), 5) + pad(String(sample.capacity / 1000), 8)
                  + pad(String(sample.target / 1000), 7) + pad(String(sample.delayBased / 1000), 7)
                  + pad(String(sample.lossBased / 1000), 7) + pad(acked, 7)
                  + pad(String(Int(sample.queueDelayMilliseconds)), 9) + pad(String(Int(sample.state.trendMilliseconds)), 7)
                  + pad(String(Int(sample.state.thresholdMilliseconds)), 7) + "  \(sample.state.rateControl) \(sample.state.usage)")
        }
    }

    static func format1(_ x: Double) -> String {
        let tenths = Int((x * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// The whole estimator against a simulated bottleneck: convergence, a capacity drop, random loss.
@Suite struct AdaptEstimationLinkTests {
    @Test func rampsToCapacity() {
        let capacity = 2_000_000
        let samples = AdaptLinkSimulation(phases: [.init(start: 0, capacity: capacity)], duration: 20).run()
        AdaptLinkSimulation.printTrajectory("300 kbps start, C = 2 Mbps", samples)
        let inRange = { (s: AdaptLinkSimulation.Sample) in
            Double(s.target) >= 0.7 * Double(capacity) && Double(s.target) <= 1.1 * Double(capacity)
        }
        let first = samples.first(where: inRange)
        print("first within [0.7 C, 1.1 C] at \(first.map { AdaptLinkSimulation.format1($0.time) } ?? "never") s")
        let last = samples.last!.target
        #expect(Double(last) >= 0.7 * Double(capacity) && Double(last) <= 1.1 * Double(capacity), "target at 20 s: \(last)")
        #expect((first?.time ?? 99) <= 15)
        // After the start-up ramp's first over-use, it stays there (the AIMD saw-tooth stays
        // inside the band).
        let firstDecrease = samples.first { $0.state.rateControl == .decrease }?.time ?? 0
        print("first over-use at \(AdaptLinkSimulation.format1(firstDecrease)) s")
        let after = samples.filter { $0.time > firstDecrease }
        let outside = after.filter { !inRange($0) }.count
        #expect(outside == 0, "left the band: \(after.filter { !inRange($0) }.map { ($0.time, $0.target) })")
        // And the queue stays short in steady state.
        let steadyDelay = samples.filter { $0.time >= 15 }.map(\.queueDelayMilliseconds).max() ?? 0
        print("max queueing delay 15-20 s: \(Int(steadyDelay)) ms")
        #expect(steadyDelay < 150)
    }

    @Test func followsACapacityDrop() {
        let samples = AdaptLinkSimulation(phases: [.init(start: 0, capacity: 2_000_000), .init(start: 20, capacity: 500_000)],
                                          duration: 30).run()
        AdaptLinkSimulation.printTrajectory("C = 2 Mbps, then 500 kbps at 20 s", samples.filter { $0.time >= 18 }, every: 0.2)
        let before = samples.last { $0.time <= 20 }!
        #expect(before.target >= 1_400_000, "converged before the drop: \(before.target)")
        let fits = samples.first { $0.time > 20 && $0.target <= 600_000 }
        print("target <= 600 kbps \(fits.map { AdaptLinkSimulation.format1($0.time - 20) } ?? "never") s after the drop")
        #expect((fits?.time ?? 99) - 20 <= 2)
        let peakDelay = samples.filter { $0.time >= 20 }.map(\.queueDelayMilliseconds).max() ?? 0
        // The 64 KiB buffer fills (about 1 s at 500 kbps) before any feedback can show the drop;
        // emptying it takes at least ~1 s more. Then the latency budget keeps it short.
        let drained = samples.first { $0.time > 20.5 && $0.queueDelayMilliseconds < 100 }
        let drainedTime = (drained?.time ?? 99) - 20
        let worstAfter = samples.filter { $0.time >= 20 + drainedTime }.map(\.queueDelayMilliseconds).max() ?? 0
        print("peak queueing delay \(Int(peakDelay)) ms; back under 100 ms \(AdaptLinkSimulation.format1(drainedTime)) s after the drop; worst after that \(Int(worstAfter)) ms")
        #expect(drainedTime <= 3)
        #expect(worstAfter <= 250)
        // Settled at the new capacity: not starved, not above it.
        let late = samples.filter { $0.time >= 27 }
        #expect(late.allSatisfy { $0.target >= 300_000 && $0.target <= 600_000 }, "\(late.map(\.target))")
    }

    @Test func randomLossDoesNotCollapse() {
        let capacity = 2_000_000
        let samples = AdaptLinkSimulation(phases: [.init(start: 0, capacity: capacity), .init(start: 15, capacity: capacity, loss: 0.05)],
                                          duration: 40, seed: 42).run()
        AdaptLinkSimulation.printTrajectory("C = 2 Mbps, 5 % random loss from 15 s", samples.filter { $0.time >= 14 }, every: 1)
        let lossy = samples.filter { $0.time >= 15 }
        let lowest = lossy.map(\.target).min() ?? 0
        let mean = lossy.map(\.target).reduce(0, +) / max(1, lossy.count)
        print("with 5 % loss: lowest target \(lowest / 1000) kbps, mean \(mean / 1000) kbps")
        #expect(Double(lowest) >= 0.5 * Double(capacity))
    }

    /// With probe clusters the estimate climbs back from 500 kbps to 0.8 × 2 Mbps within
    /// issue 5's 10 s after the cap lifts (the AIMD alone, below, takes ~15 s), and while
    /// capped the periodic probes neither lift the estimate above the cap nor build a queue.
    @Test(arguments: [UInt64(0x5EED), 7, 42])
    func probingClimbsBackWithinTenSeconds(seed: UInt64) {
        var simulation = AdaptLinkSimulation(phases: [.init(start: 0, capacity: 500_000), .init(start: 15, capacity: 2_000_000)],
                                             duration: 30, seed: seed)
        simulation.probing = true
        let samples = simulation.run()
        AdaptLinkSimulation.printTrajectory("probing: C = 500 kbps, then 2 Mbps at 15 s (seed \(seed))",
                                            samples.filter { $0.time >= 14 && $0.time <= 26 }, every: 0.5)
        let back = samples.first { $0.time > 15 && $0.target >= 1_600_000 }
        print("probing: back to >= 0.8 x 2 Mbps \(back.map { AdaptLinkSimulation.format1($0.time - 15) } ?? "never") s after the cap lifted")
        #expect((back?.time ?? 99) - 15 <= 10)
        let capped = samples.filter { $0.time >= 8 && $0.time < 15 }
        let highest = capped.map(\.target).max() ?? 0
        let worstQueue = capped.map(\.queueDelayMilliseconds).max() ?? 0
        print("probing while capped (8-15 s): highest target \(highest / 1000) kbps, worst queue \(Int(worstQueue)) ms")
        #expect(highest <= 650_000)
        #expect(worstQueue <= 400)
    }

    /// Not a requirement of this round: how fast the estimate climbs back after the cap lifts
    /// (issue 5's `otbench adapt` goal is <= 10 s). Printed for the report; asserted loosely.
    /// Issue 5's loss acceptance at the estimator alone: 5 % loss and 0-40 ms of random
    /// extra delay per packet (reordering) on a 2 Mbps link; prints the trajectory.
    /// Without the receiver's reordering hold the reordered packets count as lost and the
    /// loss-based part takes the target to ~520 kbps; with the 40 ms hold it stays near
    /// the link (real loss 5 %: GCC holds between 2 and 10 %).
    @Test(arguments: [UInt64(0), 40_000_000])
    func lossAndJitterTogether(hold: UInt64) {
        let capacity = 2_000_000
        var simulation = AdaptLinkSimulation(phases: [.init(start: 0, capacity: capacity),
                                                      .init(start: 15, capacity: capacity, loss: 0.05, jitterNanoseconds: 40_000_000)],
                                             duration: 30)
        simulation.reorderHoldNanoseconds = hold
        let samples = simulation.run()
        AdaptLinkSimulation.printTrajectory("C = 2 Mbps, 5 % loss + 0-40 ms jitter from 15 s", samples.filter { $0.time >= 14 }, every: 1)
        let lossy = samples.filter { $0.time >= 20 }
        let lowest = lossy.map(\.target).min() ?? 0
        print("with 5 % loss + jitter, hold \(hold / 1_000_000) ms: lowest target \(lowest / 1000) kbps")
        if hold > 0 { #expect(lowest >= capacity / 2, "the hold keeps reordering from looking like loss") }
        else { #expect(lowest < capacity / 2, "without it the estimate collapses (this test's premise)") }
    }

    @Test func climbsBackAfterTheCapLifts() {
        let samples = AdaptLinkSimulation(phases: [.init(start: 0, capacity: 500_000), .init(start: 15, capacity: 2_000_000)],
                                          duration: 45).run()
        AdaptLinkSimulation.printTrajectory("C = 500 kbps, then 2 Mbps at 15 s", samples.filter { $0.time >= 14 }, every: 1)
        let back = samples.first { $0.time > 15 && $0.target >= 1_400_000 }
        print("back to >= 0.7 x 2 Mbps \(back.map { AdaptLinkSimulation.format1($0.time - 15) } ?? "never") s after the cap lifted")
        #expect(back != nil)
    }
}
