import Foundation
import Synchronization
@testable import OTMedia

/// What a subscriber decoded, collected from its callbacks (receive and playout threads).
final class DecodedMedia: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var frameNumbers: [UInt32] = []
    private(set) var unreadableFrames = 0
    private(set) var psnrs: [Double] = []
    /// presentAt − capture time, per frame with a lip-sync time (ns).
    private(set) var presentationOffsets: [Int64] = []
    private(set) var audioSamples: [Int16] = []
    private(set) var audioFrameLevels: [Double] = []
    private let captureTimes = Mutex<[UInt64: UInt64]>([:])
    private let reference: VideoFrame
    let psnrEvery: Int

    init(width: Int, height: Int, psnrEvery: Int = 5) {
        reference = VideoFrame(width: width, height: height)
        self.psnrEvery = psnrEvery
    }

    func captured(sequence: UInt64, at time: UInt64) { captureTimes.withLock { $0[sequence] = time } }

    func video(_ frame: VideoFrame, _ info: DecodedVideoFrameInfo) {
        lock.lock(); defer { lock.unlock() }
        guard let number = FrameNumberStamp.read(from: frame) else { unreadableFrames += 1; return }
        frameNumbers.append(number)
        if let captured = captureTimes.withLock({ $0[UInt64(number)] }) {
            if let presentAt = info.presentAtNanoseconds {
                presentationOffsets.append(Int64(presentAt) - Int64(captured))
            }
        }
        if frameNumbers.count % psnrEvery == 0, frame.width == reference.width, frame.height == reference.height {
            TestPatternRenderer.render(number, into: reference)
            psnrs.append(VideoQuality.psnrY(reference, frame))
        }
    }

    func audio(_ frame: AudioFrame) {
        lock.lock(); defer { lock.unlock() }
        audioSamples.append(contentsOf: frame.buffer)
        audioFrameLevels.append(AudioAnalysis.rms(UnsafeBufferPointer(frame.buffer)))
    }

    func snapshot<T>(_ body: (DecodedMedia) -> T) -> T {
        lock.lock(); defer { lock.unlock() }
        return body(self)
    }
}

/// Publisher → (optional impairment proxy) → subscriber on 127.0.0.1, with the test
/// pattern and a 440 Hz tone, for tests of the pipelines end to end.
struct LoopbackRun {
    var profile: SRTPProfile? = .aeadAES128GCM
    var width = 640, height = 480, fps = 30
    var bitrateKbps = 800
    var frames = 150
    var forward = ImpairmentSettings()
    var reverse = ImpairmentSettings()
    var withAudio = true
    /// Sprays both ends with junk datagrams while the stream runs.
    var withGarbage = false
    /// Cuts the forward path completely for a while once this many frames were sent
    /// (needs an impaired run: the proxy does it).
    var cutAfterFrames: Int?
    var cutMilliseconds = 500

    struct Outcome {
        var sent: [UInt64]
        var decoded: DecodedMedia
        var publisherVideo: StreamCounters.Snapshot
        var publisherAudio: StreamCounters.Snapshot
        var subscriberVideo: StreamCounters.Snapshot
        var subscriberAudio: StreamCounters.Snapshot
        var publisherErrors: [MediaError]
        var subscriberErrors: [MediaError]
        /// Audio frames played before the publisher stopped (after that, PLC fades out).
        var audioFramesWhileSending: Int

        /// Levels of the audio frames played while the publisher was sending.
        var audioLevelsWhileSending: ArraySlice<Double> {
            decoded.snapshot { $0.audioFrameLevels.prefix(audioFramesWhileSending) }
        }

        /// The share of sent frame numbers decoded at least once.
        var decodedShare: Double {
            let decodedSet = Set(decoded.frameNumbers.map(UInt64.init))
            return Double(sent.filter(decodedSet.contains).count) / Double(max(sent.count, 1))
        }
    }

    func run() throws -> Outcome {
        let keys = profile.map { SRTPLegKeys.random(profile: $0) }
        let decoded = DecodedMedia(width: width, height: height)
        var subscriberConfiguration = SubscriberConfiguration()
        subscriberConfiguration.keys = keys?.reversed
        subscriberConfiguration.localAddress = .ipv4Loopback()
        if !withAudio { subscriberConfiguration.audioStream = nil }
        let subscriber = try SubscriberPipeline(
            configuration: subscriberConfiguration,
            onVideoFrame: { frame, info in decoded.video(frame, info) },
            onAudioFrame: { frame in decoded.audio(frame) })
        try subscriber.start()
        defer { subscriber.stop() }

        let impaired = forward != ImpairmentSettings() || reverse != ImpairmentSettings()
        let proxy = impaired ? try ImpairmentProxy(target: subscriber.localAddress, forward: forward, reverse: reverse, seed: 7) : nil
        defer { proxy?.stop() }

        var video = VP8EncoderSettings(width: width, height: height, frameRate: Double(fps), bitrateKbps: bitrateKbps)
        video.maxKeyframeInterval = 3000
        var audio = OpusEncoderSettings(format: .mono20ms)
        audio.inbandFEC = true
        audio.expectedLossPercent = 10
        var configuration = PublisherConfiguration(destination: proxy?.listenAddress ?? subscriber.localAddress,
                                                   video: video, audio: withAudio ? audio : nil)
        configuration.keys = keys
        configuration.localAddress = .ipv4Loopback()
        let source = try TestPatternSource(format: VideoFormat(width: width, height: height, frameRate: fps))
        let tone = try ToneSource(frequency: 440, amplitude: 0.5, format: .mono20ms)
        let publisher = try PublisherPipeline(configuration: configuration, videoSource: source, audioSource: tone)
        let sent = Mutex<[UInt64]>([])
        publisher.onFrameCaptured { sequence, time in
            decoded.captured(sequence: sequence, at: time)
            sent.withLock { $0.append(sequence) }
        }
        try publisher.start()
        let sprayer = withGarbage ? try GarbageSprayer(targets: [subscriber.localAddress, publisher.localAddress]) : nil
        defer { sprayer?.stop() }
        let deadline = Date().addingTimeInterval(Double(frames) / Double(fps) * 4 + 10)
        var cutDone = false
        while sent.withLock({ $0.count }) < frames && Date() < deadline {
            if let cutAfterFrames, !cutDone, let proxy, sent.withLock({ $0.count }) >= cutAfterFrames {
                cutDone = true
                proxy.setBlackhole(true, directions: [.forward])
                Thread.sleep(forTimeInterval: Double(cutMilliseconds) / 1000)
                proxy.setBlackhole(false, directions: [.forward])
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        publisher.onFrameCaptured(nil)
        // Let the tail arrive (retransmissions included), then stop.
        Thread.sleep(forTimeInterval: 0.7)
        let audioFrames = decoded.snapshot { $0.audioFrameLevels.count }
        publisher.stop()
        Thread.sleep(forTimeInterval: 0.2)
        subscriber.stop()
        return Outcome(sent: sent.withLock { $0 }, decoded: decoded,
                       publisherVideo: publisher.videoCounters.snapshot(), publisherAudio: publisher.audioCounters.snapshot(),
                       subscriberVideo: subscriber.videoCounters.snapshot(), subscriberAudio: subscriber.audioCounters.snapshot(),
                       publisherErrors: publisher.errorsSeen, subscriberErrors: subscriber.errorsSeen,
                       audioFramesWhileSending: audioFrames)
    }
}

/// Sends junk to the pipelines' sockets from its own thread: random bytes, RTP headers
/// with garbage after them (bad SRTP tags), truncated headers, RTCP-looking junk and
/// datagrams bigger than a packet buffer.
final class GarbageSprayer: @unchecked Sendable {
    private let socket: UDPSocket
    private let targets: [SocketAddress]
    private let running = Atomic<Bool>(true)
    private var thread: Thread?
    let sent = Atomic<Int>(0)

    init(targets: [SocketAddress]) throws {
        socket = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 1 << 16, sendBufferBytes: 1 << 20)
        self.targets = targets
        let thread = Thread { [self] in spray() }
        self.thread = thread
        thread.start()
    }

    private func spray() {
        let pool = PacketBufferPool(initialCount: 4, bufferSize: 4096)
        let batch = UDPMessageBatch(capacity: 1)
        var random = SplitMix64(seed: 99)
        var round = 0
        while running.load(ordering: .relaxed) {
            for target in targets {
                guard let buffer = pool.take() else { continue }
                let kind = round % 5
                let length = [40, 1300, 7, 60, 3000][kind]
                let bytes = buffer.writableBytes
                for i in 0..<length { bytes[i] = UInt8.random(in: 0...255, using: &random) }
                switch kind {
                case 0, 1: bytes[0] = 0x80; bytes[1] = 96      // RTP, video PT, garbage body: bad tag
                case 2: bytes[0] = 0x80                          // truncated header
                case 3: bytes[0] = 0x81; bytes[1] = 201          // RTCP RR-looking junk
                default: break                                   // bigger than a receive buffer
                }
                buffer.setLength(length)
                buffer.peer = target
                _ = try? socket.send([buffer], batch: batch)
                pool.release(buffer)
                sent.add(1, ordering: .relaxed)
            }
            round += 1
            usleep(5_000)
        }
    }

    func stop() {
        running.store(false, ordering: .relaxed)
        while thread?.isFinished == false { usleep(1_000) }
        thread = nil  // Foundation's Thread keeps its closure (and so this sprayer) alive
    }
}
