import Testing
import OTMedia

/// The router's per-subscriber layer choice: fit, preferences, hysteresis and the
/// keyframe-gated spatial switch.
@Suite struct AdaptQualityLayerSelectorTests {
    /// Three simulcast encodings with three temporal layers (cumulative bitrates).
    static let layers = StreamLayers(spatial: [
        SpatialLayerInfo(width: 320, height: 180, bitrates: [50_000, 80_000, 120_000]),
        SpatialLayerInfo(width: 640, height: 360, bitrates: [150_000, 250_000, 400_000]),
        SpatialLayerInfo(width: 1280, height: 720, bitrates: [500_000, 900_000, 1_500_000]),
    ], frameRates: [7.5, 15, 30])

    @Test(arguments: [
        // (estimate, preferred width, height, frame rate, expected) — budget is 0.9 × estimate.
        (3_000_000, 0, 0, 0.0, "S2T2"),
        (1_200_000, 0, 0, 0.0, "S2T1"),      // 1.08M: 900k fits, 1.5M does not
        (600_000, 0, 0, 0.0, "S1T2"),        // 540k: S2T0 (500k) fits but is 7.5 fps: resolution drops first
        (300_000, 0, 0, 0.0, "S1T1"),
        (150_000, 0, 0, 0.0, "S0T2"),        // 135k: S1T0 (150k) does not fit
        (80_000, 0, 0, 0.0, "S0T0"),         // 72k: only TL0 of the smallest
        (10_000, 0, 0, 0.0, "S0T0"),         // nothing fits: the smallest layer anyway
        (3_000_000, 320, 180, 7.5, "S0T0"),  // the acceptance preference: TL0 of the smallest encoding
        (3_000_000, 640, 360, 0.0, "S1T2"),
        (3_000_000, 640, 480, 0.0, "S1T2"),  // 1280x720 exceeds 640x480
        (3_000_000, 1280, 720, 15.0, "S2T1"),
        (3_000_000, 0, 0, 7.5, "S2T0"),      // 7.5 fps preferred: TL0 allowed on every encoding
        (400_000, 0, 0, 7.5, "S1T0"),        // 360k: S2T0 (500k) does not fit
        (3_000_000, 100, 100, 0.0, "S0T2"),  // smaller than every encoding: the smallest
        (3_000_000, 0, 0, 10.0, "S2T0"),     // 10 fps: TL0 (7.5) is the highest not above it
    ] as [(Int, Int, Int, Double, String)])
    func bestChoiceTable(estimate: Int, width: Int, height: Int, rate: Double, expected: String) {
        let preferences = LayerPreferences(maxWidth: width, maxHeight: height, maxFrameRate: rate)
        let selector = LayerSelector(layers: Self.layers, preferences: preferences)
        #expect(selector.bestChoice(budget: Int(Double(estimate) * 0.9)).description == expected)
    }

    @Test func preferencesChosenWhileForwarding() {
        var selector = LayerSelector(layers: Self.layers)
        _ = selector.update(estimate: 3_000_000, now: 0)
        _ = selector.keyframeArrived(spatial: 2)
        #expect(selector.forwarding == LayerChoice(spatial: 2, temporal: 2))
        // The subscriber sets preferredFrameRate = 7.5 and preferredResolution = 320x180.
        selector.setPreferences(LayerPreferences(maxWidth: 320, maxHeight: 180, maxFrameRate: 7.5))
        #expect(selector.update(estimate: 3_000_000, now: 1) == .switchPending(keyframeNeeded: true))
        #expect(selector.forwarding == LayerChoice(spatial: 2, temporal: 0), "the frame rate drops at once, before the keyframe")
        #expect(selector.keyframeArrived(spatial: 0) == .switched(LayerChoice(spatial: 0, temporal: 0)))
        // 50 kbps instead of 1.5 Mbps: the forwarded rate drops accordingly.
        #expect(Self.layers.bitrate(spatial: 0, temporal: 0) * 30 == Self.layers.bitrate(spatial: 2, temporal: 2))
    }

    @Test func keyframeGatedSpatialSwitches() {
        var selector = LayerSelector(layers: Self.layers)
        let s = UInt64(1_000_000_000)
        // Start: nothing forwarded until the first keyframe of the chosen encoding.
        #expect(selector.update(estimate: 3_000_000, now: 0) == .switchPending(keyframeNeeded: true))
        #expect(selector.forwarding == nil && selector.pendingSpatial == 2)
        #expect(selector.keyframeArrived(spatial: 1) == .unchanged, "a keyframe of another encoding does not complete it")
        #expect(selector.keyframeArrived(spatial: 2) == .switched(LayerChoice(spatial: 2, temporal: 2)))
        #expect(selector.update(estimate: 3_000_000, now: 1 * s) == .unchanged)

        // Down: decided at once, pending until S1's keyframe; meanwhile S2 drops to TL0 to fit.
        #expect(selector.update(estimate: 600_000, now: 2 * s) == .switchPending(keyframeNeeded: true))
        #expect(selector.forwarding == LayerChoice(spatial: 2, temporal: 0) && selector.pendingSpatial == 1)
        #expect(selector.update(estimate: 600_000, now: 2 * s + 100) == .switchPending(keyframeNeeded: true), "still pending")
        #expect(selector.keyframeArrived(spatial: 1) == .switched(LayerChoice(spatial: 1, temporal: 2)))

        // Temporal: at once, no keyframe.
        #expect(selector.update(estimate: 300_000, now: 3 * s) == .switched(LayerChoice(spatial: 1, temporal: 1)))
        #expect(selector.update(estimate: 600_000, now: 4 * s) == .switched(LayerChoice(spatial: 1, temporal: 2)))

        // Up: only after 3 s of room for S2 with 20 % headroom.
        #expect(selector.update(estimate: 3_000_000, now: 10 * s) == .unchanged)
        #expect(selector.update(estimate: 3_000_000, now: 12 * s) == .unchanged)
        #expect(selector.update(estimate: 3_000_000, now: 13 * s) == .switchPending(keyframeNeeded: true))
        #expect(selector.pendingSpatial == 2 && selector.forwarding == LayerChoice(spatial: 1, temporal: 2))
        // The estimate falls before the keyframe: the up-switch is cancelled.
        #expect(selector.update(estimate: 500_000, now: 13 * s + 100) == .unchanged)
        #expect(selector.pendingSpatial == nil)
        #expect(selector.keyframeArrived(spatial: 2) == .unchanged, "a late keyframe does not switch")
    }

    @Test func upSwitchNeedsHeadroomNotJustFit() {
        var selector = LayerSelector(layers: Self.layers)
        _ = selector.update(estimate: 600_000, now: 0)
        _ = selector.keyframeArrived(spatial: 1)
        // 1.1M: S2T1 (900k) fits the 990k budget, but not with 20 % headroom (990k / 1.2 =
        // 825k), so the selector stays on S1 however long the estimate holds.
        #expect(selector.bestChoice(budget: 990_000) == LayerChoice(spatial: 2, temporal: 1))
        for second in 1...30 {
            #expect(selector.update(estimate: 1_100_000, now: UInt64(second) * 1_000_000_000) == .unchanged)
        }
        #expect(selector.forwarding == LayerChoice(spatial: 1, temporal: 2))
    }

    /// A noisy estimate hovering around the S1/S2 boundary for a simulated minute: spatial
    /// switches (each costing a keyframe) stay rare.
    @Test(arguments: [UInt64(11), 12, 13])
    func noisyEstimateRarelySwitchesSpatial(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var selector = LayerSelector(layers: Self.layers)
        _ = selector.update(estimate: 1_000_000, now: 0)
        _ = selector.keyframeArrived(spatial: 2)
        var spatialSwitches = 0, crossings = 0, lastFits: Bool?
        var now: UInt64 = 0
        while now <= 60_000_000_000 {
            // Around 1.0M: S2T1 (900k) fits the 0.9 × estimate budget at ≥ 1.0M only.
            let estimate = Int(1_000_000 * (1 + 0.2 * random.symmetric()))
            let fits = estimate >= 1_000_000
            if let l = lastFits, l != fits { crossings += 1 }
            lastFits = fits
            if case .switchPending = selector.update(estimate: estimate, now: now), let target = selector.pendingSpatial {
                if case .switched = selector.keyframeArrived(spatial: target) { spatialSwitches += 1 }
            }
            now += 100_000_000
        }
        #expect(crossings > 200)
        // Down at the first dip; back up needs 3 s with ≥ 1.2 × 1.11M = 1.33M, above the noise.
        #expect(spatialSwitches == 1)
        #expect(selector.forwarding?.spatial == 1)
    }
}
