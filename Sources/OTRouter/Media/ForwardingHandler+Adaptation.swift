import OTMedia

/// The legs' adaptation, run by the forwarding thread every `adaptationInterval`: the
/// layer meter's window, then per subscriber leg the `LayerSelector` (estimate,
/// preferences, measured layers → encoding and temporal layers, keyframe requests for a
/// spatial switch), audio fallback (video off below what the leg can carry, events to the
/// signaling plane, back on with a keyframe), and whether the leg probes (padding while
/// fallback probes for recovery, or while the leg is application-limited below what its
/// preferences allow). No lock; allocation only when the meter rebuilds its layers (once
/// a second) and on an event.
extension ForwardingHandler {
    /// Packets at most per leg per probe round.
    static let probeBurst = 8
    /// Below this rate (bits/s) the publisher is taken not to send video.
    static let videoFlowing = 20_000
    /// Between two probe rounds while a leg probes.
    static let probeTick: UInt64 = 20_000_000

    func adaptLegs(now: UInt64) {
        _ = meter.roll(now: now, encodings: publisher.encodingSSRCs.count, widths: publisher.encodingWidth,
                       heights: publisher.encodingHeight)
        for leg in subscribers { adapt(leg, now: now) }
    }

    private func adapt(_ leg: SubscriberLeg, now: UInt64) {
        let estimate = leg.adaptation.estimate
        leg.adaptation.measureSent(now: now)
        var appLimited = false
        let videoWanted = leg.takesVideo.load(ordering: .relaxed) && !leg.adaptation.fallbackOff
        if leg.hasVideo, let layers = meter.layers {
            selectLayers(leg, layers: layers, estimate: estimate, videoWanted: videoWanted, now: now)
            if let selector = leg.adaptation.selector, let current = selector.forwarding {
                appLimited = videoWanted && selector.bestChoice(budget: .max) != current
            }
        }
        // Judged only while the publisher sends video and the subscriber is reachable: a
        // stream without video, or a leg not heard from yet, says nothing about the path.
        if !group.audioFallbackAllowed.load(ordering: .relaxed) {
            // The publisher turned subscriber audio fallback off: video stays on (a leg
            // already off comes back), only layers adapt.
            if leg.adaptation.fallbackOff {
                leg.adaptation.fallbackOff = false
                leg.adaptation.fallback = AudioFallbackController(configuration: LegAdaptation.fallbackConfiguration)
                group.requestKeyframe(encoding: leg.route.spatial)
                group.report(subscriberId: leg.subscriberId, state: "enabled")
            }
        } else if leg.hasVideo, leg.takesVideo.load(ordering: .relaxed), leg.address != nil, meter.videoRate >= Self.videoFlowing {
            let audio = leg.takesAudio.load(ordering: .relaxed) ? meter.audioRate : 0
            let loss = leg.adaptation.estimator.state.lossFraction
            let available = leg.adaptation.fallbackBitrate(estimate: estimate) - audio
            if let event = leg.adaptation.fallback.update(videoBitrate: available, lossFraction: loss, now: now) {
                switch event {
                case .warning: group.report(subscriberId: leg.subscriberId, state: "warning")
                case .warningLifted: group.report(subscriberId: leg.subscriberId, state: "warningLifted")
                case .videoDisabled:
                    leg.adaptation.fallbackOff = true
                    group.report(subscriberId: leg.subscriberId, state: "disabled")
                case .videoEnabled:
                    leg.adaptation.fallbackOff = false
                    group.requestKeyframe(encoding: leg.route.spatial)
                    group.report(subscriberId: leg.subscriberId, state: "enabled")
                }
            }
        }
        planProbe(leg, estimate: estimate, appLimited: appLimited, now: now)
        let status = leg.status
        status.estimate.store(estimate, ordering: .relaxed)
        status.spatial.store(leg.route.spatial, ordering: .relaxed)
        status.temporal.store(min(leg.route.temporal, leg.route.targetTemporal), ordering: .relaxed)
        status.disabled.store(leg.adaptation.fallbackOff, ordering: .relaxed)
        status.feedbacks.store(leg.adaptation.feedbacks, ordering: .relaxed)
        status.framesDropped.store(leg.route.framesDropped, ordering: .relaxed)
        status.switches.store(leg.route.switches, ordering: .relaxed)
        status.probes.store(leg.adaptation.probesSent, ordering: .relaxed)
    }

    /// `videoWanted`: the leg forwards video now; a switch waiting on a leg that does not
    /// asks the publisher for no keyframe (it could not complete before video resumes,
    /// which asks for one anyway).
    private func selectLayers(_ leg: SubscriberLeg, layers: StreamLayers, estimate: Int, videoWanted: Bool, now: UInt64) {
        if leg.adaptation.selector == nil {
            leg.adaptation.selector = LayerSelector(layers: layers)
            leg.adaptation.layersSeen = meter.generation
        } else if leg.adaptation.layersSeen != meter.generation {
            leg.adaptation.selector!.setLayers(layers)
            leg.adaptation.layersSeen = meter.generation
        }
        let generation = leg.preferencesGeneration.load(ordering: .acquiring)
        if generation != leg.adaptation.preferencesSeen {
            leg.adaptation.preferencesSeen = generation
            let width = leg.preferredWidth.load(ordering: .relaxed)
            let height = leg.preferredHeight.load(ordering: .relaxed)
            let rate = leg.preferredFrameRateMillihertz.load(ordering: .relaxed)
            leg.adaptation.selector!.setPreferences(LayerPreferences(maxWidth: width > 0 ? width : nil,
                                                                     maxHeight: height > 0 ? height : nil,
                                                                     maxFrameRate: rate > 0 ? Double(rate) / 1000 : nil))
        }
        if leg.route.switchedTo >= 0 {
            _ = leg.adaptation.selector!.keyframeArrived(spatial: leg.route.switchedTo)
            leg.route.switchedTo = -1
        }
        switch leg.adaptation.selector!.update(estimate: estimate, now: now) {
        case .switchPending(let keyframeNeeded):
            let target = leg.adaptation.selector!.pendingSpatial ?? leg.route.spatial
            if target == leg.route.spatial {
                // Already forwarding that encoding: nothing to wait for.
                _ = leg.adaptation.selector!.keyframeArrived(spatial: target)
                leg.route.pendingSpatial = -1
            } else {
                leg.route.pendingSpatial = target
                if keyframeNeeded, videoWanted { group.requestKeyframe(encoding: target) }
            }
        case .switched, .unchanged:
            leg.route.pendingSpatial = -1
        }
        if let choice = leg.adaptation.selector!.forwarding { leg.route.targetTemporal = choice.temporal }
    }

    /// Padding while audio fallback probes for recovery, and in bursts (2 s every 6 s)
    /// while the leg could take a richer layer than its estimate allows: the estimate
    /// cannot grow far above what the leg carries (GCC caps it near 1.5 × the
    /// acknowledged rate), so without probes a leg held low would stay low.
    private func planProbe(_ leg: SubscriberLeg, estimate: Int, appLimited: Bool, now: UInt64) {
        if leg.adaptation.fallback.isProbing {
            leg.adaptation.probeRate = LegAdaptation.fallbackProbeRate
            return
        }
        if leg.adaptation.probeRate > 0, now < leg.adaptation.probeUntil { return }
        leg.adaptation.probeRate = 0
        guard appLimited, !leg.adaptation.fallbackOff, leg.adaptation.feedbacks > 0,
              leg.adaptation.estimator.state.lossFraction < 0.02, now >= leg.adaptation.nextLimitedProbe else { return }
        leg.adaptation.probeRate = min(max(estimate / 2, 50_000), 1_500_000)
        leg.adaptation.probeUntil = now + LegAdaptation.limitedProbeDuration
        leg.adaptation.nextLimitedProbe = now + LegAdaptation.limitedProbeInterval
    }

    /// Sends each probing leg its share of padding since the last round; returns when to
    /// run again.
    func sendProbes(now: UInt64) -> UInt64 {
        var probing = false
        for leg in subscribers {
            guard leg.adaptation.probeRate > 0, let address = leg.address else {
                leg.adaptation.probeLast = now
                leg.adaptation.probeCredit = 0
                continue
            }
            probing = true
            let elapsed = min(now &- leg.adaptation.probeLast, 100_000_000)
            leg.adaptation.probeLast = now
            leg.adaptation.probeCredit += Double(leg.adaptation.probeRate) * Double(elapsed) / 8e9
            let size = 12 + LegAdaptation.probePadding
            var count = 0
            while leg.adaptation.probeCredit >= Double(size), count < Self.probeBurst, let out = leg.pool.take() {
                leg.adaptation.probeCredit -= Double(size)
                count += 1
                let region = out.writableBytes
                let p = region.baseAddress!
                p.storeBytes(of: 0xA0, as: UInt8.self)  // V=2, P=1
                p.storeBytes(of: RTPProbe.payloadType, toByteOffset: 1, as: UInt8.self)
                WireBytes.store16(leg.adaptation.probeSequence, p, 2)
                leg.adaptation.probeSequence &+= 1
                WireBytes.store32(UInt32(truncatingIfNeeded: now / 11_111), p, 4)
                WireBytes.store32(RTPProbe.ssrc, p, 8)
                (p + 12).initializeMemory(as: UInt8.self, repeating: 0, count: LegAdaptation.probePadding - 1)
                p.storeBytes(of: UInt8(LegAdaptation.probePadding), toByteOffset: size - 1, as: UInt8.self)
                out.setLength(size)
                send(out, on: leg, to: address, kind: .padding, now: now)
                leg.adaptation.probesSent &+= 1
            }
            if leg.adaptation.probeCredit > Double(size * Self.probeBurst) { leg.adaptation.probeCredit = 0 }
            flush(leg, now: now)
        }
        return now + (probing ? Self.probeTick : Self.adaptationInterval)
    }
}
