import Foundation
import OTTestSupport
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
        // These runs test loss recovery (NACK, PLI, FEC) at a fixed bitrate: the estimate
        // is pinned so congestion control does not lower the encoder's rate under loss
        // (PublisherCongestionTests cover that).
        configuration.bandwidthEstimation = BandwidthEstimatorConfiguration(initialBitrate: 5_000_000, minBitrate: 5_000_000,
                                                                            maxBitrate: 5_000_000)
        let source = try TestPatternSource(format: VideoFormat(width: width, height: height, frameRate: fps))
        let tone = try ToneSource(frequency: 440, amplitude: 0.5, format: .mono20ms)
        let publisher = try PublisherPipeline(configuration: configuration, videoSource: source, audioSource: tone)
        let sent = Mutex<[UInt64]>([])
        publisher.onFrameCaptured { sequence, time in
            decoded.captured(sequence: sequence, at: time)
            sent.withLock { $0.append(sequence) }
        }
        try publisher.start()
        let sprayer = withGarbage ? try JunkSender(targets: [subscriber.localAddress, publisher.localAddress], random: SplitMix64(seed: 99), pause: 5_000) : nil
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

