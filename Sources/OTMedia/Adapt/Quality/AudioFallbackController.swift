/// Why video stopped or resumed, with OpenTok's raw values
/// (`OTSubscriberVideoEventReason` 1–4; `OTPublisherVideoEventReason` uses 1 and 3).
///
/// OTMedia cannot see OTKit's enums; the integration maps this one onto them by raw value.
public enum VideoEventReason: Int32, Sendable, Equatable {
    /// The publisher stopped or resumed publishing video (`publishVideo`).
    case publisherPropertyChanged = 1
    /// The subscriber set `subscribeToVideo` (subscriber side only).
    case subscriberPropertyChanged = 2
    /// Audio fallback: the network could not (or can again) carry video.
    case qualityChanged = 3
    /// The subscriber cannot decode the stream's codec (subscriber side only).
    case codecNotSupported = 4
}

/// Which OpenTok object an `AudioFallbackController` speaks for.
public enum AudioFallbackSide: Sendable, Equatable {
    /// The publisher's uplink (`publisherVideoDisableWarning` …, `publisherAudioFallbackEnabled`).
    case publisher
    /// One router → subscriber leg (`subscriberVideoDisableWarning` …, `subscriberAudioFallbackEnabled`).
    case subscriber
}

/// One audio-fallback event, emitted exactly once per state transition.
public enum AudioFallbackEvent: Sendable, Equatable {
    /// Video is in danger of being disabled (`…VideoDisableWarning`).
    case warning
    /// The danger passed before video was disabled (`…VideoDisableWarningLifted`).
    case warningLifted
    /// Video stopped; audio continues (`…VideoDisabled(reason:)`).
    case videoDisabled(reason: VideoEventReason)
    /// Video resumed (`…VideoEnabled(reason:)`).
    case videoEnabled(reason: VideoEventReason)

    /// The OpenTok delegate method this event becomes on `side`, e.g.
    /// `subscriberVideoDisableWarningLifted`. For logs and tests; no allocation beyond the string.
    public func delegateName(on side: AudioFallbackSide) -> String {
        let prefix = side == .publisher ? "publisher" : "subscriber"
        switch self {
        case .warning: return prefix + "VideoDisableWarning"
        case .warningLifted: return prefix + "VideoDisableWarningLifted"
        case .videoDisabled: return prefix + "VideoDisabled"
        case .videoEnabled: return prefix + "VideoEnabled"
        }
    }
}

/// Where an `AudioFallbackController` stands.
public enum AudioFallbackState: Sendable, Equatable {
    /// Video flows normally.
    case normal
    /// Video still flows, the warning has been sent.
    case warning
    /// Video is off; only audio is sent (publisher: the encoder stops, saving CPU).
    case videoDisabled
    /// Video is still off (as far as the app knows) but the sender is probing: it sends probe
    /// traffic (padding or the lowest video rung) so the estimate can show recovery.
    case probing
}

/// The thresholds and hold times of audio fallback. OpenTok documents the events but not the
/// numbers; these are chosen here, each with its reason.
public struct AudioFallbackConfiguration: Sendable, Equatable {
    /// Which side the controller speaks for (only changes `delegateName(on:)` for callers).
    public var side: AudioFallbackSide
    /// `publisherAudioFallbackEnabled` / `subscriberAudioFallbackEnabled`. When false the
    /// controller stays `.normal` and emits nothing: a warning means "video will be disabled
    /// if this goes on", which would be false.
    public var enabled: Bool = true

    /// Warn when the bitrate left for video stays below this (100 kbps): under it even the
    /// smallest useful rung (320x180@7.5 tops out at ~52 kbps, 640x360@7.5 needs ~69 kbps,
    /// QualityLadder defaults) is near its floor.
    public var warningBitrate: Int = 100_000
    /// … or when loss stays above this fraction (0.10): draft-ietf-rmcat-gcc-02 §6 treats loss
    /// above 10 % as congestion the sender must back off from.
    public var warningLossFraction: Double = 0.10
    /// How long a warning condition must last before the warning (3 s).
    public var warningHold: UInt64 = 3_000_000_000
    /// The warning is lifted once the video bitrate is at least this (120 kbps, 20 % above the
    /// warning threshold so a bitrate hovering at 100 kbps does not toggle warnings) and loss is
    /// at or below `warningLossFraction` …
    public var liftBitrate: Int = 120_000
    /// … for this long (3 s, the same as the warning hold: symmetric, at most one warning
    /// toggle per 3 s however noisy the input).
    public var liftHold: UInt64 = 3_000_000_000
    /// Video is disabled when, in warning, the video bitrate stays below this (50 kbps: below
    /// the ladder's smallest rung's top, i.e. no rung gets a usable rate) …
    public var disableBitrate: Int = 50_000
    /// … for this long after the later of the warning and the start of the condition (4 s).
    /// Loss alone never disables: GCC's loss controller (§6) already lowers the estimate by
    /// (1 − 0.5·loss) per update above 10 %, so sustained loss reaches this bitrate threshold.
    public var disableHold: UInt64 = 4_000_000_000
    /// Video is re-enabled when the video bitrate stays at or above this (150 kbps: three
    /// times the disable threshold, enough for 640x360@15 without falling back at once) and
    /// loss at or below `warningLossFraction` …
    public var recoveryBitrate: Int = 150_000
    /// … for this long (5 s, the same as `QualityController`'s step-up hold).
    public var recoveryHold: UInt64 = 5_000_000_000
    /// While video is disabled, a probe starts this long after the disabling and after each
    /// earlier probe's start (10 s). Without probes an audio-only sender cannot show recovery:
    /// GCC caps its estimate at 1.5 × the incoming rate (draft-ietf-rmcat-gcc-02 §5.5).
    public var probeInterval: UInt64 = 10_000_000_000
    /// A probe lasts this long (6 s: the recovery hold plus a second for the estimate to
    /// rise); it is extended while the recovery condition holds, and ends early when loss
    /// exceeds `warningLossFraction` (the probe itself congests the link).
    public var probeDuration: UInt64 = 6_000_000_000

    /// The defaults documented above, for one side.
    public init(side: AudioFallbackSide, enabled: Bool = true) {
        self.side = side
        self.enabled = enabled
    }

    /// Publisher-side defaults (uplink estimate minus audio).
    public static let publisher = AudioFallbackConfiguration(side: .publisher)
    /// Subscriber-side defaults (router → subscriber leg estimate minus audio).
    public static let subscriber = AudioFallbackConfiguration(side: .subscriber)
}

/// OpenTok's audio fallback as a state machine: normal → warning → videoDisabled ⇄ probing →
/// normal, one type for both the publisher's uplink and a router → subscriber leg.
///
/// Feed it the bitrate available for video (the leg's bandwidth estimate minus the audio
/// bitrate) and the current loss fraction on every estimator update. It returns an event on
/// the update where a transition happens, exactly once per transition:
/// - normal → warning (`.warning`): video bitrate < `warningBitrate` or loss >
///   `warningLossFraction`, continuously for `warningHold`.
/// - warning → normal (`.warningLifted`): video bitrate ≥ `liftBitrate` and loss ≤
///   `warningLossFraction` for `liftHold`.
/// - warning → videoDisabled (`.videoDisabled(.qualityChanged)`): video bitrate <
///   `disableBitrate` for `disableHold` counted from the later of the warning and the
///   condition's start.
/// - videoDisabled → probing (no event): every `probeInterval`; probing → videoDisabled
///   (no event) when the probe ends unsuccessfully.
/// - videoDisabled or probing → normal (`.videoEnabled(.qualityChanged)`): video bitrate ≥
///   `recoveryBitrate` and loss ≤ `warningLossFraction` for `recoveryHold`. No
///   `.warningLifted` follows: OpenTok's lift call answers a warning that did not disable.
///
/// Pure and clock-injected (`now`: monotonic nanoseconds); O(1) per update, no allocation.
public struct AudioFallbackController: Sendable {
    /// The thresholds and hold times.
    public private(set) var configuration: AudioFallbackConfiguration
    /// The current state.
    public private(set) var state: AudioFallbackState = .normal

    private var warnConditionSince: UInt64?
    private var clearSince: UInt64?
    private var disableConditionSince: UInt64?
    private var warnedAt: UInt64 = 0
    private var recoverSince: UInt64?
    private var nextProbeAt: UInt64 = 0
    private var probeStartedAt: UInt64 = 0

    /// A controller in `.normal`.
    public init(configuration: AudioFallbackConfiguration) {
        self.configuration = configuration
    }

    /// Whether the sender should send video now: true in `.normal` and `.warning`.
    public var sendsVideo: Bool { state == .normal || state == .warning }

    /// Whether the sender should send probe traffic now (`.probing`).
    public var isProbing: Bool { state == .probing }

    /// Turns audio fallback on or off (the OpenTok setting). Turning it off while warned
    /// returns `.warningLifted`; while video is disabled, `.videoEnabled(.qualityChanged)`.
    public mutating func setEnabled(_ enabled: Bool, now: UInt64) -> AudioFallbackEvent? {
        configuration.enabled = enabled
        guard !enabled else { return nil }
        let previous = state
        reset()
        switch previous {
        case .normal: return nil
        case .warning: return .warningLifted
        case .videoDisabled, .probing: return .videoEnabled(reason: .qualityChanged)
        }
    }

    /// Feeds one observation: `videoBitrate` (bits per second left for video after audio) and
    /// `lossFraction` (0…1) at `now` (nanoseconds). Returns the event of the transition this
    /// observation causes, if any. O(1), no allocation.
    public mutating func update(videoBitrate: Int, lossFraction: Double, now: UInt64) -> AudioFallbackEvent? {
        let c = configuration
        guard c.enabled else { return nil }
        let lossy = lossFraction > c.warningLossFraction
        switch state {
        case .normal:
            trackDisableCondition(videoBitrate: videoBitrate, now: now)
            if videoBitrate < c.warningBitrate || lossy {
                if warnConditionSince == nil { warnConditionSince = now }
                if now &- warnConditionSince! >= c.warningHold {
                    state = .warning
                    warnedAt = now
                    clearSince = nil
                    return .warning
                }
            } else {
                warnConditionSince = nil
            }
            return nil

        case .warning:
            if videoBitrate >= c.liftBitrate && !lossy {
                if clearSince == nil { clearSince = now }
            } else {
                clearSince = nil
            }
            trackDisableCondition(videoBitrate: videoBitrate, now: now)
            if let since = disableConditionSince, now &- max(since, warnedAt) >= c.disableHold {
                state = .videoDisabled
                recoverSince = nil
                nextProbeAt = now &+ c.probeInterval
                return .videoDisabled(reason: .qualityChanged)
            }
            if let since = clearSince, now &- since >= c.liftHold {
                reset()
                return .warningLifted
            }
            return nil

        case .videoDisabled, .probing:
            if videoBitrate >= c.recoveryBitrate && !lossy {
                if recoverSince == nil { recoverSince = now }
                if now &- recoverSince! >= c.recoveryHold {
                    reset()
                    return .videoEnabled(reason: .qualityChanged)
                }
            } else {
                recoverSince = nil
            }
            if state == .videoDisabled {
                if now >= nextProbeAt {
                    state = .probing
                    probeStartedAt = now
                    nextProbeAt = now &+ c.probeInterval
                }
            } else if lossy || (now &- probeStartedAt >= c.probeDuration && recoverSince == nil) {
                state = .videoDisabled
            }
            return nil
        }
    }

    private mutating func trackDisableCondition(videoBitrate: Int, now: UInt64) {
        if videoBitrate < configuration.disableBitrate {
            if disableConditionSince == nil { disableConditionSince = now }
        } else {
            disableConditionSince = nil
        }
    }

    private mutating func reset() {
        state = .normal
        warnConditionSince = nil
        clearSince = nil
        disableConditionSince = nil
        recoverSince = nil
    }
}
