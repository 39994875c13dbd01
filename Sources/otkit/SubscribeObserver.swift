import OTKit
import OTMedia

/// The subscribe command's session delegate: subscribes to each matching stream as it
/// appears (on the API queue), keeps one `StreamWatch` per stream across reconnects,
/// and prints their status.
final class SubscribeObserver: OTSessionDelegate, @unchecked Sendable {
    private let reporter: Reporter
    private let only: String?
    private let directory: String?
    /// `--show`: each subscriber's view opens a window.
    private let show: Bool
    private let lock = Lock()
    private var watches: [String: StreamWatch] = [:]
    private var subscribers: [String: OTSubscriber] = [:]
    private var connected = false
    private var ended = false
    private var error: OTError?

    init(reporter: Reporter, only: String?, directory: String?, show: Bool = false) {
        self.reporter = reporter
        self.only = only
        self.directory = directory
        self.show = show
    }

    var isConnected: Bool { lock.locked { connected } }
    var hasEnded: Bool { lock.locked { ended } }
    var lastError: OTError? { lock.locked { error } }

    /// Before a new connection: forgets the old session's subscribers and state.
    func reset() {
        let old = lock.locked { () -> [OTSubscriber] in
            defer { connected = false; ended = false; error = nil; subscribers = [:] }
            return Array(subscribers.values)
        }
        if show { for subscriber in old { subscriber.view?.removeFromSuperview() } }
    }

    func sessionDidConnect(_ session: OTSession) {
        lock.locked { connected = true }
        reporter.event("connected", "connected to session \(session.sessionId)")
    }

    func sessionDidDisconnect(_ session: OTSession) {
        lock.locked { connected = false; ended = true }
        reporter.event("disconnected", "disconnected from the session")
    }

    func session(_ session: OTSession, didFailWithError error: OTError) {
        lock.locked { self.error = error; if !connected { ended = true } }
        reporter.event("session_error", "session error \(error.code): \(error.message)", [("code", .int(Int(error.code)))])
    }

    func sessionDidBeginReconnecting(_ session: OTSession) { reporter.event("reconnecting", "connection lost; reconnecting") }
    func sessionDidReconnect(_ session: OTSession) { reporter.event("reconnected", "reconnected") }

    func session(_ session: OTSession, streamCreated stream: OTStream) {
        if let only, stream.streamId != only { return }
        let watch = lock.locked { () -> StreamWatch in
            if let existing = watches[stream.streamId] { return existing }
            let reporter = self.reporter, streamId = stream.streamId
            let recorder = StreamRecorder(streamId: streamId, directory: directory) { width, height in
                reporter.event("first_frame", "stream \(streamId): first frame decoded (\(width)x\(height))",
                               [("streamId", .text(streamId)), ("width", .int(width)), ("height", .int(height))])
            }
            let created = StreamWatch(recorder: recorder, reporter: reporter)
            watches[stream.streamId] = created
            return created
        }
        guard let subscriber = OTSubscriber(stream: stream, delegate: watch) else {
            reporter.event("subscriber_error", "cannot subscribe to \(stream.streamId): its session is gone")
            return
        }
        subscriber.videoRender = watch.recorder
        subscriber.audioRender = watch.recorder
        subscriber.networkStatsDelegate = watch
        do {
            try session.subscribe(subscriber)
            lock.locked { subscribers[stream.streamId] = subscriber }
            if show {
                do {
                    let view = subscriber.view
                    try view?.show(title: "otkit subscribe: stream \(stream.streamId)")
                    let window = Int(view?.x11WindowID ?? 0)
                    reporter.event("window", "stream \(stream.streamId) shown in X11 window \(window)",
                                   [("streamId", .text(stream.streamId)), ("windowId", .int(window))])
                } catch {
                    reporter.event("view_error", "cannot show stream \(stream.streamId): \(error.message)")
                }
            }
            reporter.event("stream", "subscribing to stream \(stream.streamId) (\(stream.name ?? "no name"))",
                           [("streamId", .text(stream.streamId)), ("name", .text(stream.name ?? ""))])
        } catch {
            reporter.event("subscriber_error", "cannot subscribe to \(stream.streamId): \(error.message)")
        }
    }

    func session(_ session: OTSession, streamDestroyed stream: OTStream) {
        guard let subscriber = lock.locked({ subscribers.removeValue(forKey: stream.streamId) }) else { return }
        if show { subscriber.view?.removeFromSuperview() }  // as the guides do when a stream ends
        reporter.event("stream_ended", "stream \(stream.streamId) ended", [("streamId", .text(stream.streamId))])
    }

    /// One status report over every stream seen.
    func report() {
        let list = lock.locked { watches.values.sorted { $0.recorder.streamId < $1.recorder.streamId } }
        if list.isEmpty {
            reporter.status("connected  no stream yet", [("streams", .int(0))])
            return
        }
        var parts: [String] = []
        for watch in list {
            let line = watch.sample()
            parts.append(line.text)
            if reporter.json { reporter.status("", line.fields) }
        }
        if !reporter.json { reporter.status(parts.joined(separator: " | "), []) }
    }

    /// Closes every recording.
    func finish() {
        let list = lock.locked { Array(watches.values) }
        for watch in list {
            watch.recorder.close()
            let c = watch.recorder.counts()
            let audio = watch.recorder.audioFrameCount
            reporter.event("summary", "stream \(watch.recorder.streamId): \(c.frames) frames decoded, \(c.stamped) with frame numbers, \(audio) audio frames",
                           [("streamId", .text(watch.recorder.streamId)), ("frames", .int(c.frames)), ("stamped", .int(c.stamped)),
                            ("audioFrames", .int(audio))])
        }
    }
}

/// One stream's subscriber delegate and stats, plus its recorder.
final class StreamWatch: OTSubscriberKitDelegate, OTSubscriberKitNetworkStatsDelegate, @unchecked Sendable {
    let recorder: StreamRecorder
    private let reporter: Reporter
    private let lock = Lock()
    private var video: (lost: UInt64, packets: UInt64, bytes: UInt64) = (0, 0, 0)
    private var audioPackets: UInt64 = 0
    private var last = (time: MonotonicTime.now(), frames: 0, bytes: UInt64(0))

    init(recorder: StreamRecorder, reporter: Reporter) {
        self.recorder = recorder
        self.reporter = reporter
    }

    func subscriberDidConnect(toStream subscriber: OTSubscriberKit) {}
    func subscriber(_ subscriber: OTSubscriberKit, didFailWithError error: OTError) {
        reporter.event("subscriber_error", "stream \(recorder.streamId): \(error.code) \(error.message)", [("code", .int(Int(error.code)))])
    }
    func subscriberDidDisconnect(fromStream subscriber: OTSubscriberKit) {
        reporter.event("stream_interrupted", "stream \(recorder.streamId) interrupted", [("streamId", .text(recorder.streamId))])
    }
    func subscriberDidReconnect(toStream subscriber: OTSubscriberKit) {
        reporter.event("stream_resumed", "stream \(recorder.streamId) resumed", [("streamId", .text(recorder.streamId))])
    }

    // Audio fallback and video switches, so a log shows why a stream's video paused.
    func subscriberVideoDisableWarning(_ subscriber: OTSubscriberKit) {
        reporter.event("video_warning", "stream \(recorder.streamId): the network may not carry video much longer",
                       [("streamId", .text(recorder.streamId))])
    }
    func subscriberVideoDisableWarningLifted(_ subscriber: OTSubscriberKit) {
        reporter.event("video_warning_lifted", "stream \(recorder.streamId): video is safe again", [("streamId", .text(recorder.streamId))])
    }
    func subscriberVideoDisabled(_ subscriber: OTSubscriberKit, reason: OTSubscriberVideoEventReason) {
        reporter.event("video_disabled", "stream \(recorder.streamId): video off (\(Self.describe(reason))); audio goes on",
                       [("streamId", .text(recorder.streamId)), ("reason", .text(Self.describe(reason)))])
    }
    func subscriberVideoEnabled(_ subscriber: OTSubscriberKit, reason: OTSubscriberVideoEventReason) {
        reporter.event("video_enabled", "stream \(recorder.streamId): video back (\(Self.describe(reason)))",
                       [("streamId", .text(recorder.streamId)), ("reason", .text(Self.describe(reason)))])
    }

    private static func describe(_ reason: OTSubscriberVideoEventReason) -> String {
        switch reason {
        case .publisherPropertyChanged: return "publisherPropertyChanged"
        case .subscriberPropertyChanged: return "subscriberPropertyChanged"
        case .qualityChanged: return "qualityChanged"
        case .codecNotSupported: return "codecNotSupported"
        }
    }

    func subscriber(_ subscriber: OTSubscriberKit, videoNetworkStatsUpdated stats: OTSubscriberKitVideoNetworkStats) {
        lock.locked { video = (stats.videoPacketsLost, stats.videoPacketsReceived, stats.videoBytesReceived) }
    }

    func subscriber(_ subscriber: OTSubscriberKit, audioNetworkStatsUpdated stats: OTSubscriberKitAudioNetworkStats) {
        lock.locked { audioPackets = stats.audioPacketsReceived }
    }

    /// The stream's rates since the last sample, as text and as log fields.
    func sample() -> (text: String, fields: [(String, LogValue)]) {
        let c = recorder.counts()
        let (stats, audio) = lock.locked { (video, audioPackets) }
        let now = MonotonicTime.now()
        let elapsed = max(0.001, now - last.time)
        let fps = Double(c.frames - last.frames) / elapsed
        let kbps = Double(stats.bytes &- last.bytes) * 8 / elapsed / 1000
        last = (now, c.frames, stats.bytes)
        let total = stats.packets + stats.lost
        let loss = total > 0 ? Double(stats.lost) * 100 / Double(total) : 0
        let short = String(recorder.streamId.prefix(8))
        return ("\(short) \(c.width)x\(c.height) \(formatted(fps, 1)) fps \(Int(kbps)) kbps loss \(formatted(loss, 1)) % frames \(c.frames)",
                [("streamId", .text(recorder.streamId)), ("width", .int(c.width)), ("height", .int(c.height)),
                 ("fps", .number(fps)), ("kbps", .number(kbps)), ("lossPercent", .number(loss)), ("frames", .int(c.frames)),
                 ("stamped", .int(c.stamped)), ("videoPackets", .int(Int(stats.packets))),
                 ("videoLost", .int(Int(stats.lost))), ("audioPackets", .int(Int(audio)))])
    }
}
