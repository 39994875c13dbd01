import Foundation
import OTMedia
import OTSignaling

/// Where a publisher's or subscriber's audio fallback stands, as its app was told.
enum VideoQualityState: Sendable, Equatable {
    /// Video flows (no warning outstanding).
    case normal
    /// `…VideoDisableWarning` was sent; video still flows.
    case warning
    /// `…VideoDisabled(reason: .qualityChanged)` was sent.
    case disabled

    /// The state after `event`, or nil when the event does not apply in this state (a
    /// repeat, or out of order): it is then not passed on, so the app always sees
    /// warning → (lifted | disabled → enabled).
    func after(_ event: AudioFallbackEvent) -> VideoQualityState? {
        switch (self, event) {
        case (.normal, .warning): return .warning
        case (.warning, .warningLifted): return .normal
        case (.normal, .videoDisabled), (.warning, .videoDisabled): return .disabled
        case (.disabled, .videoEnabled): return .normal
        default: return nil
        }
    }
}

/// Publisher audio fallback events and relayed encoding limits.
extension OTPublisherKit {
    /// Publisher audio fallback: the pipeline's controller reports a transition (on a
    /// pipeline thread). Passed on to the delegate in OpenTok's order, on `apiQueue`.
    /// Ignored when `publisherAudioFallbackEnabled` is false or the event does not follow
    /// from the state the app was last told.
    func videoQualityEvent(_ event: AudioFallbackEvent) {
        guard publisherAudioFallback else { return }
        let accepted = lock.withLock { () -> Bool in
            guard let next = qualityState.after(event) else { return false }
            qualityState = next
            return true
        }
        guard accepted, let session else { return }
        session.log.add("publisher video quality: \(event.delegateName(on: .publisher))")
        session.work.async {
            session.onApiQueue {
                guard let delegate = self.delegate else { return }
                switch event {
                case .warning: delegate.publisherVideoDisableWarning(self)
                case .warningLifted: delegate.publisherVideoDisableWarningLifted(self)
                case .videoDisabled: delegate.publisherVideoDisabled(self, reason: .qualityChanged)
                case .videoEnabled: delegate.publisherVideoEnabled(self, reason: .qualityChanged)
                }
            }
        }
    }

    /// Relayed sessions: the router says what the subscribers of this stream want at
    /// most (`encodingPreferences`); the encoder stays within it. Work queue.
    func applyEncodingPreferences(_ preferences: EncodingPreferences) {
        let streamId = stream?.streamId  // (takes the lock itself)
        let running = lock.withLock { pipeline ?? preparedRelayed?.pipeline }
        guard streamId == nil || streamId == preferences.streamId else { return }
        lock.withLock { lastEncodingPreferences = preferences }
        session?.log.add("encoding limit \(preferences.maxWidth.map(String.init) ?? "-")x\(preferences.maxHeight.map(String.init) ?? "-")"
                         + " @\(preferences.maxFrameRate.map { String($0) } ?? "-")")
        guard let running else { return }
        running.setEncodingLimit(maxWidth: preferences.maxWidth, maxHeight: preferences.maxHeight,
                                 maxFrameRate: preferences.maxFrameRate)
    }

    /// Relayed sessions: these subscribers' keys are void (they unsubscribed or left); the
    /// pipeline stops sending to them and refuses their RTCP. Work queue.
    func revokeRelayedReceivers(_ revoked: RelayedReceiversRevoked) {
        let streamId = stream?.streamId  // (takes the lock itself)
        guard streamId == nil || streamId == revoked.streamId else { return }
        let running = lock.withLock { pipeline ?? preparedRelayed?.pipeline }
        running?.revokeRelayedReceivers(revoked.receiverSSRCs)
        session?.log.add("relayed receivers revoked: \(revoked.receiverSSRCs.count)")
    }

    /// Asks for a statistics report (`getRtcStatsReport`): `rtcStatsReportDelegate`
    /// receives it on `apiQueue`, one entry per media leg. Nothing is delivered when the
    /// publisher is not publishing. Cost: a JSON serialisation of a few dozen numbers.
    public func getRtcStatsReport() {
        guard let session else { return }
        session.work.async {
            guard let json = self.rtcStatsJSON() else { return }
            let stats = [OTPublisherRtcStats(connectionId: "", jsonArrayOfReports: json)]
            session.onApiQueue { self.rtcStatsReportDelegate?.publisher(self, rtcStatsReport: stats) }
        }
    }

    /// The report of the running pipeline, nil when not publishing.
    func rtcStatsJSON() -> String? {
        guard let pipeline = lock.withLock({ pipeline }) else { return nil }
        let now = Date().timeIntervalSince1970
        let configuration = pipeline.configuration
        var streams: [RTCStatsReport.Stream] = []
        if let video = configuration.video {
            let counters = pipeline.videoCounters.snapshot()
            let size = pipeline.currentVideoEncoding.map { (width: $0.width, height: $0.height) } ?? (width: video.width, height: video.height)
            let fps = lock.withLock { rtcFrameRate.rate(frames: counters.frames, now: now) }
            streams.append(RTCStatsReport.Stream(kind: "video", ssrc: configuration.videoStream.ssrc,
                                                 payloadType: configuration.videoStream.payloadType,
                                                 clockRate: Int(configuration.videoStream.clockRate), counters: counters,
                                                 frameWidth: size.width, frameHeight: size.height, framesPerSecond: fps))
        }
        if configuration.audio != nil {
            streams.append(RTCStatsReport.Stream(kind: "audio", ssrc: configuration.audioStream.ssrc,
                                                 payloadType: configuration.audioStream.payloadType,
                                                 clockRate: Int(configuration.audioStream.clockRate),
                                                 counters: pipeline.audioCounters.snapshot()))
        }
        return RTCStatsReport.publisher(streams, timestamp: (now * 1000).rounded())
    }
}
