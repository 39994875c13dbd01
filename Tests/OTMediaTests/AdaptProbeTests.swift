import Testing
import OTMedia

/// Probe clusters: the measurement (ProbeClusterEstimator), the schedule (ProbeController)
/// and the estimator's use of a result (BandwidthEstimator.onProbeResult).
@Suite struct AdaptProbeTests {
    static let ms: UInt64 = 1_000_000

    /// `count` packets of `size` bytes sent every `sendGap` ns from sequence `first`,
    /// arriving every `arrivalGap` ns; indices in `lost` are reported lost.
    static func cluster(first: UInt64 = 100, count: Int = 20, size: Int = 300, sendGap: UInt64, arrivalGap: UInt64,
                        lost: Set<Int> = []) -> [PacketResult] {
        (0..<count).map { index in
            PacketResult(sequenceNumber: first + UInt64(index), sendNanoseconds: 1_000 * ms + UInt64(index) * sendGap,
                         arrivalNanoseconds: lost.contains(index) ? nil : 5_000 * ms + UInt64(index) * arrivalGap, size: size)
        }
    }

    struct MeasureCase: Sendable, CustomStringConvertible {
        var name: String
        var arrivalGap: UInt64
        var lost: Set<Int>
        var rejection: ProbeResult.Rejection?
        var bitrate: ClosedRange<Int>
        var description: String { name }
    }

    // 300-byte packets every 2.4 ms = 1 Mbps.
    static let measureCases: [MeasureCase] = [
        MeasureCase(name: "clean", arrivalGap: 2_400_000, lost: [], rejection: nil, bitrate: 950_000...1_050_000),
        MeasureCase(name: "slightly compressed arrivals", arrivalGap: 2_000_000, lost: [], rejection: nil,
                    bitrate: 950_000...1_050_000),
        MeasureCase(name: "one loss in 20", arrivalGap: 2_400_000, lost: [7], rejection: nil, bitrate: 850_000...1_050_000),
        MeasureCase(name: "15 % lost", arrivalGap: 2_400_000, lost: [2, 5, 9], rejection: .loss, bitrate: 0...2_000_000),
        MeasureCase(name: "queued at a half-rate bottleneck", arrivalGap: 4_800_000, lost: [], rejection: .risingDelay,
                    bitrate: 450_000...550_000),
    ]

    @Test(arguments: measureCases)
    func measuresAClusterFromItsFeedback(_ c: MeasureCase) {
        var estimator = ProbeClusterEstimator()
        estimator.begin(id: 1, targetBitrate: 1_000_000, firstSequence: 100, now: 1_000 * Self.ms)
        let results = Self.cluster(sendGap: 2_400_000, arrivalGap: c.arrivalGap, lost: c.lost)
        var judged: [ProbeResult] = []
        // Feedback about the first half comes back before the cluster ends.
        estimator.add(results.prefix(10), now: 1_030 * Self.ms) { judged.append($0) }
        #expect(judged.isEmpty)
        estimator.end(id: 1, lastSequence: 119, now: 1_046 * Self.ms)
        estimator.add(results.suffix(10), now: 1_100 * Self.ms) { judged.append($0) }
        #expect(judged.count == 1)
        #expect(judged.first?.rejection == c.rejection, "\(String(describing: judged.first))")
        #expect(c.bitrate.contains(judged.first?.bitrate ?? -1), "\(String(describing: judged.first))")
        #expect(estimator.pendingCount == 0)
    }

    @Test func aClusterWithoutFeedbackTimesOut() {
        var estimator = ProbeClusterEstimator()
        estimator.begin(id: 3, targetBitrate: 1_000_000, firstSequence: 10, now: 0)
        estimator.end(id: 3, lastSequence: 30, now: 50 * Self.ms)
        var judged: [ProbeResult] = []
        let unrelated = [PacketResult(sequenceNumber: 5, sendNanoseconds: 0, arrivalNanoseconds: 1, size: 100)]
        estimator.add(unrelated, now: 500 * Self.ms) { judged.append($0) }
        #expect(judged.isEmpty)
        estimator.add(unrelated, now: 1_100 * Self.ms) { judged.append($0) }
        #expect(judged.map(\.rejection) == [.timedOut])
    }

    @Test func controllerStartsWithTwoClustersThenGoesExponential() {
        var controller = ProbeController(configuration: .init(maxBitrate: 2_000_000))
        let first = controller.nextCluster(estimate: 300_000, lastOveruse: nil, now: 0)
        let second = controller.nextCluster(estimate: 300_000, lastOveruse: nil, now: 1)
        #expect(first?.bitrate == 600_000)
        #expect(second?.bitrate == 900_000)
        #expect(first?.bytes == 7_500)   // 100 ms at 600 kbps
        // Waits for the result (nothing within the interval).
        #expect(controller.nextCluster(estimate: 300_000, lastOveruse: nil, now: 100 * Self.ms) == nil)
        // A cluster that got through: the next one at 2 × the new estimate, at once.
        let result = ProbeResult(cluster: ProbeCluster(id: second!.id, targetBitrate: 900_000, firstSequence: 0, lastSequence: 10,
                                                       endNanoseconds: 0),
                                 sendBitrate: 900_000, receiveBitrate: 880_000, received: 30, lost: 0, rejection: nil)
        controller.onResult(result, estimate: 792_000, now: 200 * Self.ms)
        #expect(controller.nextCluster(estimate: 792_000, lastOveruse: nil, now: 201 * Self.ms)?.bitrate == 1_584_000)
        // A rejected one stops the exponential phase.
        var rejected = result
        rejected.cluster.id = controller.clustersRequested
        rejected.rejection = .risingDelay
        controller.onResult(rejected, estimate: 1_400_000, now: 400 * Self.ms)
        #expect(controller.nextCluster(estimate: 1_400_000, lastOveruse: nil, now: 401 * Self.ms) == nil)
    }

    struct PeriodicCase: Sendable, CustomStringConvertible {
        var name: String
        var estimate: Int
        var lastOveruse: UInt64?
        var now: UInt64
        var probes: Bool
        var limited = false
        var queue: UInt64 = 0
        var pacerBits = 0
        var rate: Int? = nil
        var description: String { name }
    }

    static let periodicCases: [PeriodicCase] = [
        PeriodicCase(name: "quiet, interval passed", estimate: 500_000, lastOveruse: nil, now: 2_500 * ms, probes: true),
        PeriodicCase(name: "within the interval", estimate: 500_000, lastOveruse: nil, now: 1_500 * ms, probes: false),
        PeriodicCase(name: "over-use 1 s ago", estimate: 500_000, lastOveruse: 1_500 * ms, now: 2_500 * ms, probes: false),
        PeriodicCase(name: "over-use 3 s ago", estimate: 500_000, lastOveruse: 0, now: 3_000 * ms, probes: true),
        PeriodicCase(name: "standing queue of 80 ms", estimate: 500_000, lastOveruse: nil, now: 2_500 * ms, probes: false,
                     queue: 80 * ms),
        // 125 kbit at 500 kbps: 250 ms of video waiting in the pacer (encoder pushback's limit).
        PeriodicCase(name: "250 ms of media in the pacer", estimate: 500_000, lastOveruse: nil, now: 2_500 * ms,
                     probes: false, pacerBits: 125_000),
        PeriodicCase(name: "10 ms of media in the pacer", estimate: 500_000, lastOveruse: nil, now: 2_500 * ms,
                     probes: true, pacerBits: 5_000),
        PeriodicCase(name: "20 ms queued on the path and 20 ms in the pacer", estimate: 500_000, lastOveruse: nil,
                     now: 2_500 * ms, probes: false, queue: 20 * ms, pacerBits: 10_000),
        PeriodicCase(name: "at the maximum, limited, 250 ms in the pacer", estimate: 2_000_000, lastOveruse: nil,
                     now: 5_000 * ms, probes: false, limited: true, pacerBits: 500_000),
        PeriodicCase(name: "at the maximum", estimate: 2_000_000, lastOveruse: nil, now: 5_000 * ms, probes: false),
        PeriodicCase(name: "at the maximum, application-limited", estimate: 2_000_000, lastOveruse: nil, now: 5_000 * ms,
                     probes: true, limited: true, rate: 2_000_000),
        PeriodicCase(name: "at the maximum, limited, over-use 1 s ago", estimate: 2_000_000, lastOveruse: 4_000 * ms,
                     now: 5_000 * ms, probes: false, limited: true),
    ]

    @Test(arguments: periodicCases)
    func periodicProbing(_ c: PeriodicCase) {
        var controller = ProbeController(configuration: .init(maxBitrate: 2_000_000))
        // The start pair at t = 0 (results never come: they time out after 1 s).
        _ = controller.nextCluster(estimate: 500_000, lastOveruse: nil, now: 0)
        _ = controller.nextCluster(estimate: 500_000, lastOveruse: nil, now: 0)
        let request = controller.nextCluster(estimate: c.estimate, lastOveruse: c.lastOveruse, applicationLimited: c.limited,
                                             queueingDelayNanoseconds: c.queue, pacerQueuedBits: c.pacerBits,
                                             now: c.now)
        #expect((request != nil) == c.probes, "\(String(describing: request))")
        if let request { #expect(request.bitrate == (c.rate ?? min(2 * c.estimate, 2_500_000))) }
    }

    @Test func estimatorTakesAUsableProbeAtOnce() {
        var estimator = BandwidthEstimator(configuration: .init(initialBitrate: 500_000, minBitrate: 100_000, maxBitrate: 3_000_000))
        let cluster = ProbeCluster(id: 1, targetBitrate: 1_000_000, firstSequence: 0, lastSequence: 30, endNanoseconds: 0)
        let good = ProbeResult(cluster: cluster, sendBitrate: 1_000_000, receiveBitrate: 980_000, received: 30, lost: 0, rejection: nil)
        let raised = estimator.onProbeResult(good, now: 0)
        #expect(raised)
        #expect(estimator.targetBitrate == 882_000)
        #expect(estimator.state.lossBasedBitrate >= 882_000)
        // Rejected results and results below the estimate change nothing.
        var rejected = good
        rejected.rejection = .loss
        rejected.sendBitrate = 3_000_000
        rejected.receiveBitrate = 3_000_000
        let raisedByRejected = estimator.onProbeResult(rejected, now: 1)
        #expect(!raisedByRejected)
        var low = good
        low.receiveBitrate = 600_000
        let raisedByLow = estimator.onProbeResult(low, now: 2)
        #expect(!raisedByLow)
        #expect(estimator.targetBitrate == 882_000)
        #expect(estimator.probesApplied == 1)
    }
}
