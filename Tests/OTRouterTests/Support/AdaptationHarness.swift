import Foundation
import OTMedia
import OTRouter
import OTSignaling
import Synchronization
import Testing

/// A real publisher pipeline for the SFU adaptation tests: the test pattern at a chosen
/// size with VP8 temporal layers, optionally audio, optionally under another SSRC (one
/// encoding of a simulcast stream sent by its own pipeline). `holdsRate`: the encoder keeps
/// its size and bitrate and the pacer never goes under 2 Mbps, for tests of the router's
/// legs alone (on a loaded machine the publisher's own estimate fell to 56 kbps once and
/// starved every leg).
final class LayeredPublisher: @unchecked Sendable {
    let pipeline: PublisherPipeline

    init(leg: WireMediaLeg, videoSSRC: UInt32? = nil, width: Int = 640, height: Int = 360, bitrateKbps: Int = 600,
         temporalLayers: Int = 3, audio: Bool = true, keyframeInterval: Int = 3000, frameRate: Double = 30,
         holdsRate: Bool = false) throws {
        var video = VP8EncoderSettings(width: width, height: height, frameRate: frameRate, bitrateKbps: bitrateKbps)
        video.maxKeyframeInterval = keyframeInterval
        video.temporalLayers = temporalLayers
        var opus = OpusEncoderSettings(format: .mono20ms)
        opus.inbandFEC = true
        var configuration = PublisherConfiguration(destination: try LegClient.address(leg), video: video, audio: audio ? opus : nil)
        configuration.videoStream = .vp8(ssrc: try videoSSRC ?? #require(leg.videoSSRC))
        if audio { configuration.audioStream = .opus(ssrc: try #require(leg.audioSSRC)) }
        configuration.keys = try LegClient.keys(leg)
        configuration.localAddress = .ipv4Loopback()
        if holdsRate {
            configuration.adaptiveVideo = false
            configuration.bandwidthEstimation = BandwidthEstimatorConfiguration(initialBitrate: 2_000_000, minBitrate: 2_000_000,
                                                                               maxBitrate: 2_500_000)
        }
        let source = try TestPatternSource(format: VideoFormat(width: width, height: height, frameRate: Int(frameRate)))
        let tone = audio ? try ToneSource(frequency: 440, amplitude: 0.5, format: .mono20ms) : nil
        pipeline = try PublisherPipeline(configuration: configuration, videoSource: source, audioSource: tone)
        try pipeline.start()
    }

    /// Video bytes sent so far.
    var videoBytes: UInt64 { pipeline.videoCounters.snapshot().bytes }

    func stop() { pipeline.stop() }
}

/// A real subscriber pipeline that notes every decoded frame (when, its size, its
/// PictureID) and every decoded audio frame, with receiver reports every 500 ms (the
/// router's RR-loss fallback reacts faster than with the default second).
final class MeasuredSubscriber: @unchecked Sendable {
    struct Frame: Sendable {
        var at: UInt64
        var width: Int
        var height: Int
        var pictureID: UInt16?
    }

    /// What the decode callbacks noted (a class the callbacks can share).
    final class Log: Sendable {
        let frames = Mutex<[Frame]>([])
        let audio = Mutex<[UInt64]>([])
    }

    let pipeline: SubscriberPipeline
    private let log = Log()

    init(leg: WireMediaLeg, feedback: SocketAddress? = nil) throws {
        var configuration = SubscriberConfiguration()
        configuration.keys = try LegClient.keys(leg)
        configuration.localAddress = .ipv4Loopback()
        configuration.feedbackDestination = try feedback ?? LegClient.address(leg)
        configuration.receiverReportIntervalNanoseconds = 500_000_000
        let log = log
        pipeline = try SubscriberPipeline(
            configuration: configuration,
            onVideoFrame: { frame, info in
                let entry = Frame(at: DispatchTime.now().uptimeNanoseconds, width: frame.width,
                                  height: frame.height, pictureID: info.pictureID)
                log.frames.withLock { $0.append(entry) }
            },
            onAudioFrame: { _ in log.audio.withLock { $0.append(DispatchTime.now().uptimeNanoseconds) } })
        try pipeline.start()
    }

    var decoded: [Frame] { log.frames.withLock { $0 } }
    var audio: [UInt64] { log.audio.withLock { $0 } }

    /// Decoded frames per second over the last `seconds`.
    func frameRate(last seconds: Double) -> Double {
        let since = DispatchTime.now().uptimeNanoseconds - UInt64(seconds * 1e9)
        return Double(decoded.filter { $0.at >= since }.count) / seconds
    }

    /// Video bytes received so far.
    var videoBytes: UInt64 { pipeline.videoCounters.snapshot().bytes }

    /// The longest gap between two decoded audio frames after `since`, nanoseconds.
    func longestAudioGap(since: UInt64) -> UInt64 {
        let times = audio.filter { $0 >= since }
        return zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? .max
    }

    /// True when every decoded PictureID is one more than the one before (mod 2^15).
    var pictureIDsContinue: Bool {
        let ids = decoded.compactMap(\.pictureID)
        return !ids.isEmpty && zip(ids, ids.dropFirst()).allSatisfy { $1 == ($0 &+ 1) & 0x7FFF }
    }

    /// True when decoded PictureIDs only move forward (mod 2^15, by less than half).
    var pictureIDsIncrease: Bool {
        let ids = decoded.compactMap(\.pictureID)
        return !ids.isEmpty && zip(ids, ids.dropFirst()).allSatisfy { (1..<0x4000).contains(($1 &- $0) & 0x7FFF) }
    }

    /// Of the decoded frames after `since`, the share whose PictureID is the previous + 1.
    func pictureIDContinuity(since: UInt64) -> Double {
        let ids = decoded.filter { $0.at >= since }.compactMap(\.pictureID)
        let steps = zip(ids, ids.dropFirst())
        return Double(steps.filter { $1 == ($0 &+ 1) & 0x7FFF }.count) / Double(max(1, ids.count - 1))
    }

    func stop() { pipeline.stop() }
}

/// Rates over a window: bytes counters read at the start and at the end.
struct RateWindow {
    let start = DispatchTime.now().uptimeNanoseconds
    let bytes: [UInt64]

    init(_ counters: [UInt64]) { bytes = counters }

    /// Bits per second of each counter since the start.
    func bitrates(_ now: [UInt64]) -> [Double] {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return zip(now, bytes).map { Double($0 - $1) * 8 / seconds }
    }
}

/// Collects the router's subscriber-quality events.
final class QualityEvents: @unchecked Sendable {
    private let list = Mutex<[SubscriberQualityEvent]>([])
    func add(_ event: SubscriberQualityEvent) { list.withLock { $0.append(event) } }
    func states(of subscriberId: String) -> [String] { list.withLock { $0.filter { $0.subscriberId == subscriberId }.map(\.state) } }
}
