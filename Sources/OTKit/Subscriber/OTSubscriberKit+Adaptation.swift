import Foundation
import OTMedia
import OTSignaling

/// Subscriber audio fallback events, preferred resolution / frame rate reaching the
/// router, and the RTC stats report.
extension OTSubscriberKit {
    /// The preferences as the wire carries them (nil fields: no preference), clamped to
    /// what the router accepts (`ClientMessageLimits`): a huge size or rate means "the
    /// most there is", NaN, zero or negative means none. Under `lock`.
    private func wirePreferences(_ id: String) -> SubscriberPreferences {
        let size = storedResolution.flatMap { dimensions -> (Int, Int)? in
            guard let width = ClientMessageLimits.clampedDimension(dimensions.width),
                  let height = ClientMessageLimits.clampedDimension(dimensions.height) else { return nil }
            return (width, height)
        }
        return SubscriberPreferences(subscriberId: id, preferredWidth: size?.0, preferredHeight: size?.1,
                                     preferredFrameRate: ClientMessageLimits.clampedFrameRate(Double(storedFrameRate)))
    }

    /// Tells the router the preferences when they differ from what it was last told
    /// (only once subscribed; none at all while the app never set one). Queued under the
    /// lock so changes reach the router in order.
    func syncPreferences() {
        lock.withLock {
            guard let id = subscriberId, let session = storedSession else { return }
            let wanted = wirePreferences(id)
            let none = wanted.preferredWidth == nil && wanted.preferredHeight == nil && wanted.preferredFrameRate == nil
            if routerPreferences == nil && none { return }  // nothing set, nothing to say
            guard wanted != routerPreferences else { return }
            routerPreferences = wanted
            session.sendSubscriberPreferences(wanted)
        }
    }

    /// After the session resumed: say the preferences again (a change made while the
    /// path was down was lost with it). Work queue.
    func resendPreferences() {
        let told = lock.withLock { () -> Bool in
            guard subscriberId != nil, routerPreferences != nil else { return false }
            routerPreferences = nil
            return true
        }
        if told { syncPreferences() }
    }

    /// The router's audio-fallback decision about this subscriber (`subscriberQuality`).
    /// Passed on in OpenTok's order (warning → lifted, or warning → disabled → enabled);
    /// repeats, out-of-order and unknown states are logged and dropped. Work queue.
    func qualityEvent(_ event: SubscriberQualityEvent) {
        guard let session else { return }
        let mapped: AudioFallbackEvent
        switch event.state {
        case "warning": mapped = .warning
        case "warningLifted": mapped = .warningLifted
        case "disabled": mapped = .videoDisabled(reason: .qualityChanged)
        case "enabled": mapped = .videoEnabled(reason: .qualityChanged)
        default:
            session.log.add("unknown subscriber quality state \"\(event.state)\" dropped")
            return
        }
        let accepted = lock.withLock { () -> Bool in
            guard let next = qualityState.after(mapped) else { return false }
            qualityState = next
            return true
        }
        guard accepted else {
            session.log.add("subscriber quality \(event.state) out of order, dropped")
            return
        }
        session.onApiQueue {
            guard let delegate = self.delegate else { return }
            switch mapped {
            case .warning: delegate.subscriberVideoDisableWarning(self)
            case .warningLifted: delegate.subscriberVideoDisableWarningLifted(self)
            case .videoDisabled: delegate.subscriberVideoDisabled(self, reason: .qualityChanged)
            case .videoEnabled: delegate.subscriberVideoEnabled(self, reason: .qualityChanged)
            }
        }
    }

    /// Asks for a statistics report (`getRtcStatsReport`): `rtcStatsReportDelegate`
    /// receives a JSON array in browsers' RTCStats shape on `apiQueue`. Nothing is
    /// delivered when not subscribed. Cost: a JSON serialisation of a few dozen numbers.
    public func getRtcStatsReport() {
        guard let session else { return }
        session.work.async {
            guard let json = self.rtcStatsJSON() else { return }
            session.onApiQueue { self.rtcStatsReportDelegate?.subscriber(self, rtcStatsReport: json) }
        }
    }

    /// The report of the running pipeline, nil when not subscribed.
    func rtcStatsJSON() -> String? {
        guard let pipeline = lock.withLock({ pipeline }) else { return nil }
        let now = Date().timeIntervalSince1970
        let configuration = pipeline.configuration
        var streams: [RTCStatsReport.Stream] = []
        if let video = configuration.videoStream {
            let counters = pipeline.videoCounters.snapshot()
            let size = decodedSize.load(ordering: .relaxed)
            let fps = lock.withLock { rtcFrameRate.rate(frames: counters.frames, now: now) }
            streams.append(RTCStatsReport.Stream(kind: "video", ssrc: video.ssrc, payloadType: video.payloadType,
                                                 clockRate: video.clockRate, counters: counters,
                                                 frameWidth: Int(size >> 32), frameHeight: Int(size & 0xFFFF_FFFF),
                                                 framesPerSecond: fps))
        }
        if let audio = configuration.audioStream {
            streams.append(RTCStatsReport.Stream(kind: "audio", ssrc: audio.ssrc, payloadType: audio.payloadType,
                                                 clockRate: audio.clockRate, counters: pipeline.audioCounters.snapshot()))
        }
        return RTCStatsReport.subscriber(streams, timestamp: (now * 1000).rounded())
    }
}
