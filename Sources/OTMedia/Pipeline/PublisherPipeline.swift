import Synchronization

/// Sends a video source and an audio source as RTP over one UDP socket: frames are
/// encoded (VP8, Opus), packetized (RFC 7741, RFC 7587), protected (SRTP) and sent in
/// batches; RTCP from the receiver comes back on the same socket (RFC 5761) and is
/// answered: NACKs with retransmissions, PLI/FIR with a keyframe, receiver reports
/// turned into loss, jitter and RTT. Sender reports go out every second.
///
/// Threads: one capture thread per stream (source → encoder → socket) and one feedback
/// thread (socket → RTCP). They share the socket (the kernel serializes datagrams), the
/// retransmission store (a lock around memcpys) and atomics; no lock is held across
/// I/O and nothing is allocated per frame or packet in steady state.
///
/// Lifetime: like a running `Thread`, a started pipeline is kept alive by its threads
/// until `stop()`; call it when done (dropping the last reference does not stop it).
public final class PublisherPipeline: Sendable {
    /// The configuration it runs with.
    public let configuration: PublisherConfiguration
    /// The local address of the socket (its port was chosen at init when 0).
    public let localAddress: SocketAddress
    /// Video counters: packets/bytes sent, frames and keyframes encoded, NACKs and PLIs
    /// received, retransmissions, loss/jitter/RTT from receiver reports.
    public let videoCounters = StreamCounters()
    /// Audio counters, as for video.
    public let audioCounters = StreamCounters()
    /// STUN and DTLS datagrams taken out before SRTP (a leg on the router's edge).
    public let edgeDatagrams = EdgeDatagramCounters()

    let socket: UDPSocket
    let clock: any MediaClock
    let videoSender: RTPStreamSender?
    let audioSender: RTPStreamSender?
    let retransmissions = RetransmissionStore()
    let keyframeRequested = Atomic<Bool>(false)
    let audioSwitch = Atomic<Bool>(true)
    let videoSwitch = Atomic<Bool>(true)
    let audioFramesDisabled = Atomic<UInt64>(0)
    let videoFramesDisabled = Atomic<UInt64>(0)
    /// The video bitrate the congestion controller allows now, bits per second (0: no
    /// estimate yet; the encoder keeps its configured rate). Written by the feedback
    /// thread, read by the video thread once per frame.
    let videoTargetBitrate = Atomic<UInt64>(0)
    /// The smaller simulcast encodings' senders (½ then ¼ size); empty without simulcast.
    let simulcastSenders: [RTPStreamSender]
    /// One retransmission store per simulcast sender (same order).
    let simulcastRetransmissions: [RetransmissionStore]
    /// Per-encoding keyframe requests (bit i: encoding i, 0 = full size) from PLI/FIR
    /// naming one SSRC; `keyframeRequested` asks every encoding.
    let keyframeRequestMask = Atomic<UInt32>(0)
    /// The encoding limit (relayed `encodingPreferences`); the video thread re-reads it
    /// when `encodingLimitGeneration` moves (one atomic load per frame).
    let encodingLimitValue = Mutex<VideoEncodingLimit>(.none)
    let encodingLimitGeneration = Atomic<UInt64>(0)
    /// What each encoding produces, published by the video thread on changes.
    let encodingStates = Mutex<[VideoEncodingState]>([])
    /// `AudioFallbackState` as 0 normal, 1 warning, 2 video disabled, 3 probing.
    let fallbackStateValue = Atomic<UInt8>(0)
    let videoEventHook = Mutex<(@Sendable (AudioFallbackEvent) -> Void)?>(nil)
    let videoFramesDecimatedCount = Atomic<UInt64>(0)
    /// Bits of video (and retransmissions) waiting in the transport's pacer, written by the
    /// transport thread after each send turn, read by the video thread (encoder pushback).
    let pacerVideoBacklogBits = Atomic<UInt64>(0)
    /// Captured frames not encoded because the pacer still held too much video.
    let videoFramesPushedBackCount = Atomic<UInt64>(0)
    let videoFramesSuspendedCount = Atomic<UInt64>(0)
    let pool: PacketBufferPool
    /// The most packet buffers the pipeline's pool grows to.
    static let maximumPacketBuffers = 1200
    /// Packet buffers the pool has made so far: `PublisherConfiguration.packetBufferCount`
    /// at creation, more if every buffer was in flight at once (each made on the capture
    /// thread, two allocations). Cost: one uncontended lock.
    public var packetBuffersCreated: Int { pool.createdCount }
    /// Relayed receivers (their RTCP SSRCs) to drop, handed to the transport thread, which
    /// checks `hasRevocations` once per turn.
    let revocations = Mutex<[UInt32]>([])
    let hasRevocations = Atomic<Bool>(false)
    /// Packets the capture threads hand to the transport (feedback) thread for pacing.
    let outgoing = OutgoingPacketQueue(capacity: 512)
    /// Congestion-control counters: estimate, video target, pacing and padding rates,
    /// feedback and probe packets, pacer drops and bursts.
    public let transportCounters = TransportCounters()
    private let videoSource: (any VideoSource)?
    private let audioSource: (any AudioSource)?
    private let threads = Mutex<[LoopThread]>([])
    private let feedback = Mutex<PipelineThread?>(nil)
    /// The transport's lock for the video capture thread's direct sends (nil when stopped).
    private let transportAccess = Mutex<PublisherTransportAccess?>(nil)
    private let errors = Mutex<[MediaError]>([])
    /// End-to-end encryption: frames not sent for want of a key, and the failure hook
    /// (`PublisherPipeline+E2EE`).
    let framesWithoutKey = Atomic<UInt64>(0)
    let encryptionFailureHook = Mutex<(@Sendable (SFrameError) -> Void)?>(nil)
    let encryptionFailedOnce = Atomic<Bool>(false)
    /// The hook sits in a class box: taking a bare closure out of the generic `Mutex`
    /// reabstracts it, which allocated 4 times per frame on the capture thread.
    private let frameHook = Mutex<FrameHook?>(nil)
    /// Lets the capture thread skip `frameHook`'s lock on every frame when no hook is set.
    private let hasFrameHook = Atomic<Bool>(false)

    /// Binds the socket and prepares encoders' parameters; nothing is sent before
    /// `start()`. Throws when a codec setting or the socket is refused.
    public init(configuration: PublisherConfiguration, videoSource: (any VideoSource)?, audioSource: (any AudioSource)?,
                clock: any MediaClock = SystemMediaClock()) throws(MediaError) {
        self.configuration = configuration
        self.clock = clock
        self.videoSource = configuration.video == nil ? nil : videoSource
        self.audioSource = configuration.audio == nil ? nil : audioSource
        do {
            socket = try configuration.connectedSocket
                ?? UDPSocket(bindingTo: configuration.localAddress, receiveBufferBytes: 1 << 20, sendBufferBytes: 4 << 20,
                             clock: clock)
        } catch {
            throw MediaError(.networkFailure, "cannot bind the publisher's socket to \(configuration.localAddress): \(error)")
        }
        localAddress = socket.localAddress
        videoSender = self.videoSource == nil ? nil
            : try RTPStreamSender(parameters: configuration.videoStream, keys: configuration.streamKeys?.send)
        audioSender = self.audioSource == nil ? nil
            : try RTPStreamSender(parameters: configuration.audioStream, keys: configuration.streamKeys?.send)
        let extraLayers = try Self.simulcastStreams(of: configuration)
        var senders: [RTPStreamSender] = []
        if self.videoSource != nil {
            for parameters in extraLayers {
                senders.append(try RTPStreamSender(parameters: parameters, keys: configuration.streamKeys?.send))
            }
        }
        simulcastSenders = senders
        simulcastRetransmissions = senders.map { _ in RetransmissionStore() }
        // Room for one keyframe's packets in flight plus the feedback thread's (by default).
        let buffers = min(max(configuration.packetBufferCount, 1), Self.maximumPacketBuffers)
        pool = PacketBufferPool(initialCount: buffers, maximumCount: Self.maximumPacketBuffers, bufferSize: 1600, headroom: 0)
    }

    deinit { stop() }

    /// Called on the video capture thread for every frame handed to the encoder, with
    /// the source's sequence number and capture time (for latency measurements).
    public func onFrameCaptured(_ hook: (@Sendable (_ sequence: UInt64, _ captureNanoseconds: UInt64) -> Void)?) {
        let box = hook.map(FrameHook.init)
        frameHook.withLock { $0 = box }
        hasFrameHook.store(hook != nil, ordering: .releasing)
    }

    /// Starts the sources and the threads. Throws if a source cannot start (the
    /// others are not started either).
    public func start() throws(MediaError) {
        do throws(MediaError) { try startEverything() } catch {
            stop()  // whatever did start (a source, the feedback thread) stops again
            throw error
        }
    }

    private func startEverything() throws(MediaError) {
        try videoSource?.start()
        try audioSource?.start()
        let handler = try PublisherFeedbackHandler(pipeline: self)
        do {
            let thread = try PipelineThread(name: "otk-pub-rtcp", clock: clock, sockets: [socket], handler: handler)
            feedback.withLock { $0 = thread }
            transportAccess.withLock { $0 = handler.access }
        } catch {
            throw MediaError(.networkFailure, "cannot start the publisher's feedback thread: \(error)")
        }
        var started: [LoopThread] = []
        if let source = videoSource, let settings = configuration.video, let sender = videoSender {
            let loop = try PublisherVideoLoop(pipeline: self, source: source, settings: settings, sender: sender)
            started.append(LoopThread(name: "otk-pub-video") { flag in loop.run(flag) })
        }
        if let source = audioSource, let settings = configuration.audio, let sender = audioSender {
            let loop = try PublisherAudioLoop(pipeline: self, source: source, settings: settings, sender: sender)
            started.append(LoopThread(name: "otk-pub-audio") { flag in loop.run(flag) })
        }
        threads.withLock { $0 = started }
    }

    /// Stops the threads and the sources. Idempotent.
    public func stop() {
        let loops = threads.withLock { threads in
            defer { threads = [] }
            return threads
        }
        for loop in loops { loop.stop() }
        transportAccess.withLock { $0 = nil }
        feedback.withLock { thread in
            thread?.stop()
            thread = nil
        }
        videoSource?.stop()
        audioSource?.stop()
        // A connector's socket was handed over for the leg's life.
        if configuration.connectedSocket != nil { socket.close() }
    }

    /// The leg's ICE consent checks, when it runs on the router's edge (nil otherwise).
    public var consent: ICEConsentKeeper? { configuration.consent }

    /// Whether captured audio is encoded and sent (OpenTok's publishAudio). When false
    /// the audio thread drops each captured frame before the encoder: nothing is
    /// encoded and no audio packet leaves (the source keeps running, so switching back
    /// is immediate). Cost: one relaxed atomic store; the loop reads it once per frame.
    public var audioEnabled: Bool {
        get { audioSwitch.load(ordering: .relaxed) }
        set { audioSwitch.store(newValue, ordering: .relaxed) }
    }

    /// Whether captured video is encoded and sent (OpenTok's publishVideo); as for
    /// `audioEnabled`. Switching video back on asks the encoder for a keyframe, so
    /// receivers can decode at once.
    public var videoEnabled: Bool {
        get { videoSwitch.load(ordering: .relaxed) }
        set {
            let was = videoSwitch.exchange(newValue, ordering: .relaxed)
            if newValue && !was { requestKeyframe() }
        }
    }

    /// Captured audio frames dropped before the encoder because `audioEnabled` was false.
    public var audioFramesDroppedWhileDisabled: UInt64 { audioFramesDisabled.load(ordering: .relaxed) }
    /// Captured video frames dropped before the encoder because `videoEnabled` was false.
    public var videoFramesDroppedWhileDisabled: UInt64 { videoFramesDisabled.load(ordering: .relaxed) }

    /// The video bitrate the bandwidth estimate allows now, bits per second; 0 until the
    /// first estimate. Cost: one relaxed atomic load.
    public var targetVideoBitrate: UInt64 { videoTargetBitrate.load(ordering: .relaxed) }

    /// Wakes the transport thread after handing packets over (no lock held across the
    /// wake-up's write).
    func wakeTransport() {
        let thread = feedback.withLock { $0 }
        thread?.wake()
    }

    /// After handing a frame's packets over: sends them from the calling (video capture)
    /// thread through `batch` when the transport is free and its pacer lets them go now
    /// (`PublisherTransportAccess.sendDirect`), else wakes the transport thread. Cost:
    /// two uncontended locks and the frame's protects and `sendmmsg`; no allocation.
    func sendOrWakeTransport(_ batch: TransportSendBatch) {
        if configuration.directSends, let access = transportAccess.withLock({ $0 }),
           !access.sendDirect(batch, now: clock.nanoseconds()) { return }
        wakeTransport()
    }

    /// The current bandwidth estimate, bits/s; 0 before the first transport-wide
    /// feedback. Cost: one relaxed atomic load.
    public var bandwidthEstimate: UInt64 { transportCounters.estimate.load(ordering: .relaxed) }

    /// Relayed with keys per receiver: stops sending to the receivers whose RTCP carries
    /// these SSRCs and refuses their RTCP from now on (the signaling said their
    /// subscriptions ended). Cost: a lock and a wake-up here; the transport thread drops
    /// them on its next turn. Does nothing otherwise.
    public func revokeRelayedReceivers(_ ssrcs: [UInt32]) {
        guard configuration.relayedFanOut, configuration.relayedKeysPerReceiver, !ssrcs.isEmpty else { return }
        revocations.withLock { $0 += ssrcs }
        hasRevocations.store(true, ordering: .releasing)
        wakeTransport()
    }

    /// Asks the video encoder for a keyframe on its next frame.
    public func requestKeyframe() { keyframeRequested.store(true, ordering: .relaxed) }

    /// Errors the capture threads met (a source lost, an encoder failure), oldest first.
    public var errorsSeen: [MediaError] { errors.withLock { $0 } }

    func record(_ error: MediaError) { errors.withLock { if $0.count < 16 { $0.append(error) } } }

    func frameCaptured(_ frame: VideoFrame) {
        guard hasFrameHook.load(ordering: .acquiring), let box = frameHook.withLock({ $0 }) else { return }
        box.call(frame.sequence, frame.timestampNanoseconds)
    }
}

/// The frame hook of `PublisherPipeline.onFrameCaptured`, boxed so the capture thread
/// takes a reference out of its lock (no reabstraction, no allocation per frame).
private final class FrameHook: Sendable {
    /// The app's hook.
    let call: @Sendable (_ sequence: UInt64, _ captureNanoseconds: UInt64) -> Void
    init(_ call: @escaping @Sendable (_ sequence: UInt64, _ captureNanoseconds: UInt64) -> Void) { self.call = call }
}
