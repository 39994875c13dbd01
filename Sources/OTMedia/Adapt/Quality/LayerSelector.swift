/// One spatial encoding of a routed stream (a simulcast layer) as the router measures it.
public struct SpatialLayerInfo: Sendable, Equatable {
    /// Encoded width in pixels.
    public var width: Int
    /// Encoded height in pixels.
    public var height: Int
    /// Bits per second of this encoding when forwarding temporal layers 0…t, indexed by t
    /// (cumulative: `bitrates[2]` is TL0+TL1+TL2). A missing entry means the layer is absent.
    public var bitrates: [Int]

    /// A spatial layer with its cumulative per-temporal-layer bitrates.
    public init(width: Int, height: Int, bitrates: [Int]) {
        self.width = width
        self.height = height
        self.bitrates = bitrates
    }
}

/// The layers a routed stream offers: spatial encodings, smallest first, and the frame rate
/// of each temporal layer set (VP8 temporal layers: TL0 alone, TL0+TL1, TL0+TL1+TL2).
public struct StreamLayers: Sendable, Equatable {
    /// Spatial encodings, smallest first (index 0 is the lowest simulcast layer).
    public var spatial: [SpatialLayerInfo]
    /// Frame rate when forwarding temporal layers 0…t, indexed by t (e.g. [7.5, 15, 30]).
    public var frameRates: [Double]

    /// Layers as the router measures them. Cost: stores the arrays.
    public init(spatial: [SpatialLayerInfo], frameRates: [Double]) {
        self.spatial = spatial
        self.frameRates = frameRates
    }

    /// Bits per second of (spatial, temporal), or `Int.max` when that layer is absent.
    public func bitrate(spatial s: Int, temporal t: Int) -> Int {
        guard spatial.indices.contains(s), spatial[s].bitrates.indices.contains(t) else { return .max }
        return max(0, spatial[s].bitrates[t])
    }
}

/// A (spatial, temporal) layer pair: which simulcast encoding and how many temporal layers of
/// it (0 = TL0 only).
public struct LayerChoice: Sendable, Equatable, CustomStringConvertible {
    /// Index into `StreamLayers.spatial`.
    public var spatial: Int
    /// Highest temporal layer forwarded.
    public var temporal: Int

    /// A choice of spatial encoding and top temporal layer.
    public init(spatial: Int, temporal: Int) {
        self.spatial = spatial
        self.temporal = temporal
    }

    /// `S<spatial>T<temporal>`, e.g. `S0T0`.
    public var description: String { "S\(spatial)T\(temporal)" }
}

/// A subscriber's `preferredResolution` and `preferredFrameRate` at the router: the same
/// bounds a publisher's encoding limit has (nil, and here also ≤ 0, means none).
public typealias LayerPreferences = VideoEncodingLimit

/// What `LayerSelector` asks the router to do.
public enum LayerSelectorResult: Sendable, Equatable {
    /// Nothing changed; keep forwarding `LayerSelector.forwarding`.
    case unchanged
    /// Forward this choice from the next frame on (a temporal change, or a spatial switch
    /// that just completed on its keyframe).
    case switched(LayerChoice)
    /// A spatial switch is waiting for a keyframe on `LayerSelector.pendingSpatial`. Keep
    /// forwarding `LayerSelector.forwarding` (its temporal layer may have just been lowered to
    /// fit meanwhile); `keyframeNeeded` asks for a keyframe on the target encoding (the caller
    /// rate-limits its PLI/FIR requests). Returned on every update until `keyframeArrived`.
    case switchPending(keyframeNeeded: Bool)
}

/// The router's per-subscriber choice of simulcast encoding and temporal layers.
///
/// **Fit.** A layer fits when its bitrate ≤ `utilization` (0.9) × the subscriber leg's
/// estimate (10 % left for audio, RTCP and retransmissions) and it does not exceed the
/// preferences (width and height ≤ `preferredResolution`, frame rate ≤ `preferredFrameRate`;
/// the smallest encoding and TL0 are always allowed).
///
/// **Order.** Candidates are tried from the richest: spatial descending, and within a spatial
/// layer temporal descending, but a spatial layer above the smallest is only used with at
/// least `minimumFrameRate` (15 fps): the router drops resolution before it drops below
/// 15 fps, and only the smallest encoding goes down to TL0 — the same policy as the
/// publisher's `QualityLadder` (a face at lower resolution beats a slideshow). When the
/// preferred frame rate is lower than that, it becomes the minimum (7.5 fps preferred:
/// TL0 of every encoding is allowed).
///
/// **Switching.** Temporal changes apply at once (a VP8 temporal layer can be dropped or
/// added at any frame boundary the router handles). Spatial switches need a keyframe of
/// the target encoding, since simulcast encodings do not reference each other: the selector
/// returns `.switchPending(keyframeNeeded: true)` until `keyframeArrived(spatial:)` names
/// the target. Down-switches are decided at once (while pending, the current encoding's
/// temporal layer drops to fit); up-switches only after the estimate has had room for the
/// richer encoding times `upHeadroom` (1.2) for `upHold` (3 s), because each costs a keyframe
/// and a quick reversal would cost another.
///
/// Pure and clock-injected (`now`: monotonic nanoseconds). O(layers) per update, ≤ 9
/// candidates, no allocation.
public struct LayerSelector: Sendable {
    /// Fit and hysteresis constants (see the type's documentation).
    public struct Configuration: Sendable, Equatable {
        /// Fraction of the estimate video may use (0.9).
        public var utilization: Double = 0.9
        /// Spatial layers above the smallest are used only with at least this frame rate (15).
        public var minimumFrameRate: Double = 15
        /// A richer spatial layer must fit with this factor of room to qualify (1.2).
        public var upHeadroom: Double = 1.2
        /// … continuously for this long (3 s).
        public var upHold: UInt64 = 3_000_000_000

        /// The defaults documented on each property.
        public init() {}
    }

    /// The constants.
    public let configuration: Configuration
    /// The stream's layers (update with `setLayers` as the router's measurements change).
    public private(set) var layers: StreamLayers
    /// The subscriber's preferences.
    public private(set) var preferences: LayerPreferences
    /// What the router forwards now; nil until the first keyframe of the first choice.
    public private(set) var forwarding: LayerChoice?
    /// The spatial layer a pending switch waits for a keyframe on, if any.
    public private(set) var pendingSpatial: Int?

    private var upSince: UInt64?
    private var lastBudget: Int = 0

    /// A selector forwarding nothing yet.
    public init(layers: StreamLayers, preferences: LayerPreferences = LayerPreferences(),
                configuration: Configuration = Configuration()) {
        self.layers = layers
        self.preferences = preferences
        self.configuration = configuration
    }

    /// Replaces the measured layers (takes effect at the next update).
    public mutating func setLayers(_ layers: StreamLayers) { self.layers = layers }

    /// Replaces the preferences (takes effect at the next update).
    public mutating func setPreferences(_ preferences: LayerPreferences) { self.preferences = preferences }

    /// The best choice for a budget (bits per second already scaled by `utilization`),
    /// ignoring hysteresis. O(layers).
    public func bestChoice(budget: Int) -> LayerChoice {
        let maxS = maxSpatial, maxT = maxTemporal
        let minRate = min(configuration.minimumFrameRate, frameRate(maxT))
        var s = maxS
        while s > 0 {
            var t = maxT
            while t >= 0 && frameRate(t) >= minRate {
                if layers.bitrate(spatial: s, temporal: t) <= budget { return LayerChoice(spatial: s, temporal: t) }
                t -= 1
            }
            s -= 1
        }
        return LayerChoice(spatial: 0, temporal: highestTemporal(on: 0, budget: budget))
    }

    /// Feeds the subscriber leg's estimate (bits per second) at `now` (nanoseconds).
    /// O(layers), no allocation.
    public mutating func update(estimate: Int, now: UInt64) -> LayerSelectorResult {
        let budget = Int(Double(max(0, estimate)) * configuration.utilization)
        lastBudget = budget
        let desired = bestChoice(budget: budget)
        guard var current = forwarding else {
            pendingSpatial = desired.spatial
            return .switchPending(keyframeNeeded: true)
        }
        var target = current.spatial
        if desired.spatial < current.spatial {
            target = desired.spatial
            upSince = nil
        } else if desired.spatial > current.spatial {
            let roomy = bestChoice(budget: Int(Double(budget) / configuration.upHeadroom))
            if roomy.spatial > current.spatial {
                if upSince == nil { upSince = now }
                if now &- upSince! >= configuration.upHold { target = roomy.spatial }
            } else {
                upSince = nil
            }
            // An up-switch already under way stays as long as the budget still allows it.
            if let pending = pendingSpatial, pending > current.spatial, pending <= desired.spatial {
                target = max(target, pending)
            }
        } else {
            upSince = nil
        }
        let temporal = current.spatial == desired.spatial
            ? desired.temporal : highestTemporal(on: current.spatial, budget: budget)
        let temporalChanged = temporal != current.temporal
        current.temporal = temporal
        forwarding = current
        if target != current.spatial {
            pendingSpatial = target
            return .switchPending(keyframeNeeded: true)
        }
        pendingSpatial = nil
        return temporalChanged ? .switched(current) : .unchanged
    }

    /// Tells the selector a keyframe of `spatial` arrived. Completes a pending switch to that
    /// layer (returns `.switched`), otherwise `.unchanged`. O(layers).
    public mutating func keyframeArrived(spatial: Int) -> LayerSelectorResult {
        guard pendingSpatial == spatial else { return .unchanged }
        let choice: LayerChoice
        let best = bestChoice(budget: lastBudget)
        if best.spatial == spatial {
            choice = best
        } else {
            choice = LayerChoice(spatial: spatial, temporal: highestTemporal(on: spatial, budget: lastBudget))
        }
        forwarding = choice
        pendingSpatial = nil
        upSince = nil
        return .switched(choice)
    }

    // MARK: - Preference limits

    private var maxSpatial: Int {
        var s = layers.spatial.count - 1
        while s > 0 {
            let layer = layers.spatial[s]
            let widthOK = (preferences.maxWidth ?? 0) <= 0 || layer.width <= preferences.maxWidth!
            let heightOK = (preferences.maxHeight ?? 0) <= 0 || layer.height <= preferences.maxHeight!
            if widthOK && heightOK { break }
            s -= 1
        }
        return max(0, s)
    }

    private var maxTemporal: Int {
        var t = layers.frameRates.count - 1
        if let cap = preferences.maxFrameRate, cap > 0 {
            // A small tolerance so 7.5 preferred matches a 7.5 layer measured at 7.49.
            while t > 0 && layers.frameRates[t] > cap * 1.01 { t -= 1 }
        }
        return max(0, t)
    }

    private func frameRate(_ t: Int) -> Double {
        layers.frameRates.indices.contains(t) ? layers.frameRates[t] : 0
    }

    /// The highest temporal layer ≤ the preference that fits on `s`, else 0.
    private func highestTemporal(on s: Int, budget: Int) -> Int {
        var t = maxTemporal
        while t > 0 && layers.bitrate(spatial: s, temporal: t) > budget { t -= 1 }
        return t
    }
}
