import Foundation
import OTMedia
import OTSignaling

/// A headless publisher (`OTPublisherKit`): sends audio from the process's audio device
/// and video from a custom capturer (`settings.videoCapture`; without one it publishes
/// audio only) into a session. `OTPublisher` adds the camera.
///
/// One publisher per session, and one session per publisher. Delegate calls arrive on
/// the session's `apiQueue`. Cost while publishing: a `PublisherPipeline` (a capture
/// thread per track, a feedback thread, one UDP socket) and the encoders.
public class OTPublisherKit: @unchecked Sendable {
    /// Whom the publisher tells what happens (weak).
    public weak var delegate: (any OTPublisherKitDelegate)?
    /// Receives the microphone level once per second (weak).
    public weak var audioLevelDelegate: (any OTPublisherKitAudioLevelDelegate)?
    /// Receives send statistics once per second (weak).
    public weak var networkStatsDelegate: (any OTPublisherKitNetworkStatsDelegate)?
    /// Receives the reports `getRtcStatsReport()` asks for (weak).
    public weak var rtcStatsReportDelegate: (any OTPublisherKitRtcStatsReportDelegate)?
    /// The stream's name.
    public let name: String
    /// The custom capturer (from the settings; may be replaced before publishing).
    public var videoCapture: (any OTVideoCapture)? {
        get { lock.withLock { storedCapture } }
        set { lock.withLock { storedCapture = newValue } }
    }
    /// The kind of video (camera for `OTPublisher`, custom for a capturer).
    public var videoType: OTStreamVideoType = .custom

    let lock = NSLock()
    let audioTrack: Bool
    let videoTrack: Bool
    let audioBitrate: Int32
    let opusDtx: Bool
    /// `publisherAudioFallbackEnabled`, read once from the settings.
    let publisherAudioFallback: Bool
    /// `subscriberAudioFallbackEnabled` when the app set it; nil: OpenTok's default by video type.
    let subscriberAudioFallbackSetting: Bool?
    private var storedCapture: (any OTVideoCapture)?
    private weak var storedSession: OTSession?
    private var storedStream: OTStream?
    private var audioOn = true
    private var videoOn = true
    var pipeline: PublisherPipeline?
    private var meter: MeteredAudioSource?
    /// Relayed sessions: the pipeline bound before `publish` (its port and keys are in the
    /// request), started when the router accepts the stream.
    var preparedRelayed: (pipeline: PublisherPipeline, meter: MeteredAudioSource?)?
    /// Routed: the edge setup whose `transport` the publish request carried.
    var edgeSetup: EdgeLegSetup?
    /// The stream the router made while its edge leg connects (before `streamCreated`;
    /// under `lock`).
    var connectingStream: OTStream?
    /// Where the audio-fallback state stands as the app was told (under `lock`).
    var qualityState = VideoQualityState.normal
    /// Relayed sessions: the router's last `encodingPreferences` for this stream (under `lock`).
    var lastEncodingPreferences: EncodingPreferences?
    /// Frame rate between `getRtcStatsReport()` calls (under `lock`).
    var rtcFrameRate = FrameRateMeter(start: 0)
    private var startTime = Date()
    var publishWaiters: [CheckedContinuation<Void, any Error>] = []
    /// Unpublished, waiting for the router's confirmation (under `lock`): it may not be
    /// published again until `streamDestroyed` (or the session's end) detaches it.
    private var unpublishing = false
    /// `await unpublish` callers, resumed when it is detached (under `lock`).
    var unpublishWaiters: [CheckedContinuation<Void, any Error>] = []
    /// What `view` returns (OTPublisherKit+View.swift); fed by the capture thread.
    let linuxView = OTView(domain: .publisher)

    /// A publisher with `settings` (read once). Nothing is opened until it is published.
    public init(delegate: (any OTPublisherKitDelegate)?, settings: OTPublisherKitSettings = OTPublisherKitSettings()) {
        self.delegate = delegate
        name = settings.name ?? ""
        audioTrack = settings.audioTrack
        videoTrack = settings.videoTrack
        audioBitrate = settings.audioBitrate
        opusDtx = settings.enableOpusDtx
        publisherAudioFallback = settings.publisherAudioFallbackEnabled
        subscriberAudioFallbackSetting = settings.storedSubscriberFallback
        storedCapture = settings.videoCapture
    }

    /// The session it publishes into (nil when not publishing).
    public var session: OTSession? { lock.withLock { storedSession } }
    /// Its stream (nil until `publisher(_:streamCreated:)`).
    public var stream: OTStream? { lock.withLock { storedStream } }

    /// Whether audio is sent (default true). False stops captured audio at the encoder
    /// (no packets leave) and tells the session (the stream's `hasAudio` changes).
    public var publishAudio: Bool {
        get { lock.withLock { audioOn } }
        set { setPublishing(audio: newValue, video: nil) }
    }

    /// Whether video is sent (default true), as for `publishAudio`; turning it back on
    /// starts with a keyframe. A change while publishing is reported as
    /// `publisherVideoDisabled/Enabled(reason: .publisherPropertyChanged)`.
    public var publishVideo: Bool {
        get { lock.withLock { videoOn } }
        set { setPublishing(audio: nil, video: newValue) }
    }

    private func setPublishing(audio: Bool?, video: Bool?) {
        let (changed, pipeline, stream, session) = lock.withLock { () -> (Bool, PublisherPipeline?, OTStream?, OTSession?) in
            var changed = false
            if let audio, audio != audioOn { audioOn = audio; changed = true }
            if let video, video != videoOn { videoOn = video; changed = true }
            return (changed, self.pipeline, storedStream, storedSession)
        }
        guard changed else { return }
        if let audio { pipeline?.audioEnabled = audio }
        if let video { pipeline?.videoEnabled = video }
        if let stream, let session {
            stream.update(hasAudio: audio, hasVideo: video)
            session.sendStreamChange(StreamChange(streamId: stream.streamId, hasAudio: audio, hasVideo: video))
            if let video {
                session.work.async {
                    session.onApiQueue {
                        if video { self.delegate?.publisherVideoEnabled(self, reason: .publisherPropertyChanged) }
                        else { self.delegate?.publisherVideoDisabled(self, reason: .publisherPropertyChanged) }
                    }
                }
            }
        }
    }

    // MARK: - Media (subclasses choose the video source)

    /// The video source to publish, or nil for audio only. The kit wraps the capturer.
    func makeVideoSource() throws(OTError) -> (any VideoSource)? {
        guard videoTrack, let capture = videoCapture else { return nil }
        var format = OTVideoFormat.i420(width: 640, height: 480)
        capture.initCapture()
        guard capture.captureSettings(&format) == 0, format.pixelFormat == .i420 else {
            throw OTError(OTPublisherErrorCode.internalError, "the video capturer's captureSettings failed or is not I420")
        }
        do { try format.engineFormat.validate() } catch {
            throw OTError(OTPublisherErrorCode.internalError, "the video capturer's format: \(error.message)")
        }
        let consumer = OTVideoCaptureConsumer(format: format.engineFormat)
        capture.videoCaptureConsumer = consumer
        return CapturerSource(consumer: consumer, capture: capture)
    }

    /// What to announce to the router before media starts.
    func makePublishRequest() -> PublishRequest {
        let (audio, video) = lock.withLock { (audioOn, videoOn) }
        let hasVideoSource = videoTrack && (videoCapture != nil || self is OTPublisher)
        let size = plannedVideoSize()
        return PublishRequest(name: name, hasAudio: audioTrack && audio, hasVideo: hasVideoSource && video,
                              audioTrack: audioTrack, videoTrack: hasVideoSource,
                              videoWidth: hasVideoSource ? size.width : 0, videoHeight: hasVideoSource ? size.height : 0,
                              videoType: videoType.wire,
                              simulcastLayers: hasVideoSource ? Self.simulcastLayers(width: size.width) : nil,
                              subscriberAudioFallback: subscriberAudioFallbackEnabled)
    }

    /// Spatial encodings for a routed stream of this width: the router can then give each
    /// subscriber the size its network and preferences allow without dragging the others
    /// down. Full size plus half and quarter from 1280 pixels, plus half from 640 (a
    /// quarter of 640 is too small to be worth its CPU); one below. Relayed sessions
    /// ignore it (one encoding for the subscribers the publisher serves itself).
    static func simulcastLayers(width: Int) -> Int {
        width >= 1280 ? 3 : width >= 640 ? 2 : 1
    }

    /// The effective `subscriberAudioFallbackEnabled`: the app's choice, else OpenTok's
    /// default (on, except for screen sharing).
    var subscriberAudioFallbackEnabled: Bool { subscriberAudioFallbackSetting ?? (videoType != .screen) }

    /// The size the stream is announced with.
    func plannedVideoSize() -> (width: Int, height: Int) {
        guard let capture = videoCapture else { return (0, 0) }
        var format = OTVideoFormat.i420(width: 640, height: 480)
        _ = capture.captureSettings(&format)
        return (format.imageWidth, format.imageHeight)
    }

    /// Claims the publisher for `session`; throws 1015 if it publishes elsewhere.
    func attach(to session: OTSession) throws(OTError) {
        try lock.withTypedLock { () throws(OTError) in
            if let current = storedSession, current !== session {
                throw OTError(.illegalState, "this publisher already publishes in session \(current.sessionId)")
            }
            guard !unpublishing else {
                throw OTError(.illegalState, "this publisher is still unpublishing: publish it again after streamDestroyed")
            }
            storedSession = session
        }
    }

    /// The router accepted the stream: start media and announce it. An edge leg's ICE +
    /// DTLS run off the work queue (`connectEdge`). Work queue.
    func published(_ reply: PublishedReply, in session: OTSession, own: OTConnection) {
        let stream = OTStream(reply.stream, connection: own, session: session)
        let prepared = lock.withLock { () -> (pipeline: PublisherPipeline, meter: MeteredAudioSource?)? in
            defer { preparedRelayed = nil }
            return preparedRelayed
        }
        if prepared == nil, let leg = reply.media, let router = leg.transport {
            connectEdge(leg, router: router, stream: stream, muted: reply.muted, in: session)
            return
        }
        lock.withLock { edgeSetup = nil }  // an SDES or relayed leg: the edge credentials go unused
        do throws(OTError) {
            if let prepared {
                try run(prepared.pipeline, meter: prepared.meter, startMuted: reply.muted)
            } else {
                try startMedia(reply.media, settings: session.settings, startMuted: reply.muted, edge: nil)
            }
        } catch {
            session.publisherFailed(self, error: error, unpublishStreamId: reply.stream.streamId)
            return
        }
        announce(stream, muted: reply.muted, in: session)
    }

    private func announce(_ stream: OTStream, muted: Bool, in session: OTSession) {
        lock.withLock { storedStream = stream; connectingStream = nil; startTime = Date() }
        session.log.add("publishing stream \(stream.streamId)")
        session.onApiQueue {
            self.delegate?.publisher(self, streamCreated: stream)
            self.resolvePublishWaiters(nil)
        }
        if muted { applyForcedMute() }
    }

    /// The router's one-port edge: ICE + DTLS (up to 10 s) on the edge-connect queue, so
    /// the session's work queue goes on meanwhile; then, back on the work queue, media
    /// starts and the stream is announced, unless the publisher left meanwhile
    /// (unpublished: `await publish` throws `CancellationError`; failed or the session
    /// ended: already reported), in which case the connected socket is closed. The stream
    /// counts as ours while connecting (`connectingStream`). Work queue.
    private func connectEdge(_ leg: WireMediaLeg, router: WireTransport, stream: OTStream, muted: Bool, in session: OTSession) {
        let settings = session.settings
        let setup = lock.withLock { () -> EdgeLegSetup? in
            defer { edgeSetup = nil }
            connectingStream = stream
            return edgeSetup
        }
        let streamId = stream.streamId
        guard let setup else {
            return session.publisherFailed(self, error: OTError(OTPublisherErrorCode.webRTCError,
                                                                "the router answered with an edge leg to a request without transport"),
                                           unpublishStreamId: streamId)
        }
        let destination: SocketAddress
        do throws(OTError) { destination = try Self.mediaAddress(leg, settings) } catch {
            return session.publisherFailed(self, error: error, unpublishStreamId: streamId)
        }
        EdgeLegSetup.connectQueue.async {
            let outcome: Result<EdgeLegSetup.Connected, OTError>
            do throws(MediaError) {
                outcome = .success(try setup.connect(to: destination, router: router, bufferBytes: (1 << 20, 4 << 20),
                                                     consent: settings.consentTiming,
                                                     onConsentLost: { [weak self] in self?.consentChanged(lost: true) },
                                                     onConsentRestored: { [weak self] in self?.consentChanged(lost: false) }))
            } catch {
                outcome = .failure(OTError(publishing: error))
            }
            session.work.async {
                guard session.holds(self), self.lock.withLock({ self.connectingStream === stream }) else {
                    if case let .success(connected) = outcome { connected.socket.close() }
                    session.onApiQueue { self.resolvePublishWaiters(CancellationError()) }
                    return
                }
                do throws(OTError) {
                    try self.startMedia(leg, settings: settings, startMuted: muted, edge: outcome.get(), at: destination)
                } catch {
                    session.publisherFailed(self, error: error, unpublishStreamId: streamId)
                    return
                }
                self.announce(stream, muted: muted, in: session)
            }
        }
    }

    /// The leg's address as the pipeline uses it (after the session's rewrite).
    private static func mediaAddress(_ leg: WireMediaLeg, _ settings: OTSessionSettings) throws(OTError) -> SocketAddress {
        let (host, port) = settings.mediaAddressRewrite?(leg.host, leg.port) ?? (leg.host, leg.port)
        guard let address = SocketAddress(ipv4: host, port: UInt16(clamping: port)) ?? SocketAddress(ipv6: host, port: UInt16(clamping: port)) else {
            throw OTError(OTPublisherErrorCode.webRTCError, "the router's media address \(host):\(port) is not an IP address")
        }
        return address
    }

    /// Routed sessions: media to the router's leg, SDES keys or (`edge`) the keys of the
    /// edge leg's handshake. (Relayed sessions prepared their pipeline before publishing;
    /// without a leg and without one, there is no media.)
    /// `address`: where the edge leg connected (the rewrite is asked once per leg: a
    /// test's rewrite makes a proxy).
    private func startMedia(_ leg: WireMediaLeg?, settings: OTSessionSettings, startMuted: Bool,
                            edge: EdgeLegSetup.Connected?, at address: SocketAddress? = nil) throws(OTError) {
        guard let leg else { return }
        let destination: SocketAddress
        if let address { destination = address } else { destination = try Self.mediaAddress(leg, settings) }
        let keys: SRTPLegKeys
        if let edge { keys = edge.keys } else { keys = try MediaLegKeys.make(leg, publisherDomain: true) }
        let (pipeline, meter) = try makePipeline(destination: destination, keys: keys, videoSSRC: leg.videoSSRC,
                                                 audioSSRC: leg.audioSSRC, simulcastSSRCs: leg.simulcastSSRCs ?? [],
                                                 relayed: false, edge: edge)
        try run(pipeline, meter: meter, startMuted: startMuted)
    }

    /// Routed sessions: fresh ICE credentials for this publish and the process's
    /// certificate, kept for the reply; returns what the request carries (nil when no
    /// certificate can be made: the router then answers with SDES keys).
    func prepareEdgeLeg() -> WireTransport? {
        let setup = EdgeLegSetup()
        lock.withLock { edgeSetup = setup }
        return setup?.wire
    }

    /// Binds a pipeline (socket, encoders' settings, sources); starts nothing.
    /// With `edge`, the pipeline runs on the edge leg's connected socket (closed here if
    /// the pipeline cannot be made) and sends its consent checks.
    func makePipeline(destination: SocketAddress, keys: SRTPLegKeys, videoSSRC: UInt32?, audioSSRC: UInt32?,
                      simulcastSSRCs: [UInt32] = [], relayed: Bool,
                      edge: EdgeLegSetup.Connected? = nil) throws(OTError) -> (PublisherPipeline, MeteredAudioSource?) {
        do throws(OTError) {
            return try makePipeline(destination: destination, keys: keys, videoSSRC: videoSSRC, audioSSRC: audioSSRC,
                                    simulcastSSRCs: simulcastSSRCs, relayed: relayed, edgeSocket: edge?.socket,
                                    consent: edge?.consent)
        } catch {
            edge?.socket.close()
            throw error
        }
    }

    private func makePipeline(destination: SocketAddress, keys: SRTPLegKeys, videoSSRC: UInt32?, audioSSRC: UInt32?,
                              simulcastSSRCs: [UInt32], relayed: Bool, edgeSocket: UDPSocket?,
                              consent: ICEConsentKeeper?) throws(OTError) -> (PublisherPipeline, MeteredAudioSource?) {
        let videoSource = try makeVideoSource().map { ViewTapSource($0, view: linuxView) as any VideoSource }
        let audioSource: MeteredAudioSource?
        if audioTrack {
            do { audioSource = MeteredAudioSource(try OTAudioDeviceManager.makeCaptureSource()) } catch {
                throw OTError(publishing: error)
            }
        } else {
            audioSource = nil
        }
        var video: VP8EncoderSettings?
        if let format = videoSource?.format {
            let pixelsPerSecond = Double(format.width * format.height) * format.frameRate
            video = VP8EncoderSettings(width: format.width, height: format.height, frameRate: format.frameRate,
                                       bitrateKbps: min(2500, max(150, Int(pixelsPerSecond * 0.07 / 1000))))
        }
        var audio: OpusEncoderSettings?
        if let format = audioSource?.format {
            var opus = OpusEncoderSettings(format: format)
            opus.bitrate = Int(audioBitrate)
            opus.dtx = opusDtx
            opus.inbandFEC = true
            audio = opus
        }
        var configuration = PublisherConfiguration(destination: destination, video: video, audio: audio)
        configuration.keys = keys
        configuration.connectedSocket = edgeSocket
        configuration.consent = consent
        if let ssrc = videoSSRC { configuration.videoStream = .vp8(ssrc: ssrc) }
        if let ssrc = audioSSRC { configuration.audioStream = .opus(ssrc: ssrc) }
        configuration.audioFallbackEnabled = publisherAudioFallback
        // An e2ee session: every frame sealed under the session's key (docs/e2ee.md).
        configuration.endToEndEncryption = session?.endToEndKeySlot
        // Routed: temporal layers (the router thins frame rate per subscriber) and the
        // simulcast encodings the router gave SSRCs for.
        if !relayed { configuration.useRoutedLayers(simulcastSSRCs: simulcastSSRCs) }
        // Relayed: the stream goes to every subscriber heard from (authenticated RTCP),
        // each with keys of its own (the router hands out the same derivation).
        configuration.relayedFanOut = relayed
        configuration.relayedKeysPerReceiver = relayed
        do {
            return (try PublisherPipeline(configuration: configuration, videoSource: videoSource, audioSource: audioSource), audioSource)
        } catch {
            throw OTError(publishing: error)
        }
    }

    /// Switches, hooks and threads on: media flows.
    private func run(_ pipeline: PublisherPipeline, meter: MeteredAudioSource?, startMuted: Bool) throws(OTError) {
        let (audioOn, videoOn) = lock.withLock { (self.audioOn, self.videoOn) }
        // Published into a muted session: not one audio frame reaches the encoder.
        pipeline.audioEnabled = audioOn && !startMuted
        pipeline.videoEnabled = videoOn
        pipeline.onVideoQualityEvent { [weak self] event in self?.videoQualityEvent(event) }
        pipeline.onEncryptionFailure { [weak self] error in self?.encryptionFailed(error) }
        do {
            try pipeline.start()
        } catch {
            throw OTError(publishing: error)
        }
        let limit = lock.withLock { () -> EncodingPreferences? in
            self.pipeline = pipeline
            self.meter = meter
            rtcFrameRate = FrameRateMeter(start: Date().timeIntervalSince1970)
            return lastEncodingPreferences
        }
        if let limit {
            pipeline.setEncodingLimit(maxWidth: limit.maxWidth, maxHeight: limit.maxHeight, maxFrameRate: limit.maxFrameRate)
        }
    }

    /// Our edge leg's ICE consent (RFC 7675) was lost (no answer for 30 s) or came back.
    /// OTPublisherKitDelegate has no event for an interrupted media path (its only failure,
    /// `didFailWithError`, ends the publisher, while the router keeps the leg so media
    /// resumes), so this is an OTKit notice: `.publisherMediaInterrupted` (1610) and
    /// `.publisherMediaResumed` (code 0). Pipeline thread.
    private func consentChanged(lost: Bool) {
        guard let session else { return }
        if lost {
            session.notify(.publisherMediaInterrupted, OTError(OTPublisherErrorCode.webRTCError,
                "the media server stopped answering ICE consent checks (RFC 7675); the stream's media is not reaching it"))
        } else {
            session.notify(.publisherMediaResumed, OTError(OTPublisherErrorCode.success, "the media server answers ICE consent checks again"))
        }
    }

    /// Sealing a frame failed for an internal reason (no frame can go out encrypted):
    /// `OTPublisherEncryptionInternalError` (6001) ends the publisher. Media thread.
    private func encryptionFailed(_ error: SFrameError) {
        guard let session else { return }
        let streamId = stream?.streamId
        session.work.async {
            session.publisherFailed(self, error: OTError(.encryptionInternalError, "end-to-end encryption failed: \(error)"),
                                    unpublishStreamId: streamId)
        }
    }

    /// A moderator muted this stream: audio off at the encoder, announced, then `muteForced`.
    func applyForcedMute() {
        setPublishing(audio: false, video: nil)
        guard let session else { return }
        session.log.add("audio muted by a moderator")
        // Straight onto apiQueue (we are on the work queue): the delegate call keeps the
        // order the router's messages came in (a mute-all's per-stream muteForced comes
        // before the session-wide one). A hop through the work queue let a message that
        // was already queued there overtake it.
        session.onApiQueue { self.delegate?.muteForced(self) }
    }

    /// Whether `streamId` is the stream this publisher publishes.
    /// Whether `streamId` is the stream this publisher publishes (announced, or its edge
    /// leg still connecting).
    func ownsStream(_ streamId: String) -> Bool { lock.withLock { (storedStream ?? connectingStream)?.streamId == streamId } }

    /// The stream the router made, announced or not yet (its edge leg connecting).
    var routerStream: OTStream? { lock.withLock { storedStream ?? connectingStream } }

    /// `unpublish` took it out of the session; the router has not confirmed yet.
    func markUnpublishing() { lock.withLock { unpublishing = true } }

    /// The stream ended (unpublish confirmed, forced unpublish): stop media, drop our own
    /// subscribers of it, tell the delegate, detach.
    func streamEnded(_ session: OTSession, reason: String) {
        let connecting = lock.withLock { connectingStream }
        let stream = detach() ?? connecting  // unpublished while connecting: ends like a cancelled publish
        session.log.add("stream ended: \(reason)")
        guard let stream else { return }
        session.dropSubscribers(ofOwnStream: stream.streamId)
        session.onApiQueue { self.delegate?.publisher(self, streamDestroyed: stream) }
    }

    /// A publish the app cancelled with `unpublish` before the router answered: the
    /// stream the router made (nil when the session ended first) was removed. The
    /// delegate gets its `streamDestroyed`; `await publish` throws `CancellationError`.
    func publishCancelled(_ session: OTSession, stream: OTStream?) {
        detach()
        session.log.add("publish cancelled by unpublish")
        session.onApiQueue {
            if let stream { self.delegate?.publisher(self, streamDestroyed: stream) }
            self.resolvePublishWaiters(CancellationError())
        }
    }

    /// The session ended while publishing.
    func sessionEnded(_ session: OTSession) {
        let stream = detach()
        session.onApiQueue {
            if let stream { self.delegate?.publisher(self, streamDestroyed: stream) }
            self.resolvePublishWaiters(OTError(OTPublisherErrorCode.sessionDisconnected, "the session disconnected"))
        }
    }

    /// Stops media and forgets the session; returns the stream it had.
    @discardableResult
    func detach() -> OTStream? {
        stopMedia()
        let (stream, unpublished) = lock.withLock { () -> (OTStream?, [CheckedContinuation<Void, any Error>]) in
            defer {
                storedStream = nil; connectingStream = nil; storedSession = nil; unpublishing = false; unpublishWaiters = []
                qualityState = .normal; lastEncodingPreferences = nil
            }
            return (storedStream, unpublishWaiters)
        }
        for waiter in unpublished { waiter.resume() }
        return stream
    }

    /// Stops the pipeline (running or prepared) and releases the capturer; the stream and
    /// session stay until `detach` (an unpublish waiting for the router). Idempotent.
    func stopMedia() {
        let (running, capture) = lock.withLock { () -> (PublisherPipeline?, (any OTVideoCapture)?) in
            defer { self.pipeline = nil; self.meter = nil; preparedRelayed = nil }
            return (self.pipeline ?? preparedRelayed?.pipeline, storedCapture)
        }
        guard let running else { return }
        running.stop()
        if let capture {
            _ = capture.stopCapture()
            capture.releaseCapture()
        }
    }

    func resolvePublishWaiters(_ error: (any Error)?) {
        let waiters = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
            defer { publishWaiters = [] }
            return publishWaiters
        }
        for waiter in waiters {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    // MARK: - Statistics

    /// Counter snapshots of the running pipeline (nil when not publishing).
    var counters: (video: StreamCounters.Snapshot, audio: StreamCounters.Snapshot, droppedAudio: UInt64, droppedVideo: UInt64)? {
        guard let pipeline = lock.withLock({ pipeline }) else { return nil }
        return (pipeline.videoCounters.snapshot(), pipeline.audioCounters.snapshot(),
                pipeline.audioFramesDroppedWhileDisabled, pipeline.videoFramesDroppedWhileDisabled)
    }

    func statsLines() -> [String] {
        guard let c = counters else { return [] }
        return ["publisher.video.packetsSent=\(c.video.packets)", "publisher.video.bytesSent=\(c.video.bytes)",
                "publisher.video.packetsLost=\(c.video.packetsLost)", "publisher.video.framesEncoded=\(c.video.frames)",
                "publisher.audio.packetsSent=\(c.audio.packets)", "publisher.audio.bytesSent=\(c.audio.bytes)",
                "publisher.audio.packetsLost=\(c.audio.packetsLost)", "publisher.audio.framesDroppedMuted=\(c.droppedAudio)"]
    }

    /// Delivers stats and level to their delegates: video stats only with a video track,
    /// audio stats only with an audio track (as OpenTok). Work queue (stats timer).
    func deliverStats(_ session: OTSession) {
        guard let c = counters, let configuration = lock.withLock({ pipeline?.configuration }) else { return }
        if let encoding = lock.withLock({ pipeline?.currentVideoEncoding }) {
            announceVideoSize(OTVideoDimensions(width: encoding.width, height: encoding.height), in: session)
        }
        let hasVideo = configuration.video != nil
        let hasAudio = configuration.audio != nil
        let level = lock.withLock { meter }?.takeLevel() ?? 0
        let now = Date().timeIntervalSince1970 * 1000
        let start = lock.withLock { startTime.timeIntervalSince1970 * 1000 }
        let video = OTPublisherKitVideoNetworkStats(connectionId: "", subscriberId: "", videoPacketsLost: c.video.packetsLost,
                                                    videoPacketsSent: Int64(c.video.packets), videoBytesSent: Int64(c.video.bytes),
                                                    timestamp: now, startTime: start)
        let audio = OTPublisherKitAudioNetworkStats(connectionId: "", subscriberId: "", audioPacketsLost: c.audio.packetsLost,
                                                    audioPacketsSent: Int64(c.audio.packets), audioBytesSent: Int64(c.audio.bytes),
                                                    timestamp: now, startTime: start)
        session.onApiQueue {
            if let stats = self.networkStatsDelegate {
                if hasVideo { stats.publisher(self, videoNetworkStatsUpdated: [video]) }
                if hasAudio { stats.publisher(self, audioNetworkStatsUpdated: [audio]) }
            }
            self.audioLevelDelegate?.publisher(self, audioLevelUpdated: level)
        }
    }

    /// The stream's encoded size changed (quality adaptation): update our own stream and
    /// tell the router, which tells the subscribers (`OTStream.videoDimensions`). Checked
    /// once per stats interval. Work queue.
    func announceVideoSize(_ size: OTVideoDimensions, in session: OTSession) {
        guard let stream = lock.withLock({ storedStream }), stream.update(videoDimensions: size) else { return }
        session.sendStreamChange(StreamChange(streamId: stream.streamId, hasAudio: nil, hasVideo: nil,
                                              videoWidth: size.width, videoHeight: size.height))
    }
}

/// A capturer's frames as a `VideoSource` that also starts and stops the capturer.
final class CapturerSource: VideoSource, @unchecked Sendable {
    let consumer: OTVideoCaptureConsumer
    let capture: any OTVideoCapture
    init(consumer: OTVideoCaptureConsumer, capture: any OTVideoCapture) {
        self.consumer = consumer
        self.capture = capture
    }
    var format: VideoFormat { consumer.format }
    var statistics: CaptureStatistics { consumer.statistics }
    func start() throws(MediaError) {
        try consumer.start()
        guard capture.startCapture() == 0 else { throw MediaError(.systemError, "the video capturer's startCapture failed") }
    }
    func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> VideoFrame? {
        try consumer.nextFrame(timeoutMilliseconds: timeoutMilliseconds)
    }
    func stop() {
        _ = capture.stopCapture()
        consumer.stop()
    }
}
