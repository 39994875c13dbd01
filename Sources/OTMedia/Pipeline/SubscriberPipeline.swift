import Synchronization

/// Receives a video and an audio RTP stream on one UDP socket and turns them back into
/// pictures and sound: SRTP unprotect, a jitter buffer per stream (reordering, NACK,
/// keyframe requests, FEC/PLC for audio), RFC 7741 reassembly, VP8 and Opus decoding.
/// Receiver reports, NACKs and PLIs go back to the sender on the same socket.
///
/// Threads: a receive thread (socket → decoded video frames → `onVideoFrame`, RTCP out)
/// and an audio playout thread that pulls one 10/20 ms frame per tick (→ the `AudioSink`
/// and `onAudioFrame`). The audio jitter buffer is shared under a lock that covers its
/// bookkeeping only (decoding happens outside it); no lock is held across I/O.
///
/// Lifetime: a started pipeline is kept alive by its threads until `stop()`.
public final class SubscriberPipeline: Sendable {
    /// The configuration it runs with.
    public let configuration: SubscriberConfiguration
    /// The socket's local address: where the sender must send.
    public let localAddress: SocketAddress
    /// Video counters: packets/bytes received, lost (RFC 3550), NACKs and PLIs sent,
    /// frames and keyframes decoded, jitter, bad packets.
    public let videoCounters = StreamCounters()
    /// Audio counters, as for video (frames = frames played, including concealed ones).
    public let audioCounters = StreamCounters()
    /// Transport-wide congestion control as a receiver: packets recorded, feedback sent,
    /// probe packets received and dropped.
    public let transportCounters = TransportCounters()
    /// STUN and DTLS datagrams taken out before SRTP (a leg on the router's edge).
    public let edgeDatagrams = EdgeDatagramCounters()
    /// End-to-end decryption: frames verified and dropped, and the mismatch-episode hook
    /// (idle without `configuration.endToEndEncryption`).
    public let decryption = SFrameDecryptionMonitor()

    let socket: UDPSocket
    let clock: any MediaClock
    let pool: PacketBufferPool
    /// The audio packets between the receive and playout threads (empty without audio).
    let audio: Mutex<SubscriberAudioState>
    /// Audio/video alignment from both streams' sender reports: the receive thread feeds
    /// mappings, the playout thread anchors the audio clock, video frames read a time.
    let lipSync = Mutex(LipSynchronizer())
    let onVideoFrame: (@Sendable (VideoFrame, DecodedVideoFrameInfo) -> Void)?
    let onAudioFrame: (@Sendable (AudioFrame) -> Void)?
    private let audioSink: (any AudioSink)?
    private let receiveThread = Mutex<PipelineThread?>(nil)
    private let playoutThread = Mutex<LoopThread?>(nil)
    private let errors = Mutex<[MediaError]>([])

    /// Binds the socket. Decoded pictures go to `onVideoFrame` (on the receive thread;
    /// the frame may be kept, it returns to its pool when dropped), sound to `audioSink`
    /// and `onAudioFrame` (on the playout thread).
    public init(configuration: SubscriberConfiguration,
                onVideoFrame: (@Sendable (VideoFrame, DecodedVideoFrameInfo) -> Void)? = nil,
                audioSink: (any AudioSink)? = nil,
                onAudioFrame: (@Sendable (AudioFrame) -> Void)? = nil,
                clock: any MediaClock = SystemMediaClock()) throws(MediaError) {
        self.configuration = configuration
        self.clock = clock
        self.onVideoFrame = onVideoFrame
        self.onAudioFrame = onAudioFrame
        self.audioSink = audioSink
        if let audioSink, audioSink.format != configuration.audioFormat {
            throw MediaError(.invalidArgument, "the audio sink takes \(audioSink.format) but the subscriber decodes \(configuration.audioFormat)")
        }
        do {
            socket = try configuration.connectedSocket
                ?? UDPSocket(bindingTo: configuration.localAddress, receiveBufferBytes: 4 << 20, sendBufferBytes: 1 << 20,
                             clock: clock)
        } catch {
            throw MediaError(.networkFailure, "cannot bind the subscriber's socket to \(configuration.localAddress): \(error)")
        }
        localAddress = socket.localAddress
        pool = PacketBufferPool(initialCount: 256, maximumCount: configuration.jitterBuffer.capacity + 256,
                                bufferSize: 1600, headroom: 0)
        audio = Mutex(SubscriberAudioState(configuration: configuration))
    }

    deinit { stop() }

    /// Starts the receive and playout threads.
    public func start() throws(MediaError) {
        do throws(MediaError) { try startEverything() } catch {
            stop()  // whatever did start (the sink, the receive thread) stops again
            throw error
        }
    }

    private func startEverything() throws(MediaError) {
        try audioSink?.start()
        let playout = configuration.audioStream == nil ? nil : try SubscriberAudioPlayout(pipeline: self, sink: audioSink)
        let handler = try SubscriberReceiveHandler(pipeline: self)
        do {
            let thread = try PipelineThread(name: "otk-sub-recv", clock: clock, sockets: [socket], handler: handler)
            receiveThread.withLock { $0 = thread }
        } catch {
            throw MediaError(.networkFailure, "cannot start the subscriber's receive thread: \(error)")
        }
        if let playout {
            playoutThread.withLock { $0 = LoopThread(name: "otk-sub-audio") { flag in playout.run(flag) } }
        }
    }

    /// Stops both threads and the audio sink. Idempotent.
    public func stop() {
        receiveThread.withLock { thread in
            thread?.stop()
            thread = nil
        }
        playoutThread.withLock { thread in
            thread?.stop()
            thread = nil
        }
        audioSink?.stop()
        // A connector's socket was handed over for the leg's life.
        if configuration.connectedSocket != nil { socket.close() }
    }

    /// The leg's ICE consent checks, when it runs on the router's edge (nil otherwise).
    public var consent: ICEConsentKeeper? { configuration.consent }

    /// Errors the threads met (a decoder failure, a sink that refused a frame).
    public var errorsSeen: [MediaError] { errors.withLock { $0 } }

    func record(_ error: MediaError) { errors.withLock { if $0.count < 16 { $0.append(error) } } }
}
