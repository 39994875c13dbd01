import Synchronization

/// The encode side of adaptation on the pipeline: encoding limits, the current
/// encodings, keyframe requests per SSRC, and the audio-fallback events.
extension PublisherPipeline {
    /// Lowers the video ceiling at run time (OpenTok relayed sessions: the relayed
    /// `encodingPreferences`, the most any subscriber wants); nil fields do not limit,
    /// and all nil lifts the limit. Never raises the ceiling above the camera's size and
    /// rate. The video thread applies it on its next frame (a resize starts with a
    /// keyframe). Cost: one lock and one atomic increment; the ladder is rebuilt on the
    /// video thread (one small allocation, once per change).
    public func setEncodingLimit(maxWidth: Int?, maxHeight: Int?, maxFrameRate: Double?) {
        setEncodingLimit(VideoEncodingLimit(maxWidth: maxWidth, maxHeight: maxHeight, maxFrameRate: maxFrameRate))
    }

    /// As `setEncodingLimit(maxWidth:maxHeight:maxFrameRate:)`, with a limit value.
    public func setEncodingLimit(_ limit: VideoEncodingLimit) {
        encodingLimitValue.withLock { $0 = limit }
        encodingLimitGeneration.add(1, ordering: .releasing)
    }

    /// The encoding limit in force (`.none` when unset). Cost: one lock.
    public var encodingLimit: VideoEncodingLimit { encodingLimitValue.withLock { $0 } }

    /// What each video encoding produces now (largest first; one entry without
    /// simulcast; empty before `start()` or without video). For stats: size, frame rate,
    /// encoder bitrate, SSRC, on/off. Cost: one lock and an array copy.
    public var currentVideoEncodings: [VideoEncodingState] { encodingStates.withLock { $0 } }

    /// The largest video encoding that is on now, nil when none is (no video, not
    /// started, or audio fallback has video off). Cost: as `currentVideoEncodings`.
    public var currentVideoEncoding: VideoEncodingState? {
        encodingStates.withLock { states in states.first { $0.isActive } }
    }

    /// Where publisher audio fallback stands (`.normal` when it is off). `.probing`
    /// tells the transport side that video is off and the estimate needs probe traffic
    /// to show recovery. Cost: one relaxed atomic load.
    public var videoFallbackState: AudioFallbackState {
        switch fallbackStateValue.load(ordering: .relaxed) {
        case 1: return .warning
        case 2: return .videoDisabled
        case 3: return .probing
        default: return .normal
        }
    }

    /// True while audio fallback has video off (no frame is encoded). Cost: one atomic load.
    public var isVideoSuspendedByFallback: Bool {
        let state = fallbackStateValue.load(ordering: .relaxed)
        return state == 2 || state == 3
    }

    /// Captured frames no encoding took because the frame rate was lowered.
    public var videoFramesDecimated: UInt64 { videoFramesDecimatedCount.load(ordering: .relaxed) }

    /// Captured frames not encoded because the transport's pacer still held more than
    /// `PublisherVideoLoop.pushbackSeconds` of video at the target (encoder pushback: the
    /// encoder follows a falling target a frame late and its keyframes are large; skipping a
    /// frame before encoding keeps the stream decodable, dropping packets later would not).
    public var videoFramesPushedBack: UInt64 { videoFramesPushedBackCount.load(ordering: .relaxed) }

    /// Captured frames dropped before the encoder because audio fallback had video off.
    public var videoFramesDroppedByFallback: UInt64 { videoFramesSuspendedCount.load(ordering: .relaxed) }

    /// Sets the hook called once per publisher audio-fallback transition: `.warning`,
    /// `.warningLifted`, `.videoDisabled(.qualityChanged)`, `.videoEnabled(.qualityChanged)`
    /// (OpenTok's `publisherVideoDisableWarning`, `…WarningLifted`, `publisherVideoDisabled`,
    /// `publisherVideoEnabled`). Called on the video capture thread, only on transitions
    /// (seconds apart): it must return quickly (hand the event to the app's queue).
    /// Nil removes it. Cost: one lock.
    public func onVideoQualityEvent(_ hook: (@Sendable (AudioFallbackEvent) -> Void)?) {
        videoEventHook.withLock { $0 = hook }
    }

    /// Asks the encoding sent on `ssrc` for a keyframe on its next frame (PLI/FIR name
    /// the SSRC). Returns false (and does nothing) for an SSRC this pipeline does not
    /// send video on. Cost: a few comparisons and one atomic OR.
    @discardableResult
    public func requestKeyframe(ssrc: UInt32) -> Bool {
        guard let index = videoEncodingIndex(ssrc: ssrc) else { return false }
        keyframeRequestMask.bitwiseOr(1 << UInt32(index), ordering: .relaxed)
        return true
    }

    /// The SSRCs video is sent on, largest encoding first (empty without video).
    public var videoSSRCs: [UInt32] {
        guard let video = videoSender else { return [] }
        return [video.parameters.ssrc] + simulcastSenders.map(\.parameters.ssrc)
    }

    /// The index of the encoding sent on `ssrc` (0: full size), nil when none is.
    func videoEncodingIndex(ssrc: UInt32) -> Int? {
        guard let video = videoSender else { return nil }
        if video.parameters.ssrc == ssrc { return 0 }
        for (index, sender) in simulcastSenders.enumerated() where sender.parameters.ssrc == ssrc { return index + 1 }
        return nil
    }

    /// The retransmission store of the video encoding sent on `ssrc` (NACKs name the
    /// SSRC; each encoding numbers its packets on its own), nil for other SSRCs.
    func retransmissionStore(ssrc: UInt32) -> RetransmissionStore? {
        guard let index = videoEncodingIndex(ssrc: ssrc) else { return nil }
        return index == 0 ? retransmissions : simulcastRetransmissions[index - 1]
    }

    /// Called by the video thread on a fallback transition: records the state, then
    /// calls the hook outside the lock.
    func deliver(_ event: AudioFallbackEvent, state: AudioFallbackState) {
        let code: UInt8
        switch state {
        case .normal: code = 0
        case .warning: code = 1
        case .videoDisabled: code = 2
        case .probing: code = 3
        }
        fallbackStateValue.store(code, ordering: .relaxed)
        guard let hook = videoEventHook.withLock({ $0 }) else { return }
        hook(event)
    }

    /// Records the fallback state without an event (probing starts and ends silently).
    func noteFallbackState(_ state: AudioFallbackState) {
        let code: UInt8 = state == .probing ? 3 : state == .videoDisabled ? 2 : state == .warning ? 1 : 0
        fallbackStateValue.store(code, ordering: .relaxed)
    }

    /// Called by the video thread when an encoding changed: copies the states in place.
    func publish(_ encodings: [AdaptiveEncoding]) {
        encodingStates.withLock { states in
            if states.count != encodings.count {
                states = encodings.map(\.state)  // first time only
            } else {
                for encoding in encodings { states[encoding.index] = encoding.state }
            }
        }
    }

    /// The simulcast streams a configuration asks for: `simulcastLayers - 1` of
    /// `simulcastStreams`. Throws `invalidArgument` when the count is out of 1...3, too few
    /// SSRCs are given, or an SSRC repeats another video or audio SSRC.
    static func simulcastStreams(of configuration: PublisherConfiguration) throws(MediaError) -> [RTPStreamParameters] {
        let layers = configuration.simulcastLayers
        guard (1...3).contains(layers) else {
            throw MediaError(.invalidArgument, "\(layers) simulcast layers; use 1...3")
        }
        guard configuration.simulcastStreams.count >= layers - 1 else {
            throw MediaError(.invalidArgument,
                             "\(layers) simulcast layers need \(layers - 1) extra SSRCs; \(configuration.simulcastStreams.count) given")
        }
        let extra = Array(configuration.simulcastStreams.prefix(layers - 1))
        var seen: Set<UInt32> = [configuration.videoStream.ssrc, configuration.audioStream.ssrc]
        for stream in extra {
            guard seen.insert(stream.ssrc).inserted else {
                throw MediaError(.invalidArgument, "simulcast SSRC \(stream.ssrc) repeats another stream's SSRC")
            }
        }
        return extra
    }
}
