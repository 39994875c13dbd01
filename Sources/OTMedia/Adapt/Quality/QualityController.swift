/// What the publisher should encode from now on: size, frame rate and encoder bitrate.
///
/// Produced by `QualityController.update(targetBitrate:now:)` only when something changed.
public struct QualityDecision: Sendable, Equatable {
    /// Why the decision was made.
    public enum Change: Sendable, Equatable {
        /// The first decision after start: the ceiling rung (or a lower one if the target is
        /// already far below the ceiling's floor).
        case initial
        /// Moved to a cheaper rung (the target stayed below the floor, or fell far below it).
        case stepDown
        /// Moved to a richer rung after sustained headroom.
        case stepUp
        /// Same rung; only the encoder bitrate moved by more than the dead band.
        case bitrate
    }

    /// Encoded width in pixels (scale the capture to this).
    public var width: Int
    /// Encoded height in pixels.
    public var height: Int
    /// Frames per second to encode (drop capture frames to reach it).
    public var frameRate: Double
    /// Bits per second to configure the encoder with: the target, capped at the rung's top.
    public var encoderBitrate: Int
    /// The rung's index in the ladder (0 = the ceiling).
    public var rungIndex: Int
    /// Why this decision was made.
    public var change: Change

    /// A decision with every field given.
    public init(width: Int, height: Int, frameRate: Double, encoderBitrate: Int, rungIndex: Int, change: Change) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.encoderBitrate = encoderBitrate
        self.rungIndex = rungIndex
        self.change = change
    }
}

/// Walks the publisher's `QualityLadder` from the bandwidth estimator's target bitrate, with
/// asymmetric hysteresis so a noisy target does not make the picture flicker between sizes.
///
/// - **Down, promptly**: when the target stays below the current rung's floor for
///   `downHold` (1 s), or at once when it falls below `farBelowFraction` (0.8) of that floor,
///   the controller jumps straight to the highest rung whose floor the target meets. The
///   estimator has already smoothed the signal (GCC reacts to overuse within a few hundred
///   ms, draft-ietf-rmcat-gcc-02 §5.5), so a starved encoder should not wait longer than that.
/// - **Up, cautiously**: a richer rung is taken only after the target has stayed at or above
///   `upHeadroom` (1.3) × that rung's floor for `upHold` (5 s), continuously. The 1.3 band
///   keeps the new rung above its floor after the switch (a step down would follow at once
///   otherwise), and 5 s spans several GCC increase periods, so a brief spike does not count.
///   When several rungs have qualified, the richest one is taken in one step.
/// - **Never above the ceiling**: rung 0 is the camera's own size and rate.
/// - **Encoder bitrate** follows the target, capped at the rung's `maxBitrate`; a decision is
///   also emitted when it moves by more than `bitrateDeadBand` (5 %) from the last one sent,
///   so the encoder is not reconfigured for noise.
///
/// Pure and clock-injected: `now` is any monotonic nanosecond clock. Steady state allocates
/// nothing (one fixed per-rung array made at init); each update is O(rungs), rungs ≤ ~12.
public struct QualityController: Sendable {
    /// Timing and threshold constants of the hysteresis (see the type's documentation).
    public struct Configuration: Sendable, Equatable {
        /// How long the target must stay below the current floor before stepping down (1 s).
        public var downHold: UInt64 = 1_000_000_000
        /// Below this fraction of the current floor the controller steps down at once (0.8:
        /// a target 20 % under the floor is a congestion cut, not noise; the encoder at the
        /// richer rung would overshoot it and its next keyframe would be the largest frame
        /// there is, sent into the full queue. Was 0.5, which left 720p encoding at 60 % of
        /// its floor for a second after a 2 Mbps → 500 kbps drop).
        public var farBelowFraction: Double = 0.8
        /// How long the target must stay above a richer rung's threshold before stepping up (5 s).
        public var upHold: UInt64 = 5_000_000_000
        /// A richer rung qualifies when the target is at least this × its floor (1.3).
        public var upHeadroom: Double = 1.3
        /// Relative encoder-bitrate change that warrants a `.bitrate` decision (0.05).
        public var bitrateDeadBand: Double = 0.05

        /// The defaults documented on each property.
        public init() {}
    }

    /// The ladder being walked.
    public let ladder: QualityLadder
    /// The hysteresis constants.
    public let configuration: Configuration
    /// The rung currently in use (0 = the ceiling).
    public private(set) var rungIndex: Int
    /// How many times the rung has changed since start (the initial decision does not count).
    public private(set) var rungChanges: Int = 0

    private var belowFloorSince: UInt64?
    /// Per rung: since when the target has stayed ≥ upHeadroom × its floor (nil: not now).
    private var qualifiedSince: [UInt64?]
    private var lastEncoderBitrate: Int?

    /// A controller starting at `startRung` (default the ceiling; a publisher whose estimator
    /// starts low, e.g. GCC's usual 300 kbps, can start at `ladder.highestRung(fitting:)`).
    /// Cost: one array of `ladder.rungs.count`.
    public init(ladder: QualityLadder, configuration: Configuration = Configuration(), startRung: Int = 0) {
        self.ladder = ladder
        self.configuration = configuration
        rungIndex = min(max(0, startRung), ladder.rungs.count - 1)
        qualifiedSince = Array(repeating: nil, count: ladder.rungs.count)
    }

    /// The rung currently in use.
    public var rung: QualityRung { ladder.rungs[rungIndex] }

    /// Feeds the latest target bitrate (bits per second, for video, from the estimator) at
    /// time `now` (nanoseconds, monotonic). Returns a decision when the rung changes or the
    /// encoder bitrate should move; nil otherwise. Call it on every estimator update (every
    /// 25–100 ms is typical); cost O(rungs), no allocation.
    public mutating func update(targetBitrate: Int, now: UInt64) -> QualityDecision? {
        let target = max(0, targetBitrate)
        let rungs = ladder.rungs
        let isFirst = lastEncoderBitrate == nil

        // Headroom bookkeeping for every richer rung.
        for index in 0..<rungIndex {
            let threshold = Double(rungs[index].minBitrate) * configuration.upHeadroom
            if Double(target) >= threshold {
                if qualifiedSince[index] == nil { qualifiedSince[index] = now }
            } else {
                qualifiedSince[index] = nil
            }
        }

        var change: QualityDecision.Change?
        let floor = rungs[rungIndex].minBitrate
        if target < floor && rungIndex < rungs.count - 1 {
            if belowFloorSince == nil { belowFloorSince = now }
            let farBelow = Double(target) < Double(floor) * configuration.farBelowFraction
            if farBelow || now &- belowFloorSince! >= configuration.downHold {
                rungIndex = max(rungIndex + 1, ladder.highestRung(fitting: target))
                change = .stepDown
            }
        } else {
            belowFloorSince = nil
            // The richest rung whose headroom has lasted upHold.
            for index in 0..<rungIndex {
                if let since = qualifiedSince[index], now &- since >= configuration.upHold {
                    rungIndex = index
                    change = .stepUp
                    break
                }
            }
        }
        if let step = change {
            belowFloorSince = nil
            if step == .stepDown {
                for index in qualifiedSince.indices { qualifiedSince[index] = nil }
            }
            if !isFirst { rungChanges += 1 }
        }

        let encoderBitrate = min(target, rungs[rungIndex].maxBitrate)
        if isFirst {
            change = .initial
        } else if change == nil, let last = lastEncoderBitrate {
            let moved = abs(Double(encoderBitrate - last)) > Double(max(last, 1)) * configuration.bitrateDeadBand
            if moved { change = .bitrate }
        }
        guard let change else { return nil }
        lastEncoderBitrate = encoderBitrate
        let chosen = rungs[rungIndex]
        return QualityDecision(width: chosen.width, height: chosen.height, frameRate: chosen.frameRate,
                               encoderBitrate: encoderBitrate, rungIndex: rungIndex, change: change)
    }
}
