import Foundation
import OTMedia
import OTSignaling
import Synchronization

/// Receives one stream (`OTSubscriberKit`): decoded pictures to `videoRender`, sound to
/// the process's audio device (`OTAudioDeviceManager`). Delegate calls arrive on the
/// session's `apiQueue`; `videoRender` is called on the receive thread.
///
/// Cost while subscribed: a `SubscriberPipeline` (a receive thread, an audio playout
/// thread, one UDP socket) and the decoders.
public class OTSubscriberKit: @unchecked Sendable {
    /// Whom the subscriber tells what happens (weak).
    public weak var delegate: (any OTSubscriberKitDelegate)?
    /// Receives the audio level once per second (weak).
    public weak var audioLevelDelegate: (any OTSubscriberKitAudioLevelDelegate)?
    /// Receives statistics once per second (weak).
    public weak var networkStatsDelegate: (any OTSubscriberKitNetworkStatsDelegate)?
    /// Receives the reports `getRtcStatsReport()` asks for (weak).
    public weak var rtcStatsReportDelegate: (any OTSubscriberKitRtcStatsReportDelegate)?
    /// The stream received. Implicitly unwrapped, as OpenTok's Swift interface has it,
    /// so the guides' `subscriber?.stream?.streamId` compiles; never nil here.
    public let stream: OTStream!
    /// Where decoded frames go (held strongly; called on the receive thread).
    public var videoRender: (any OTVideoRender)? {
        get { lock.withLock { storedRender } }
        set { lock.withLock { storedRender = newValue } }
    }
    /// Where this stream's decoded audio goes besides the audio device's mix (nil: only
    /// the device, the default; held strongly; called on the playout thread). Cost: one
    /// lock and the renderer's call per 20 ms frame.
    public var audioRender: (any OTAudioRender)? {
        get { audioControl.render.withLock { $0 } }
        set { audioControl.render.withLock { $0 = newValue } }
    }
    /// The largest size you would like to receive (nil: no preference, the default).
    /// Sent to the router (`subscriberPreferences`): in a routed session it picks the
    /// layer that fits; in a relayed one the publisher is asked to encode no larger than
    /// the largest any subscriber wants. Cost: one signaling message when it changes
    /// while subscribed (set before subscribing, it is sent right after).
    public var preferredResolution: OTVideoDimensions? {
        get { lock.withLock { storedResolution } }
        set {
            lock.withLock { storedResolution = newValue }
            syncPreferences()
        }
    }
    /// The highest frame rate you would like to receive (0: no preference, the default),
    /// as for `preferredResolution`.
    public var preferredFrameRate: Float {
        get { lock.withLock { storedFrameRate } }
        set {
            lock.withLock { storedFrameRate = newValue }
            syncPreferences()
        }
    }

    let lock = NSLock()
    private let audioControl = SubscriberAudioControl()
    private let videoGate = Atomic<Bool>(true)
    private var storedRender: (any OTVideoRender)?
    var storedResolution: OTVideoDimensions?
    var storedFrameRate: Float = 0
    /// The preferences the router was last told (nil: none sent; under `lock`).
    var routerPreferences: SubscriberPreferences?
    /// Where audio fallback stands as the app was told (under `lock`).
    var qualityState = VideoQualityState.normal
    /// Frame rate between `getRtcStatsReport()` calls (under `lock`).
    var rtcFrameRate = FrameRateMeter(start: 0)
    /// The size of the last decoded picture, packed width << 32 | height (receive thread writes).
    let decodedSize = Atomic<UInt64>(0)
    weak var storedSession: OTSession?
    var pipeline: SubscriberPipeline?
    /// Routed: the edge setup whose `transport` the subscribe request carried.
    var edgeSetup: EdgeLegSetup?
    private(set) var subscriberId: String?
    private var interrupted = false
    /// Our edge leg's ICE consent is lost (under `lock`).
    private var consentInterrupted = false
    /// Where a leg lost with a resume stands (OTSubscriberKit+Resubscribe.swift; under `lock`).
    var relegging = Relegging()
    /// What the router was last told this subscriber wants forwarded (nil: not subscribed).
    private var routerForwarding: (audio: Bool, video: Bool)?
    var subscribeWaiters: [CheckedContinuation<Void, any Error>] = []
    /// `await unsubscribe` callers, resumed once the router removed the subscription (under `lock`).
    var unsubscribeWaiters: [CheckedContinuation<Void, any Error>] = []
    /// What `view` returns (OTSubscriberKit+View.swift); fed by the receive thread.
    let linuxView = OTView(domain: .subscriber)

    /// A subscriber for `stream` (`initWithStream:delegate:`), failable as in OpenTok so
    /// the guides' `subscriber = OTSubscriber(stream: stream, delegate: self)` followed
    /// by `subscriber!` (or `if let`) compiles. Nil when the stream's session is gone (it
    /// can no longer be subscribed anywhere). Subscribe it with `OTSession.subscribe`.
    public init?(stream: OTStream, delegate: (any OTSubscriberKitDelegate)?) {
        guard stream.session != nil else { return nil }
        self.stream = stream
        self.delegate = delegate
    }

    /// The session it is subscribed in (nil when not subscribed).
    public var session: OTSession? { lock.withLock { storedSession } }

    /// Whether audio is received and played (default true). False: the router stops
    /// forwarding this stream's audio to this subscriber (no bandwidth used) and nothing
    /// is played; true turns it back on. Set before subscribing, it is part of the
    /// subscribe request. Cost: one signaling message when it changes while subscribed.
    public var subscribeToAudio: Bool {
        get { audioControl.enabled.load(ordering: .relaxed) }
        set {
            audioControl.enabled.store(newValue, ordering: .relaxed)
            syncForwarding()
        }
    }

    /// Whether video is received and rendered (default true). False: the router stops
    /// forwarding this stream's video to this subscriber; true turns it back on, starting
    /// with a keyframe. Changing it reports
    /// `subscriberVideoDisabled/Enabled(reason: .subscriberPropertyChanged)`. Set before
    /// subscribing, it is part of the subscribe request. Cost: one signaling message when
    /// it changes while subscribed.
    public var subscribeToVideo: Bool {
        get { videoGate.load(ordering: .relaxed) }
        set {
            let was = videoGate.exchange(newValue, ordering: .relaxed)
            syncForwarding()
            if was != newValue { reportVideo(enabled: newValue, reason: .subscriberPropertyChanged) }
        }
    }

    // MARK: - Internal

    func attach(to session: OTSession) { lock.withLock { storedSession = session } }

    /// The router set up the leg: start receiving, then `subscriberDidConnect(toStream:)`.
    /// An edge leg's ICE + DTLS run off the work queue (`connectEdge`). Work queue.
    func subscribed(_ reply: SubscribedReply, requested: SubscribeRequest, in session: OTSession) {
        lock.withLock {
            subscriberId = reply.subscriberId
            routerForwarding = (requested.subscribeToAudio, requested.subscribeToVideo)
            relegging.servedBy = reply.mediaNode
        }
        syncForwarding()  // the app may have changed its mind while the request was out
        syncPreferences()  // preferences set before subscribing
        if let leg = reply.media, let router = leg.transport {
            connectEdge(leg, router: router, subscriberId: reply.subscriberId, in: session)
            return
        }
        lock.withLock { edgeSetup = nil }  // an SDES or relayed leg: the edge credentials go unused
        do throws(OTError) {
            try startMedia(reply.media, settings: session.settings, edge: nil)
        } catch {
            session.subscriberFailed(self, error)
            return
        }
        connected(as: reply.subscriberId, in: session)
    }

    private func connected(as subscriberId: String, in session: OTSession) {
        if releggedConnected(as: subscriberId, in: session) { return }
        session.log.add("subscribed to \(stream.streamId) as \(subscriberId)")
        session.onApiQueue {
            self.delegate?.subscriberDidConnect(toStream: self)
            self.resolveSubscribeWaiters(nil)
        }
    }

    /// The router's one-port edge: ICE + DTLS (up to 10 s) on the edge-connect queue, so
    /// the session's work queue goes on meanwhile (signals, other legs, delegate events);
    /// then, back on the work queue, media starts unless the subscription ended meanwhile
    /// (unsubscribed: `await subscribe` throws `CancellationError`; failed or the session
    /// ended: already reported), in which case the connected socket is closed. Work queue.
    private func connectEdge(_ leg: WireMediaLeg, router: WireTransport, subscriberId: String, in session: OTSession) {
        let settings = session.settings
        let setup = lock.withLock { () -> EdgeLegSetup? in
            defer { edgeSetup = nil }
            return edgeSetup
        }
        guard let setup else {
            return session.subscriberFailed(self, OTError(OTSubscriberErrorCode.webRTCError,
                                                          "the router answered with an edge leg to a request without transport"))
        }
        let feedback: SocketAddress
        do throws(OTError) { feedback = try Self.mediaAddress(leg, settings) } catch { return session.subscriberFailed(self, error) }
        EdgeLegSetup.connectQueue.async {
            let outcome: Result<EdgeLegSetup.Connected, OTError>
            do throws(MediaError) {
                outcome = .success(try setup.connect(to: feedback, router: router, bufferBytes: (4 << 20, 1 << 20),
                                                     consent: settings.consentTiming,
                                                     onConsentLost: { [weak self] in self?.consentChanged(lost: true) },
                                                     onConsentRestored: { [weak self] in self?.consentChanged(lost: false) }))
            } catch {
                outcome = .failure(OTError(subscribing: error))
            }
            session.work.async {
                guard session.holds(self, as: subscriberId) else {
                    if case let .success(connected) = outcome { connected.socket.close() }
                    session.onApiQueue { self.resolveSubscribeWaiters(CancellationError()) }
                    return
                }
                do throws(OTError) {
                    try self.startMedia(leg, settings: settings, edge: outcome.get(), at: feedback)
                } catch {
                    session.subscriberFailed(self, error)
                    return
                }
                self.connected(as: subscriberId, in: session)
            }
        }
    }

    /// The leg's address as the pipeline uses it (after the session's rewrite).
    private static func mediaAddress(_ leg: WireMediaLeg, _ settings: OTSessionSettings) throws(OTError) -> SocketAddress {
        let (host, port) = settings.mediaAddressRewrite?(leg.host, leg.port) ?? (leg.host, leg.port)
        guard let address = SocketAddress(ipv4: host, port: UInt16(clamping: port)) ?? SocketAddress(ipv6: host, port: UInt16(clamping: port)) else {
            throw OTError(OTSubscriberErrorCode.webRTCError, "the router's media address \(host):\(port) is not an IP address")
        }
        return address
    }

    /// The leg is the router's (routed) or the publisher's own (relayed, `relayedLeg`):
    /// either way media arrives on our socket and our RTCP goes to the leg's address.
    /// `edge`: the leg connected on the router's one-port edge (keys from its handshake)
    /// at `address` (the rewrite is asked once per leg: a test's rewrite makes a proxy).
    private func startMedia(_ leg: WireMediaLeg?, settings: OTSessionSettings, edge: EdgeLegSetup.Connected?,
                            at address: SocketAddress? = nil) throws(OTError) {
        guard let leg else { return }  // a relayed publisher that announced no leg: no media
        let feedback: SocketAddress
        if let address { feedback = address } else { feedback = try Self.mediaAddress(leg, settings) }
        var configuration = SubscriberConfiguration()
        if let edge {
            configuration.keys = edge.keys
            configuration.connectedSocket = edge.socket
            configuration.consent = edge.consent
        } else {
            configuration.keys = try MediaLegKeys.make(leg, publisherDomain: false)
        }
        configuration.feedbackDestination = feedback
        // Relayed: our keys are derived from this SSRC; the publisher finds them by it.
        if let ssrc = leg.receiverSSRC { configuration.ssrc = ssrc }
        configuration.videoStream = leg.videoSSRC.map { RTPStreamParameters(ssrc: $0, payloadType: 96, clockRate: 90_000) }
        configuration.audioStream = leg.audioSSRC.map { RTPStreamParameters(ssrc: $0, payloadType: 111, clockRate: 48_000) }
        let sink = GatedAudioSink(inner: OTAudioDeviceManager.makeRenderSink(), control: audioControl)
        configuration.audioFormat = sink.format
        // An e2ee session: frames opened with the session's key, dropped unless they verify.
        configuration.endToEndEncryption = session?.endToEndKeySlot
        do {
            let pipeline = try SubscriberPipeline(
                configuration: configuration,
                onVideoFrame: { [weak self] frame, _ in self?.decoded(frame) },
                audioSink: configuration.audioStream == nil ? nil : sink)
            pipeline.decryption.onEvent { [weak self] event in self?.decryptionChanged(event) }
            try pipeline.start()
            lock.withLock {
                self.pipeline = pipeline
                rtcFrameRate = FrameRateMeter(start: Date().timeIntervalSince1970)
            }
        } catch {
            configuration.connectedSocket?.close()
            throw OTError(subscribing: error)
        }
    }

    /// Routed sessions: fresh ICE credentials for this subscription and the process's
    /// certificate, kept for the reply; returns what the request carries (nil when no
    /// certificate can be made: the router then answers with SDES keys).
    func prepareEdgeLeg() -> WireTransport? {
        let setup = EdgeLegSetup()
        lock.withLock { edgeSetup = setup }
        return setup?.wire
    }

    /// Tells the router what to forward when it differs from what it was last told (only
    /// once subscribed). Queued under the lock so changes reach the router in order.
    private func syncForwarding() {
        lock.withLock {
            guard let id = subscriberId, let session = storedSession, let told = routerForwarding else { return }
            let wanted = (audio: audioControl.enabled.load(ordering: .relaxed), video: videoGate.load(ordering: .relaxed))
            guard wanted != told else { return }
            routerForwarding = wanted
            session.sendSubscriptionChange(SubscriptionChange(subscriberId: id, subscribeToAudio: wanted.audio, subscribeToVideo: wanted.video))
        }
    }

    /// The wrapper handed to the renderer, reused while the renderer keeps none (receive thread only).
    private var renderWrapper: OTVideoFrame?

    /// End-to-end decryption started failing (another secret, none, or an internal
    /// failure) or works again. A failure is `subscriber(_:didFailWithError:)` once per
    /// episode — `EncryptionSecretMismatch` (6003) or `OTSubscriberDecryptionInternalError`
    /// (6002) — and the subscriber stays: no frame that fails is rendered, and pictures
    /// come back by themselves once the secrets agree. Receive thread.
    private func decryptionChanged(_ event: SFrameDecryptionMonitor.Event) {
        guard let session else { return }
        switch event {
        case let .failed(code, error):
            let failure = OTError(subscriberCode: Int32(code), code == 6003
                ? "EncryptionSecretMismatch: this subscriber's encryption secret differs from the publisher's (or none is set); frames are dropped"
                : "end-to-end decryption failed: \(error)")
            session.log.add("subscriber \(stream.streamId): \(failure)")
            session.onApiQueue { self.delegate?.subscriber(self, didFailWithError: failure) }
        case .recovered:
            session.log.add("subscriber \(stream.streamId): end-to-end decryption works again")
        }
    }

    /// Receive thread: one decoded picture.
    private func decoded(_ frame: VideoFrame) {
        decodedSize.store(UInt64(frame.width) << 32 | UInt64(frame.height), ordering: .relaxed)
        guard videoGate.load(ordering: .relaxed) else { return }
        linuxView.deliver(frame)
        let (render, session) = lock.withLock { (storedRender, storedSession) }
        if let render {
            render.renderVideoFrame(OTVideoFrame.wrap(frame, reusing: &renderWrapper))
            OTVideoFrame.release(&renderWrapper)
        }
        guard let session, delegate != nil else { return }
        session.apiQueue.async { self.delegate?.subscriberVideoDataReceived(self) }
    }

    /// The publisher's path dropped (`streamInterrupted`): reported unless our own leg's
    /// loss already was. Work queue.
    func reportDisconnected() { pathChanged(publisherAway: true, consentLost: nil) }

    /// The publisher's path is back: reported unless our own leg is still without consent. Work queue.
    func reportReconnected() { pathChanged(publisherAway: false, consentLost: nil) }

    /// Our edge leg's ICE consent (RFC 7675) was lost (no answer for 30 s) or came back:
    /// `subscriberDidDisconnect(fromStream:)` / `subscriberDidReconnect(toStream:)`, as the
    /// reference reports an interrupted stream and its return. Pipeline thread.
    private func consentChanged(lost: Bool) {
        guard let session else { return }
        session.log.add("subscriber to \(stream.streamId): media consent " + (lost
            ? "lost: the router's edge stopped answering consent checks (RFC 7675)" : "restored"))
        session.work.async { self.pathChanged(publisherAway: nil, consentLost: lost) }
    }

    /// The stream counts as disconnected while the publisher is away, our leg has lost
    /// consent or our leg is being made again (`moving`, after a resume lost it); each
    /// change of that is reported once. Work queue.
    func pathChanged(publisherAway: Bool?, consentLost: Bool?, moving: Bool? = nil) {
        guard let session else { return }
        let change = lock.withLock { () -> Bool? in
            let was = interrupted || consentInterrupted || relegging.moving
            if let publisherAway { interrupted = publisherAway }
            if let consentLost { consentInterrupted = consentLost }
            if let moving { relegging.moving = moving }
            let now = interrupted || consentInterrupted || relegging.moving
            return was == now ? nil : now
        }
        guard let change else { return }
        session.onApiQueue {
            if change { self.delegate?.subscriberDidDisconnect(fromStream: self) } else { self.delegate?.subscriberDidReconnect(toStream: self) }
        }
    }

    /// Video stopped or resumed for `reason`.
    func reportVideo(enabled: Bool, reason: OTSubscriberVideoEventReason) {
        guard let session else { return }
        session.work.async {
            session.onApiQueue {
                if enabled { self.delegate?.subscriberVideoEnabled(self, reason: reason) }
                else { self.delegate?.subscriberVideoDisabled(self, reason: reason) }
            }
        }
    }

    /// Stops media and forgets the subscription (its id, what the router was told, its
    /// leg's consent), keeping the session, the app's settings and the stream's path
    /// state: a re-subscribe follows (OTSubscriberKit+Resubscribe.swift). Work queue.
    func dropLeg() {
        let pipeline = lock.withLock { () -> SubscriberPipeline? in
            defer {
                self.pipeline = nil; subscriberId = nil; routerForwarding = nil; consentInterrupted = false
                routerPreferences = nil; qualityState = .normal
            }
            return self.pipeline
        }
        pipeline?.stop()
    }

    /// Stops media and forgets the session.
    func detach() {
        let pipeline = lock.withLock { () -> SubscriberPipeline? in
            defer {
                self.pipeline = nil; storedSession = nil; subscriberId = nil; routerForwarding = nil; interrupted = false; consentInterrupted = false
                routerPreferences = nil; qualityState = .normal; relegging = Relegging()
            }
            return self.pipeline
        }
        pipeline?.stop()
    }

    /// The router confirmed the unsubscribe (or the session ended): `await unsubscribe` returns.
    func resolveUnsubscribeWaiters() {
        let waiters = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
            defer { unsubscribeWaiters = [] }
            return unsubscribeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func resolveSubscribeWaiters(_ error: (any Error)?) {
        let waiters = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
            defer { subscribeWaiters = [] }
            return subscribeWaiters
        }
        for waiter in waiters {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    /// Counter snapshots of the running pipeline.
    var counters: (video: StreamCounters.Snapshot, audio: StreamCounters.Snapshot)? {
        guard let pipeline = lock.withLock({ pipeline }) else { return nil }
        return (pipeline.videoCounters.snapshot(), pipeline.audioCounters.snapshot())
    }

    func statsLines() -> [String] {
        guard let c = counters else { return [] }
        let prefix = "subscriber[\(stream.streamId)]"
        return ["\(prefix).video.packetsReceived=\(c.video.packets)", "\(prefix).video.packetsLost=\(c.video.packetsLost)",
                "\(prefix).video.framesDecoded=\(c.video.frames)", "\(prefix).audio.packetsReceived=\(c.audio.packets)",
                "\(prefix).audio.packetsLost=\(c.audio.packetsLost)"]
    }

    /// Delivers stats and level: video stats only when the stream has a video track,
    /// audio stats only with an audio track. Work queue (stats timer).
    func deliverStats(_ session: OTSession) {
        guard let c = counters, let configuration = lock.withLock({ pipeline?.configuration }) else { return }
        let hasVideo = configuration.videoStream != nil
        let hasAudio = configuration.audioStream != nil
        let now = Date().timeIntervalSince1970 * 1000
        let video = OTSubscriberKitVideoNetworkStats(videoPacketsLost: UInt64(max(0, c.video.packetsLost)), videoPacketsReceived: c.video.packets,
                                                     videoBytesReceived: c.video.bytes, timestamp: now)
        let audio = OTSubscriberKitAudioNetworkStats(audioPacketsLost: UInt64(max(0, c.audio.packetsLost)), audioPacketsReceived: c.audio.packets,
                                                     audioBytesReceived: c.audio.bytes, timestamp: now)
        let level = Float(audioControl.peak.exchange(0, ordering: .relaxed)) / 32768
        session.onApiQueue {
            if let stats = self.networkStatsDelegate {
                if hasVideo { stats.subscriber(self, videoNetworkStatsUpdated: video) }
                if hasAudio { stats.subscriber(self, audioNetworkStatsUpdated: audio) }
            }
            self.audioLevelDelegate?.subscriber(self, audioLevelUpdated: level)
        }
    }
}


/// The audio switch, level and renderer shared by a subscriber and its sink (playout thread).
final class SubscriberAudioControl: Sendable {
    let enabled = Atomic<Bool>(true)
    let peak = Atomic<Int32>(0)
    let render = Mutex<(any OTAudioRender)?>(nil)
}

/// Plays decoded audio unless the subscriber turned audio off; remembers the peak and
/// hands the frame to the subscriber's `audioRender`. Cost per frame: one pass over the
/// samples, one lock.
final class GatedAudioSink: AudioSink, @unchecked Sendable {
    let inner: any AudioSink
    let control: SubscriberAudioControl
    init(inner: any AudioSink, control: SubscriberAudioControl) {
        self.inner = inner
        self.control = control
    }
    var format: AudioFormat { inner.format }
    func start() throws(MediaError) { try inner.start() }
    func stop() { inner.stop() }
    func write(_ frame: AudioFrame) throws(MediaError) {
        guard control.enabled.load(ordering: .relaxed) else { return }
        var highest: Int32 = 0
        for sample in frame.buffer { highest = max(highest, abs(Int32(sample))) }
        if highest > control.peak.load(ordering: .relaxed) { control.peak.store(highest, ordering: .relaxed) }
        // Taken under the lock, called outside it: a renderer may write a file.
        if let render = control.render.withLock({ $0 }) {
            render.renderAudioFrame(UnsafeBufferPointer(start: frame.samples, count: frame.samplesPerChannel * frame.format.channels),
                                    sampleRate: frame.format.sampleRate, channels: frame.format.channels)
        }
        try inner.write(frame)
    }
}
