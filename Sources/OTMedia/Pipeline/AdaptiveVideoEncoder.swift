/// What one captured frame did in an `AdaptiveVideoEncoder`.
struct AdaptiveFrameResult: Sendable, Equatable {
    /// Encoded frames handed to the output (one per encoding that took this frame).
    var encodedFrames = 0
    /// True when audio fallback has video off: nothing was encoded.
    var suspended = false
    /// The audio-fallback transition this frame's target caused, if any.
    var event: AudioFallbackEvent?
    /// True when an encoding's size, rate, bitrate or on/off state changed.
    var stateChanged = false
}

/// The publisher's encode side of adaptation, one call per captured frame: the video
/// target bitrate (from the congestion controller) → audio fallback → simulcast split →
/// per-encoding quality ladder → encoder bitrate, size (libyuv scaling into a reused
/// frame) and frame rate (even, timestamp-based dropping) → VP8.
///
/// - Ceiling: the capture's size and rate (OpenTok `cameraResolution`/`cameraFrameRate`),
///   lowered by `setLimit` (relayed `encodingPreferences`).
/// - Target 0 means no estimate: encodings keep their current settings (at start the
///   ceiling with the configured bitrate).
/// - Encodings (largest first): the full size, then ½ and ¼ size for simulcast, each
///   with its own libvpx encoder created at its base size (so every ladder size below it
///   is set in place; libvpx would need a re-creation to grow past it).
/// - Audio fallback (`AudioFallbackController`, publisher side) sees the whole target;
///   while it has video off, frames stop before any scaling or encoding.
///
/// Clock: the frames' capture timestamps (monotonic nanoseconds), so a test drives it
/// with synthetic frames. Not thread-safe: the video thread owns it. Cost per frame:
/// the controllers' O(rungs) arithmetic, one scale per encoding not at capture size,
/// the encodes; nothing allocated except on limit changes and simulcast switches.
final class AdaptiveVideoEncoder {
    /// How the adaptive encoder is set up.
    struct Settings: Sendable {
        /// Capture size and rate (the ceiling), configured bitrate (used until a target
        /// arrives; split by weight across simulcast encodings) and codec options.
        var video: VP8EncoderSettings
        /// One SSRC per encoding, largest first (1...3 of them).
        var ssrcs: [UInt32]
        /// False: targets are ignored (fixed encoding, for benchmarks and interop).
        var adaptive = true
        /// Publisher audio fallback (`enabled` false: video is never switched off).
        var fallback = AudioFallbackConfiguration(side: .publisher, enabled: false)
        /// The ladder's hysteresis.
        var quality = QualityController.Configuration()
        /// How ladders are derived.
        var ladder = QualityLadder.Configuration()

        /// Settings for `video` sent on `ssrcs`.
        init(video: VP8EncoderSettings, ssrcs: [UInt32]) {
            self.video = video
            self.ssrcs = ssrcs
        }
    }

    /// The settings it was made with.
    let settings: Settings
    /// The encodings, largest first.
    let encodings: [AdaptiveEncoding]
    /// Publisher audio fallback.
    private(set) var fallback: AudioFallbackController
    /// The limit in force.
    private(set) var limit = VideoEncodingLimit.none
    /// Calls into libvpx's encode (all encodings): flat while video is off.
    private(set) var encodeCalls: UInt64 = 0
    /// Captured frames that no encoding took because of frame-rate decimation.
    private(set) var framesDecimated: UInt64 = 0
    /// Captured frames dropped because audio fallback had video off.
    private(set) var framesSuspended: UInt64 = 0
    private var allocator: SimulcastAllocator
    private var lastTarget = 0
    /// The ladders' hysteresis: the settings', except that simulcast encodings step down at
    /// once only below half their floor (the allocator switches the largest one off first,
    /// after `downHold` or below half; a rate step inside it would pre-empt that).
    private let quality: QualityController.Configuration

    /// Creates the encoders (one per SSRC). Throws `invalidArgument` for more than three
    /// encodings, none, or a simulcast size below 16 pixels; `codecFailure` when libvpx
    /// refuses the settings.
    init(settings: Settings) throws(MediaError) {
        guard (1...3).contains(settings.ssrcs.count) else {
            throw MediaError(.invalidArgument, "\(settings.ssrcs.count) video encodings; use 1...3 (simulcast layers)")
        }
        let video = settings.video
        try video.validate()
        let count = settings.ssrcs.count
        let divisor = 1 << (count - 1)
        guard video.width / divisor >= 16, video.height / divisor >= 16 else {
            throw MediaError(.invalidArgument,
                             "\(video.width)x\(video.height) is too small for \(count) simulcast layers (smallest side under 16 pixels)")
        }
        self.settings = settings
        var quality = settings.quality
        if count > 1 { quality.farBelowFraction = min(quality.farBelowFraction, SimulcastAllocator.switchOffFraction) }
        self.quality = quality
        let weights = SimulcastAllocator.weights(count: count)
        var made: [AdaptiveEncoding] = []
        for index in 0..<count {
            var each = video
            each.width = max(2, (video.width >> index) & ~1)
            each.height = max(2, (video.height >> index) & ~1)
            each.bitrateKbps = max(1, Int(Double(video.bitrateKbps) * weights[index]))
            var ladder = settings.ladder
            if count > 1 { ladder.ladderHeights = [] }  // simulcast encodings keep their size
            made.append(try AdaptiveEncoding(index: index, ssrc: settings.ssrcs[index], settings: each,
                                             sourceFrameRate: video.frameRate, ladderConfiguration: ladder,
                                             quality: quality))
        }
        encodings = made
        fallback = AudioFallbackController(configuration: settings.fallback)
        allocator = SimulcastAllocator(floors: made.map { $0.ladder.rungs[0].minBitrate }, configuration: settings.quality)
    }

    /// The states of all encodings (inactive ones too). Allocates the array.
    var states: [VideoEncodingState] { encodings.map(\.state) }

    /// Receivers' keyframe requests (PLI/FIR) within this long of an encoding's last
    /// keyframe are ignored (300 ms), or within the time that keyframe takes to leave at
    /// the target plus 100 ms when that is longer: the keyframe is still on its way, and
    /// during congestion each extra keyframe is the largest frame there is, lost in turn to
    /// the full queue. A receiver still missing it asks again (every 250 ms).
    static let keyframeRequestHoldNanoseconds: UInt64 = 300_000_000

    /// Marks encodings for a keyframe: bit `i` of `mask` is encoding `i`. Each takes it
    /// on the next frame it encodes (a request is never lost to decimation). With `now`
    /// (a receiver's request), encodings that made a keyframe within
    /// `keyframeRequestHoldNanoseconds` ignore it. Returns the requests ignored.
    @discardableResult
    func requestKeyframes(mask: UInt32, now: UInt64? = nil) -> Int {
        var ignored = 0
        for encoding in encodings where mask & (1 << UInt32(encoding.index)) != 0 {
            if let now, let last = encoding.lastKeyframeNanoseconds, now >= last,
               now - last < encoding.keyframeHoldNanoseconds {
                ignored += 1
                continue
            }
            encoding.keyframePending = true
        }
        return ignored
    }

    /// Applies an encoding limit: each encoding's ceiling becomes the largest size within
    /// it (simulcast: encodings larger than the limit switch off, the smallest is scaled
    /// into it) and the lower frame rate; the encodings move to their new ceiling (or the
    /// rung the last target fits) on the next frame. Allocates the ladders: call on
    /// changes only. Throws when libvpx refuses a reconfiguration.
    func setLimit(_ limit: VideoEncodingLimit) throws(MediaError) {
        guard limit != self.limit else { return }
        self.limit = limit
        let count = encodings.count
        let firstFitting = encodings.firstIndex { limit.admits(width: $0.baseWidth, height: $0.baseHeight) } ?? (count - 1)
        allocator.setFirstEligible(firstFitting, activateAll: lastTarget == 0)
        for encoding in encodings {
            let ceiling = limit.fit(width: encoding.baseWidth, height: encoding.baseHeight, frameRate: settings.video.frameRate)
            let share = count > 1 ? allocator.share(of: encoding.index, first: allocator.firstActive, target: lastTarget) : lastTarget
            encoding.rebuild(ceilingWidth: ceiling.width, ceilingHeight: ceiling.height, ceilingFrameRate: ceiling.frameRate,
                             share: share, quality: quality)
            allocator.floors[encoding.index] = encoding.ladder.rungs[0].minBitrate
            let rung = encoding.ladder.rungs[encoding.controller.rungIndex]
            // Without an estimate: the configured rate, but no more than a limited rung's top.
            let bitrate = lastTarget > 0 ? min(share, rung.maxBitrate)
                : limit == .none ? encoding.configuredBitrate : min(encoding.configuredBitrate, rung.maxBitrate)
            try encoding.apply(width: rung.width, height: rung.height, frameRate: rung.frameRate, bitrate: bitrate,
                               rungIndex: encoding.controller.rungIndex)
        }
        setActive(from: allocator.firstActive)
    }

    /// Feeds one captured frame with the current video target (bps, 0: no estimate) and
    /// loss fraction (0…1); calls `output` with each encoded frame and the index of its
    /// encoding, before returning. The frame must have the capture size. Cost: see the
    /// type; nothing allocated in steady state.
    func encode(_ frame: VideoFrame, targetBitrate: UInt64, lossFraction: Double = 0,
                _ output: (_ encoding: Int, _ frame: EncodedVideoFrame) -> Void) throws(MediaError) -> AdaptiveFrameResult {
        var result = AdaptiveFrameResult()
        let now = frame.timestampNanoseconds
        let target = settings.adaptive ? Int(clamping: targetBitrate) : 0
        if target > 0 {
            lastTarget = target
            if let event = fallback.update(videoBitrate: target, lossFraction: lossFraction, now: now) {
                result.event = event
                switch event {
                case .videoDisabled:
                    result.stateChanged = true
                    for encoding in encodings { encoding.state.isActive = false }
                case .videoEnabled:
                    result.stateChanged = true
                    // Receivers lost the references while video was off.
                    for encoding in encodings { encoding.keyframePending = true }
                    setActive(from: allocator.firstActive)
                    restartControllers(target: target)
                default:
                    break
                }
            }
        }
        guard fallback.sendsVideo else {
            framesSuspended += 1
            result.suspended = true
            return result
        }
        if target > 0 { try adapt(to: target, now: now, result: &result) }

        // Index loops: a debug build's array iterator allocates per loop (measured).
        for position in 0..<encodings.count {
            let encoding = encodings[position]
            guard encoding.isActive, encoding.decimator.admit(timestamp: now) else { continue }
            let input: VideoFrame
            if frame.width == encoding.encoder.settings.width && frame.height == encoding.encoder.settings.height {
                input = frame
            } else {
                try FrameScaler.scale(frame, into: encoding.scaled)
                input = encoding.scaled
            }
            let keyframe = encoding.keyframePending
            encoding.keyframePending = false
            encodeCalls += 1
            let index = encoding.index
            var produced = 0
            try encoding.encoder.encode(input, forceKeyframe: keyframe) { encoded in
                produced += 1
                if encoded.isKeyframe {
                    encoding.lastKeyframeNanoseconds = now
                    let rate = UInt64(max(lastTarget > 0 ? lastTarget : encoding.state.bitrate, 1))
                    let leaving = UInt64(encoded.data.count) * 8 * 1_000_000_000 / rate + 100_000_000
                    encoding.keyframeHoldNanoseconds = max(Self.keyframeRequestHoldNanoseconds, leaving)
                }
                output(index, encoded)
            }
            encoding.framesEncoded += UInt64(produced)
            result.encodedFrames += produced
        }
        if result.encodedFrames == 0 { framesDecimated += 1 }
        return result
    }

    /// Splits the target and walks each active encoding's ladder.
    private func adapt(to target: Int, now: UInt64, result: inout AdaptiveFrameResult) throws(MediaError) {
        if encodings.count > 1, allocator.update(target: target, now: now) {
            setActive(from: allocator.firstActive)
            result.stateChanged = true
        }
        for position in 0..<encodings.count {
            let encoding = encodings[position]
            guard encoding.isActive else { continue }
            let share = encodings.count > 1 ? allocator.shares[encoding.index] : target
            guard let decision = encoding.controller.update(targetBitrate: share, now: now) else { continue }
            try encoding.apply(width: decision.width, height: decision.height, frameRate: decision.frameRate,
                               bitrate: decision.encoderBitrate, rungIndex: decision.rungIndex)
            result.stateChanged = true
        }
    }

    /// Turns encodings `first...` on (those coming on start with a keyframe and a fresh
    /// controller) and the larger ones off.
    private func setActive(from first: Int) {
        for encoding in encodings {
            let active = encoding.index >= first
            if active && !encoding.isActive {
                encoding.keyframePending = true
                let share = encodings.count > 1 ? allocator.share(of: encoding.index, first: first, target: lastTarget) : lastTarget
                encoding.restartController(share: share, quality: quality)
            }
            encoding.isActive = active
            encoding.state.isActive = active && fallback.sendsVideo
        }
    }

    /// Fresh controllers after video comes back (their timers stopped while it was off).
    private func restartControllers(target: Int) {
        for encoding in encodings where encoding.isActive {
            let share = encodings.count > 1 ? allocator.share(of: encoding.index, first: allocator.firstActive, target: target) : target
            encoding.restartController(share: share, quality: quality)
        }
    }
}
