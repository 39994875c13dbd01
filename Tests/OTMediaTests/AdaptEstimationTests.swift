import Testing
import OTMedia

private let ms: UInt64 = 1_000_000

/// A packet result from milliseconds; arrival nil = lost.
private func packet(_ seq: UInt64, send: Double, arrival: Double?, size: Int = 1200) -> PacketResult {
    PacketResult(sequenceNumber: seq, sendNanoseconds: UInt64(send * 1e6),
                 arrivalNanoseconds: arrival.map { UInt64(($0 + 10_000) * 1e6) }, size: size)
}

/// Deltas as (send ms, arrival ms, size delta) for easy tables.
struct AdaptDeltaRow: Equatable, CustomStringConvertible {
    var send: Double, arrival: Double, size: Int
    var description: String { "(\(send), \(arrival), \(size))" }
}

/// Inter-arrival grouping (draft-ietf-rmcat-gcc-02 §5.1, §5.2).
@Suite struct AdaptEstimationGroupingTests {
    @Test(arguments: [
        // One packet per group, 10 ms apart; a delta appears when the third group opens.
        ("singles", [(0.0, 100.0 as Double?), (10, 110), (20, 125), (30, 130)], [AdaptDeltaRow(send: 10, arrival: 10, size: 0), AdaptDeltaRow(send: 10, arrival: 15, size: 0)]),
        // Bursts within 5 ms of the group's first send are one group; T and t are the last packet's.
        ("bursts", [(0, 100), (2, 101), (4, 103), (10, 110), (12, 112), (20, 125)], [AdaptDeltaRow(send: 8, arrival: 9, size: -1200)]),
        // Lost packets are ignored: same deltas as "singles".
        ("lost", [(0, 100), (5.5, nil), (10, 110), (15, nil), (20, 125), (30, 130)], [AdaptDeltaRow(send: 10, arrival: 10, size: 0), AdaptDeltaRow(send: 10, arrival: 15, size: 0)]),
        // A packet sent before the current group began is out of order and ignored.
        ("reordered packet", [(0, 100), (10, 110), (3, 111), (20, 120), (30, 130)], [AdaptDeltaRow(send: 10, arrival: 10, size: 0), AdaptDeltaRow(send: 10, arrival: 10, size: 0)]),
        // Arrived less than 5 ms after the group with negative delay variation: merged (§5.2 bullet 2).
        ("burst arrival", [(0, 100), (10, 101), (20, 120), (30, 130)], [AdaptDeltaRow(send: 10, arrival: 19, size: -1200)]),
        // Reordering inside a group: the group's arrival is its latest.
        ("late inside group", [(0, 100), (3, 99), (10, 110), (20, 120)], [AdaptDeltaRow(send: 7, arrival: 10, size: -1200)]),
        // A whole group arriving before its predecessor is dropped.
        ("reordered group", [(0, 100), (10, 110), (20, 105), (30, 130), (40, 140)], [AdaptDeltaRow(send: 10, arrival: 10, size: 0), AdaptDeltaRow(send: 20, arrival: 20, size: 0)]),
        // A 5 s jump in the receiver's clock restarts the measurement instead of reporting it.
        ("clock jump", [(0, 100), (10, 110), (20, 5120), (30, 5130), (40, 5140)], [AdaptDeltaRow(send: 10, arrival: 10, size: 0), AdaptDeltaRow(send: 10, arrival: 10, size: 0)]),
    ] as [(String, [(Double, Double?)], [AdaptDeltaRow])])
    func grouping(name: String, input: [(Double, Double?)], expected: [AdaptDeltaRow]) {
        var groups = InterArrivalGroups()
        var out: [AdaptDeltaRow] = []
        for (i, p) in input.enumerated() {
            if let d = groups.add(packet(UInt64(i), send: p.0, arrival: p.1)) {
                out.append(AdaptDeltaRow(send: Double(d.sendDeltaNanoseconds) / 1e6, arrival: Double(d.arrivalDeltaNanoseconds) / 1e6, size: d.sizeDelta))
            }
        }
        #expect(out == expected, "\(name)")
    }

    @Test func countersAndDelayVariation() throws {
        var groups = InterArrivalGroups()
        let input: [(Double, Double?)] = [(0, 100), (10, nil), (10, 112), (3, 113), (20, 125)]
        var last: InterGroupDelta?
        for (i, p) in input.enumerated() { last = groups.add(packet(UInt64(i), send: p.0, arrival: p.1)) ?? last }
        #expect(groups.lostPackets == 1)
        #expect(groups.reorderedPackets == 1)
        let delta = try #require(last)
        #expect(delta.delayVariationNanoseconds == 2 * Int64(ms))
        #expect(delta.sendNanoseconds == 10 * ms)
    }
}

/// The trendline filter (§5.3 replacement): slope of known sequences.
@Suite struct AdaptEstimationTrendlineTests {
    /// Groups every 10 ms sent; arrival spacing `arrivalSpacing`: the delay grows by
    /// (arrivalSpacing - 10) per arrivalSpacing ms, so the slope is that ratio.
    @Test(arguments: [
        (10.0, 0.0),
        (12.0, 2.0 / 12.0),
        (15.0, 5.0 / 15.0),
        (8.0, -2.0 / 8.0),
    ])
    func slopeOfLinearRamp(arrivalSpacing: Double, expectedSlope: Double) {
        var trendline = TrendlineEstimator()
        var trend = 0.0
        for i in 1...80 {
            let delta = InterGroupDelta(sendDeltaNanoseconds: 10 * Int64(ms), arrivalDeltaNanoseconds: Int64(arrivalSpacing * 1e6),
                                        sizeDelta: 0, arrivalNanoseconds: UInt64(Double(i) * arrivalSpacing * 1e6), sendNanoseconds: UInt64(i) * 10 * ms)
            trend = trendline.update(delta)
        }
        #expect(abs(trendline.slope - expectedSlope) < 0.002, "slope \(trendline.slope)")
        #expect(abs(trend - expectedSlope * 20 * 4) < 0.2, "trend \(trend)")
    }

    @Test func sampleCountScalesEarlyTrend() {
        var trendline = TrendlineEstimator()
        var trends: [Double] = []
        for i in 1...25 {
            let delta = InterGroupDelta(sendDeltaNanoseconds: 10 * Int64(ms), arrivalDeltaNanoseconds: 15 * Int64(ms),
                                        sizeDelta: 0, arrivalNanoseconds: UInt64(i) * 15 * ms, sendNanoseconds: UInt64(i) * 10 * ms)
            trends.append(trendline.update(delta))
        }
        #expect(trends[0] == 0, "one point has no slope")
        #expect(trends[2] > 0 && trends[2] < trends[10] && trends[10] < trends[24])
        trendline.reset()
        #expect(trendline.samples == 0 && trendline.modifiedTrend == 0)
    }

    /// Alternating jitter (+-3 ms) around a steady path averages out to a small trend.
    @Test func jitterDoesNotLookLikeAQueue() {
        var trendline = TrendlineEstimator()
        var arrival: UInt64 = 0
        var worst = 0.0
        for i in 1...200 {
            let spacing: Int64 = i % 2 == 0 ? 13 : 7
            arrival += UInt64(spacing) * ms
            let delta = InterGroupDelta(sendDeltaNanoseconds: 10 * Int64(ms), arrivalDeltaNanoseconds: spacing * Int64(ms),
                                        sizeDelta: 0, arrivalNanoseconds: arrival, sendNanoseconds: UInt64(i) * 10 * ms)
            let trend = trendline.update(delta)
            if i > 20 { worst = max(worst, abs(trend)) }
        }
        #expect(worst < 6, "below the threshold floor: \(worst)")
    }
}

/// The over-use detector and its adaptive threshold (§5.4).
@Suite struct AdaptEstimationDetectorTests {
    /// (trend per step, send delta per step ms, expected usage per step)
    @Test(arguments: [
        ("persists 10 ms and rises", [20.0, 20, 21], 5.0, [BandwidthUsage.normal, .overusing, .overusing]),
        ("one long sample is not enough", [20.0, 21], 20.0, [BandwidthUsage.normal, .overusing]),
        ("falling trend never signals", [30.0, 29, 28, 27], 5.0, [BandwidthUsage.normal, .normal, .normal, .normal]),
        ("stops rising: back to normal", [20.0, 21, 22, 21], 5.0, [BandwidthUsage.normal, .overusing, .overusing, .normal]),
        ("interrupted persistence restarts", [20.0, 0, 20, 21], 5.0, [BandwidthUsage.normal, .normal, .normal, .overusing]),
        ("under-use", [-20.0, -20, 0], 5.0, [BandwidthUsage.underusing, .underusing, .normal]),
    ] as [(String, [Double], Double, [BandwidthUsage])])
    func usage(name: String, trends: [Double], sendDelta: Double, expected: [BandwidthUsage]) {
        var detector = OveruseDetector()
        var out: [BandwidthUsage] = []
        for (i, trend) in trends.enumerated() {
            out.append(detector.detect(trend: trend, sendDeltaMilliseconds: sendDelta, now: UInt64(i) * 5 * ms))
        }
        #expect(out == expected, "\(name)")
    }

    /// del_var_th(i) = del_var_th(i-1) + dt * K * (|m| - del_var_th(i-1)).
    @Test(arguments: [
        // |m| = 20 > 12.5: K_u = 0.01; 10 steps of 10 ms: 20 - 7.5 * 0.9^10.
        ("grows with K_u", 20.0, 10 * ms, 10, 20 - 7.5 * 0.34867844),
        // |m| = 0: K_d = 0.00018; 10 steps of 100 ms: 12.5 * 0.982^10.
        ("shrinks with K_d", 0.0, 100 * ms, 10, 12.5 * 0.83390),
        // The time step is capped at 100 ms: same as above with 1 s steps.
        ("time step capped", 0.0, 1000 * ms, 10, 12.5 * 0.83390),
        // |m| - th > 15: a spike, no update.
        ("spike ignored", 40.0, 10 * ms, 10, 12.5),
        // Clamped at 6 ms after a long quiet period.
        ("floor 6", 0.0, 100 * ms, 2000, 6),
        // Negative trends count by magnitude.
        ("magnitude", -20.0, 10 * ms, 10, 20 - 7.5 * 0.34867844),
    ] as [(String, Double, UInt64, Int, Double)])
    func threshold(name: String, trend: Double, step: UInt64, steps: Int, expected: Double) {
        var detector = OveruseDetector()
        for i in 0...steps { _ = detector.detect(trend: trend, sendDeltaMilliseconds: 5, now: UInt64(i) * step) }
        #expect(abs(detector.thresholdMilliseconds - expected) < 0.01, "\(name): \(detector.thresholdMilliseconds)")
    }

    @Test func ceiling600() {
        var detector = OveruseDetector()
        var trend = 20.0
        for i in 0...5000 {
            _ = detector.detect(trend: trend, sendDeltaMilliseconds: 5, now: UInt64(i) * 100 * ms)
            trend = detector.thresholdMilliseconds + 10   // keep chasing it within the 15 ms step rule
        }
        #expect(detector.thresholdMilliseconds == 600)
    }
}

/// The AIMD rate controller (§5.5).
@Suite struct AdaptEstimationAIMDTests {
    private static func controller(_ initial: Int = 1_000_000) -> AIMDRateController {
        AIMDRateController(configuration: .init(initialBitrate: initial, minBitrate: 50_000, maxBitrate: 10_000_000))
    }

    @Test(arguments: [
        (RateControlState.hold, BandwidthUsage.overusing, RateControlState.decrease),
        (.increase, .overusing, .decrease),
        (.decrease, .overusing, .decrease),
        (.hold, .normal, .increase),
        (.increase, .normal, .increase),
        (.decrease, .normal, .hold),
        (.hold, .underusing, .hold),
        (.increase, .underusing, .hold),
        (.decrease, .underusing, .hold),
    ])
    func stateTable(from: RateControlState, usage: BandwidthUsage, to: RateControlState) {
        #expect(AIMDRateController.transition(from: from, on: usage) == to)
    }

    /// (steps of `usage` with acknowledged bitrate, each 100 ms apart) -> estimate after.
    @Test(arguments: [
        // Start-up ramp: 1.25/s for 1 s (10 steps of 100 ms; the first step has no elapsed time).
        ("startup 1.25/s", [(BandwidthUsage.normal, 1_000_000)], 11, 1_250_000.0, 1.0),
        // Decrease: 0.85 x acknowledged.
        ("decrease to beta R", [(BandwidthUsage.overusing, 800_000)], 1, 680_000, 1.0),
        // Bound: acknowledged 100 kbps caps growth at max(estimate, 160 kbps): no growth.
        ("bounded by 1.5 R + 10k", [(BandwidthUsage.normal, 100_000)], 11, 1_000_000, 1.0),
        // Hold keeps the estimate.
        ("hold", [(BandwidthUsage.underusing, 1_000_000)], 11, 1_000_000, 1.0),
    ] as [(String, [(BandwidthUsage, Int)], Int, Double, Double)])
    func steps(name: String, pattern: [(BandwidthUsage, Int)], repeats: Int, expected: Double, tolerancePercent: Double) {
        var aimd = Self.controller()
        var now: UInt64 = 0
        for _ in 0..<repeats {
            for (usage, acked) in pattern {
                aimd.update(usage: usage, acknowledgedBitrate: acked, now: now)
                now += 100 * ms
            }
        }
        #expect(abs(aimd.estimate - expected) / expected * 100 < tolerancePercent, "\(name): \(aimd.estimate)")
    }

    @Test func multiplicativeAfterFirstDecreaseIsEightPercent() {
        var aimd = Self.controller()
        aimd.update(usage: .overusing, acknowledgedBitrate: 1_000_000, now: 0)        // 850 k, avg max = 1 M
        aimd.update(usage: .normal, acknowledgedBitrate: 1_000_000, now: 100 * ms)     // -> hold
        #expect(aimd.state == .hold)
        // Far above the average at the decrease (3 sigma = 15 %): the average resets, multiplicative.
        aimd.update(usage: .normal, acknowledgedBitrate: 2_000_000, now: 200 * ms)     // -> increase
        let start = aimd.estimate
        for i in 3...12 { aimd.update(usage: .normal, acknowledgedBitrate: 2_000_000, now: UInt64(i) * 100 * ms) }
        #expect(!aimd.nearConvergence)
        #expect(abs(aimd.estimate / start - 1.08) < 0.002, "\(aimd.estimate / start)")
    }

    @Test func additiveNearConvergence() {
        var aimd = Self.controller()
        aimd.setRTT(nanoseconds: 100 * ms)    // response time 200 ms
        aimd.update(usage: .overusing, acknowledgedBitrate: 1_000_000, now: 0)        // 850 k
        aimd.update(usage: .normal, acknowledgedBitrate: 1_000_000, now: 100 * ms)     // hold
        aimd.update(usage: .normal, acknowledgedBitrate: 1_000_000, now: 200 * ms)     // increase, near
        #expect(aimd.nearConvergence)
        let before = aimd.estimate
        aimd.update(usage: .normal, acknowledgedBitrate: 1_000_000, now: 300 * ms)
        // 850 k / 30 = 28.3 kbit per frame = 3 packets of 9.44 kbit; alpha = 0.5 * 100/200 = 0.25.
        let expected = max(1000, 0.25 * (before / 30) / ((before / 30 / 9600).rounded(.up)))
        #expect(abs(aimd.estimate - before - expected) < 1, "\(aimd.estimate - before) vs \(expected)")
    }

    @Test func oneDecreasePerResponseTime() {
        var aimd = Self.controller()
        aimd.setRTT(nanoseconds: 50 * ms)     // response time 150 ms
        aimd.update(usage: .overusing, acknowledgedBitrate: 1_000_000, now: 0)
        #expect(Int(aimd.estimate) == 850_000)
        aimd.update(usage: .overusing, acknowledgedBitrate: 600_000, now: 100 * ms)
        #expect(Int(aimd.estimate) == 850_000, "within the response time")
        aimd.update(usage: .overusing, acknowledgedBitrate: 600_000, now: 160 * ms)
        #expect(Int(aimd.estimate) == 510_000)
        // A decrease never raises the estimate.
        aimd.update(usage: .overusing, acknowledgedBitrate: 5_000_000, now: 400 * ms)
        #expect(Int(aimd.estimate) == 510_000)
    }

    /// Drain (q above 100 ms), its restore, and the 200 ms latency budget.
    @Test(arguments: [
        // (queueing delay at the over-use ms, estimate after the cut, after the queue is gone)
        (0.0, 850_000, 850_000),       // plain beta x R
        (100.0, 850_000, 850_000),     // at the target: no drain
        (300.0, 650_000, 850_000),     // 0.85 - 0.2: drains, then restores to 0.85 R
        (900.0, 500_000, 850_000),     // floor 0.5 R
    ])
    func drain(queueMilliseconds: Double, afterCut: Int, afterDrain: Int) {
        var aimd = Self.controller(2_000_000)
        aimd.update(usage: .overusing, acknowledgedBitrate: 1_000_000, queueingDelayNanoseconds: UInt64(queueMilliseconds * 1e6), now: 0)
        #expect(Int(aimd.estimate) == afterCut)
        aimd.update(usage: .underusing, acknowledgedBitrate: 1_000_000, queueingDelayNanoseconds: 150 * ms, now: 100 * ms)
        #expect(Int(aimd.estimate) == afterCut, "still draining")
        aimd.update(usage: .underusing, acknowledgedBitrate: 1_000_000, queueingDelayNanoseconds: 20 * ms, now: 200 * ms)
        #expect(Int(aimd.estimate) == afterDrain)
    }

    @Test func latencyBudget() {
        var aimd = Self.controller()
        aimd.update(usage: .normal, acknowledgedBitrate: 1_000_000, queueingDelayNanoseconds: 150 * ms, now: 0)
        aimd.update(usage: .normal, acknowledgedBitrate: 1_000_000, queueingDelayNanoseconds: 150 * ms, now: 500 * ms)
        #expect(Int(aimd.estimate) == 1_000_000, "no increase above the 100 ms target")
        #expect(aimd.state == .increase)
        aimd.update(usage: .normal, acknowledgedBitrate: 1_000_000, queueingDelayNanoseconds: 250 * ms, now: 600 * ms)
        #expect(aimd.state == .decrease, "beyond 200 ms counts as over-use")
        #expect(Int(aimd.estimate) == 700_000)   // 0.85 - 0.15 drain
        var off = AIMDRateController(configuration: .init(initialBitrate: 1_000_000, minBitrate: 50_000, maxBitrate: 10_000_000,
                                                          queueDelayLimitNanoseconds: nil))
        off.update(usage: .normal, acknowledgedBitrate: 1_000_000, queueingDelayNanoseconds: 900 * ms, now: 0)
        #expect(off.state == .increase)
    }

    @Test func bounds() {
        var aimd = AIMDRateController(configuration: .init(initialBitrate: 100_000, minBitrate: 80_000, maxBitrate: 120_000))
        aimd.update(usage: .overusing, acknowledgedBitrate: 10_000, now: 0)
        #expect(Int(aimd.estimate) == 80_000)
        for i in 1...200 { aimd.update(usage: .normal, acknowledgedBitrate: 1_000_000, now: UInt64(i) * 100 * ms) }
        #expect(Int(aimd.estimate) == 120_000)
    }
}

/// Standing queueing delay over the minimum one-way offset (RFC 6817-style base delay).
@Suite struct AdaptEstimationQueueDelayTests {
    @Test func excessOverTheBaseDelay() {
        var estimator = QueueDelayEstimator()
        estimator.add(packet(0, send: 0, arrival: 10))
        #expect(estimator.queueingDelayNanoseconds == 0)
        estimator.add(packet(1, send: 10, arrival: 25))
        #expect(estimator.queueingDelayNanoseconds == 5 * ms)
        estimator.add(packet(2, send: 20, arrival: nil))          // lost: ignored
        estimator.add(packet(3, send: 30, arrival: 38))           // a new, smaller base
        #expect(estimator.queueingDelayNanoseconds == 0)
        estimator.add(packet(4, send: 40, arrival: 60))
        #expect(estimator.queueingDelayNanoseconds == 12 * ms)
    }

    @Test func oldMinimaAgeOut() {
        var estimator = QueueDelayEstimator(configuration: .init(bucketNanoseconds: 1_000_000_000, bucketCount: 2))
        estimator.add(packet(0, send: 0, arrival: 10))            // base 10 ms
        for i in 1...30 {                                         // the path lengthens to 50 ms
            let send = Double(i) * 100
            estimator.add(packet(UInt64(i), send: send, arrival: send + 50))
        }
        #expect(estimator.queueingDelayNanoseconds == 0, "after two buckets the 10 ms base is gone")
        estimator.reset()
        #expect(estimator.queueingDelayNanoseconds == 0)
    }
}

/// Acknowledged bitrate (§5.5 R_hat).
@Suite struct AdaptEstimationAcknowledgedTests {
    @Test(arguments: [
        // (packet spacing ms, size, count, lose every nth (0 = none), expected bits/s)
        (10.0, 1200, 200, 0, 960_000),
        (5.0, 1000, 400, 0, 1_600_000),
        (10.0, 1200, 200, 4, 720_000),      // a quarter lost: lost packets count nothing
        (20.0, 500, 20, 0, 200_000),         // only 380 ms seen: rate over the covered span
    ] as [(Double, Int, Int, Int, Int)])
    func bitrate(spacing: Double, size: Int, count: Int, loseEvery: Int, expected: Int) throws {
        var estimator = AcknowledgedBitrateEstimator()
        for i in 0..<count {
            let lost = loseEvery > 0 && i % loseEvery == 0
            estimator.add(packet(UInt64(i), send: Double(i) * spacing, arrival: lost ? nil : Double(i) * spacing, size: size))
        }
        let bitrate = try #require(estimator.bitrate)
        #expect(abs(Double(bitrate - expected)) / Double(expected) < 0.06, "\(bitrate)")
    }

    @Test func nilUntilMinimumSpanAndOutOfOrderTolerated() {
        var estimator = AcknowledgedBitrateEstimator()
        estimator.add(packet(0, send: 0, arrival: 0))
        estimator.add(packet(1, send: 10, arrival: 50))
        #expect(estimator.bitrate == nil)
        estimator.add(packet(2, send: 20, arrival: 40))   // reordered
        estimator.add(packet(3, send: 30, arrival: 100))
        #expect(estimator.bitrate == 4 * 1200 * 8 * 10)
    }

    @Test func fullRingUsesTheSpanItHolds() throws {
        var estimator = AcknowledgedBitrateEstimator(configuration: .init(capacity: 16))
        for i in 0..<200 { estimator.add(packet(UInt64(i), send: Double(i), arrival: Double(i))) }   // 1 packet/ms
        let bitrate = try #require(estimator.bitrate)
        #expect(abs(bitrate - 9_600_000) < 700_000, "\(bitrate)")
    }
}

/// Loss-based controller (§6).
@Suite struct AdaptEstimationLossTests {
    @Test(arguments: [
        (0.0, 1.05, LossBasedController.Action.increase),
        (0.019, 1.05, .increase),
        (0.02, 1.0, .hold),
        (0.10, 1.0, .hold),
        (0.11, 1.0, .decreasePending),
        (0.19, 1.0, .decreasePending),
        (0.2, 0.9, .decrease),
        (0.5, 0.75, .decrease),
        (1.0, 0.5, .decrease),
    ])
    func rules(loss: Double, factor: Double, action: LossBasedController.Action) {
        var controller = LossBasedController(initialBitrate: 1_000_000, configuration: .init(minBitrate: 10_000, maxBitrate: 10_000_000))
        #expect(controller.update(fractionLost: loss, now: 0) == action)
        #expect(abs(controller.estimate - 1_000_000 * factor) < 1)
    }

    /// A moderate loss (10-20 %) cuts only when the report before was over 10 % too: one
    /// binomial spike of 5 % random loss is not congestion; a second in a row is.
    @Test(arguments: [
        ([0.12, 0.12], [LossBasedController.Action.decreasePending, .decrease], 1 - 0.06),
        ([0.12, 0.05, 0.12], [.decreasePending, .hold, .decreasePending], 1.0),
        ([0.12, 0.0, 0.15], [.decreasePending, .increase, .decreasePending], 1.05),
        ([0.12, 0.3], [.decreasePending, .decrease], 0.85),
        ([0.3, 0.12], [.decrease, .decreaseSuppressed], 0.85),
    ])
    func moderateLossNeedsTwoReports(losses: [Double], actions: [LossBasedController.Action], factor: Double) {
        var controller = LossBasedController(initialBitrate: 1_000_000, configuration: .init(minBitrate: 10_000, maxBitrate: 10_000_000))
        controller.setRTT(nanoseconds: 100 * ms)   // 200 ms between cuts
        for (index, loss) in losses.enumerated() {
            #expect(controller.update(fractionLost: loss, now: UInt64(index) * 100 * ms) == actions[index], "report \(index)")
        }
        #expect(abs(controller.estimate - 1_000_000 * factor) < 1)
    }

    @Test func ceilingAndPacing() {
        var controller = LossBasedController(initialBitrate: 1_000_000, configuration: .init(minBitrate: 10_000, maxBitrate: 10_000_000))
        controller.update(fractionLost: 0, ceiling: 1_020_000, now: 0)
        #expect(Int(controller.estimate) == 1_020_000)
        controller.update(fractionLost: 0, ceiling: 900_000, now: 0)
        #expect(Int(controller.estimate) == 1_020_000, "a ceiling stops growth, it does not cut")
        controller.setRTT(nanoseconds: 100 * ms)   // 200 ms between cuts
        #expect(controller.update(fractionLost: 0.2, now: 1000 * ms) == .decrease)
        #expect(controller.update(fractionLost: 0.2, now: 1100 * ms) == .decreaseSuppressed)
        #expect(controller.update(fractionLost: 0.2, now: 1200 * ms) == .decrease)
        #expect(abs(controller.estimate - 1_020_000 * 0.81) < 1)
    }
}

/// The combined estimator's plumbing.
@Suite struct AdaptEstimationEstimatorTests {
    @Test func targetIsMinimumOfDelayAndLoss() {
        var estimator = BandwidthEstimator(configuration: .init(initialBitrate: 1_000_000, minBitrate: 100_000, maxBitrate: 5_000_000))
        #expect(estimator.targetBitrate == 1_000_000)
        #expect(estimator.state.lossBasedBitrate == 5_000_000, "no limit before any loss")
        // The first cut starts from the rate in force (no acknowledged bitrate yet: the
        // delay-based estimate): 1 M x (1 - 0.2).
        estimator.onLossReport(fractionLost: 0.4, now: 0)
        #expect(estimator.targetBitrate == 800_000)
        #expect(estimator.state.lossBasedBitrate == 800_000)
        #expect(estimator.state.delayBasedBitrate == 1_000_000)
        estimator.onRTT(nanoseconds: 30 * ms)
        #expect(estimator.state.rttNanoseconds == 30 * ms)
    }

    @Test func feedbackLossOverridesReceiverReports() {
        var estimator = BandwidthEstimator(configuration: .init(initialBitrate: 1_000_000, minBitrate: 100_000, maxBitrate: 5_000_000))
        // 50 packets, 10 lost (20 %): the loss-based estimate (at the maximum until now) is cut
        // by 10 % from the acknowledged bitrate, 40 x 9600 bits over 480 ms = 800 kbps.
        var results: [PacketResult] = []
        for i in 0..<50 {
            let time = Double(i) * 10
            results.append(packet(UInt64(i), send: time, arrival: i % 5 == 0 ? nil : time))
        }
        estimator.onTransportFeedback(results, now: 500 * ms)
        #expect(estimator.state.lossFraction == 0.2)
        #expect(estimator.state.acknowledgedBitrate == 800_000)
        #expect(estimator.state.lossBasedBitrate == 720_000)
        #expect(estimator.targetBitrate == 720_000)
        // A receiver report within 2 s of feedback loss is ignored.
        estimator.onLossReport(fractionLost: 0.5, now: 1000 * ms)
        #expect(estimator.state.lossBasedBitrate == 720_000)
        estimator.onLossReport(fractionLost: 0.5, now: 3000 * ms)
        #expect(estimator.state.lossBasedBitrate == 540_000)
    }
}
