import Testing
import OTMedia

/// `BandwidthEstimator.onProbeResult`: while a sender probes, the rate the path delivered
/// (the acknowledged bitrate) lifts the delay-based estimate at once when the path shows
/// no over-use and no standing queue (then the usual climb goes on, within GCC's 1.5 ×
/// acknowledged bound); an estimate already above what was delivered is never lowered.
struct AdaptEstimationProbeTests {
    /// 1200-byte packets every 24 ms (400 kbps) for 2 s, fed back every 100 ms; each
    /// packet's one-way delay grows by `delayGrowth` nanoseconds. `seconds` of it.
    private func estimator(initial: Int = 100_000, delayGrowth: UInt64 = 0, probe: Bool, ticks: Int = 20, lossyTicks: Int = 0,
                           sentBitrate: Int = 400_000) -> BandwidthEstimator {
        var estimator = BandwidthEstimator(configuration: .init(initialBitrate: initial, minBitrate: 30_000, maxBitrate: 2_500_000))
        let ms: UInt64 = 1_000_000
        var results: [PacketResult] = []
        var sequence: UInt64 = 0
        for tick in 1...ticks {
            let now = UInt64(tick) * 100 * ms
            while sequence * 24 * ms < now - 30 * ms {
                let sent = sequence * 24 * ms
                let lost = tick <= lossyTicks && sequence % 3 == 0
                results.append(PacketResult(sequenceNumber: sequence, sendNanoseconds: sent,
                                            arrivalNanoseconds: lost ? nil : sent + 20 * ms + sequence * delayGrowth, size: 1200))
                sequence += 1
            }
            estimator.onTransportFeedback(results, now: now)
            if probe && tick > lossyTicks { estimator.onProbeResult(sentBitrate: sentBitrate, now: now) }
            results.removeAll(keepingCapacity: true)
        }
        return estimator
    }

    @Test func aDeliveredRateAboveTheEstimateLiftsItAtOnce() {
        // 1 s in: the acknowledged window is full; the plain climb is still near its start.
        let plain = estimator(probe: false, ticks: 10).state
        let probed = estimator(probe: true, ticks: 10).state
        let acknowledged = probed.acknowledgedBitrate ?? 0
        #expect(plain.delayBasedBitrate < 200_000, "without the probe result the estimate climbs slowly: \(plain.delayBasedBitrate)")
        #expect(acknowledged >= 360_000 && probed.delayBasedBitrate >= acknowledged * 9 / 10
                    && probed.delayBasedBitrate <= acknowledged * 3 / 2 + 10_000,
                "the probe result lifts it to at least about the delivered 400 kbps: \(probed.delayBasedBitrate) (acknowledged \(acknowledged))")
    }

    @Test func anEstimateAboveTheDeliveredRateIsNotLowered() {
        let plain = estimator(initial: 1_000_000, probe: false).state
        let probed = estimator(initial: 1_000_000, probe: true).state
        #expect(probed.delayBasedBitrate == plain.delayBasedBitrate && probed.delayBasedBitrate > 400_000,
                "\(probed.delayBasedBitrate) vs \(plain.delayBasedBitrate)")
    }

    @Test func theLossBasedPartIsRaisedOnceLossesStop() {
        // 2 s with a third of the packets lost (the loss-based part is cut), then 3 s clean.
        let plain = estimator(initial: 1_000_000, probe: false, ticks: 50, lossyTicks: 20).state
        let probed = estimator(initial: 1_000_000, probe: true, ticks: 50, lossyTicks: 20).state
        #expect(probed.lossFraction < 0.02 && probed.targetBitrate >= 360_000 && probed.targetBitrate > plain.targetBitrate,
                "probed \(probed.targetBitrate) (loss-based \(probed.lossBasedBitrate)) vs plain \(plain.targetBitrate) (loss-based \(plain.lossBasedBitrate))")
    }

    @Test func neverAboveWhatWasSent() {
        // Arrivals say 400 kbps, but the sender claims only 250 kbps went out lately (a
        // draining queue compresses arrivals): the lift stops at what was sent.
        let probed = estimator(probe: true, ticks: 10, sentBitrate: 250_000).state
        #expect(probed.delayBasedBitrate >= 240_000 && probed.delayBasedBitrate < 360_000, "\(probed.delayBasedBitrate)")
    }
}
