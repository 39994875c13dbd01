import Foundation
import OTMedia
import OTTestSupport
import Synchronization
import Testing
@testable import OTKit

/// The media side of a ``BrowserClient`` page: publish the fake camera and microphone,
/// subscribe to a stream, and read the RTCPeerConnection's own statistics (the page's
/// `publish`, `subscribe` and `mediaStats` helpers, which call otkit.js as an app does).
extension BrowserClient {
    /// One entry of an RTCStatsReport, the fields the tests read (others ignored).
    struct RTCStat: Decodable {
        var id: String
        var type: String
        var kind: String?
        var framesEncoded: Int?
        var framesSent: Int?
        var framesDecoded: Int?
        var framesReceived: Int?
        var framesDropped: Int?
        var packetsLost: Int?
        var freezeCount: Int?
        var pliCount: Int?
        var nackCount: Int?
        var jitterBufferDelay: Double?
        var jitterBufferEmittedCount: Int?
        var frameWidth: Int?
        var packetsSent: Int?
        var packetsReceived: Int?
        var totalSamplesReceived: Int?
        var concealedSamples: Int?
        var audioLevel: Double?
        var codecId: String?
        var mimeType: String?
        var state: String?
        var nominated: Bool?
        var localCandidateId: String?
        var remoteCandidateId: String?
        var candidateType: String?
        var port: Int?
        var availableOutgoingBitrate: Double?
        var rid: String?
        var qualityLimitationReason: String?
        var ssrc: UInt32?
        var roundTripTime: Double?
        var targetBitrate: Double?
    }

    /// `stat`'s receive-side counters as one line, for failure messages.
    static func receiveLine(_ stat: RTCStat?) -> String {
        guard let stat else { return "none" }
        let buffered = (stat.jitterBufferEmittedCount ?? 0) > 0 ? (stat.jitterBufferDelay ?? 0) / Double(stat.jitterBufferEmittedCount!) : 0
        return "received \(stat.framesReceived ?? -1) decoded \(stat.framesDecoded ?? -1) dropped \(stat.framesDropped ?? -1)"
            + " packetsLost \(stat.packetsLost ?? -1) freezes \(stat.freezeCount ?? -1) PLIs \(stat.pliCount ?? -1)"
            + " NACKs \(stat.nackCount ?? -1) width \(stat.frameWidth ?? -1) buffer \(Int(buffered * 1000)) ms"
    }

    /// OpenTok.js's getStats summary for one kind (publisher: sent; subscriber: received).
    struct KindSummary: Decodable {
        var bytesSent: Int?
        var packetsSent: Int?
        var bytesReceived: Int?
        var packetsReceived: Int?
        var packetsLost: Int?
        var frameRate: Double?
        var framesEncoded: Int?
        var framesSent: Int?
        var framesDecoded: Int?
        var totalSamplesReceived: Int?
        var audioLevel: Double?
    }

    /// getStats' `{audio, video, timestamp}`.
    struct Summary: Decodable {
        var audio: KindSummary
        var video: KindSummary
        var timestamp: Double
    }

    /// What `mediaStats` returns: the full report and the OpenTok.js summary.
    struct MediaStats: Decodable {
        var report: [RTCStat]
        var summary: Summary

        /// The report's `type` entry of `kind` (the first; these tests send one layer).
        func first(_ type: String, _ kind: String) -> RTCStat? { report.first { $0.type == type && $0.kind == kind } }
        /// The mime type of `stat`'s codec ("video/VP8").
        func codec(of stat: RTCStat?) -> String? { report.first { $0.id == stat?.codecId }?.mimeType }
        /// The nominated, succeeded candidate pair's remote candidate (the router's).
        var remoteCandidate: RTCStat? {
            guard let pair = report.first(where: { $0.type == "candidate-pair" && $0.nominated == true && $0.state == "succeeded" })
            else { return nil }
            return report.first { $0.id == pair.remoteCandidateId }
        }
    }

    private struct PublishResult: Decodable {
        var streamId: String?
        var error: Failure?
    }

    private struct SubscribeResult: Decodable {
        var subscriberId: String?
        var error: Failure?
    }

    /// `OT.initPublisher(div, properties)` then `session.publish`; the stream id or the error.
    func publish(_ properties: String = "{}") throws -> Result<String, BrowserFailure> {
        let result = try page.evaluate("publish(\(properties))", as: PublishResult.self, timeout: 60)
        if let id = result.streamId { return .success(id) }
        return .failure(BrowserFailure(failure: result.error ?? Failure(name: "?", code: 0, message: "no answer")))
    }

    /// `session.subscribe(stream, div, properties, callback)`; the subscriber id once its
    /// media connected, or the error.
    func subscribe(_ streamId: String, _ properties: String = "{}") throws -> Result<String, BrowserFailure> {
        let result = try page.evaluate("subscribe(\(js(streamId)), \(properties))", as: SubscribeResult.self, timeout: 60)
        if let id = result.subscriberId { return .success(id) }
        return .failure(BrowserFailure(failure: result.error ?? Failure(name: "?", code: 0, message: "no answer")))
    }

    /// The publisher's statistics (nil `streamId`) or those of the subscriber of `streamId`.
    func mediaStats(_ streamId: String? = nil) throws -> MediaStats {
        try page.evaluate("mediaStats(\(streamId.map(js) ?? "undefined"))", as: MediaStats.self)
    }
}

/// Counts every decoded frame a subscriber renders (any picture: a browser's camera has
/// no stamped number) and the last frame's size.
final class CountingRender: OTVideoRender, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var size = (width: 0, height: 0)

    /// Frames rendered so far.
    var frames: Int { lock.withLock { count } }
    /// The last frame's size.
    var lastSize: (width: Int, height: Int) { lock.withLock { size } }

    func renderVideoFrame(_ frame: OTVideoFrame) {
        let picture = frame.videoFrame
        lock.withLock {
            count += 1
            size = (picture.width, picture.height)
        }
    }
}

/// The process-wide audio device for the browser media tests: captures from OTMedia's
/// `ToneSource` (what `otkit publish --tone` captures from: 440 Hz at 0.3 of full scale)
/// and keeps the last 3 s of what it renders (the subscribers' mix), pulled in 10 ms pieces.
/// Once started, capture runs until ``close()``: `stopCapture` is ignored, because the
/// device is process-wide while installed and publishers of tests running beside this one
/// start and stop it too (each publisher's end, publishAudio toggles): counting those
/// calls was not enough to keep the tone from pausing for seconds under parallel tests.
final class ToneSourceDevice: OTAudioDevice, @unchecked Sendable {
    private let lock = NSLock()
    private var bus: OTAudioBus?
    private var recent: [Int16] = []
    private let capturing = Atomic<Bool>(false)
    private let rendering = Atomic<Bool>(false)
    /// 20 ms frames written to the bus so far.
    let framesCaptured = Atomic<Int>(0)

    /// The last `count` samples rendered (at most 3 s).
    func lastRendered(_ count: Int) -> [Int16] { lock.withLock { Array(recent.suffix(count)) } }

    func setAudioBus(_ audioBus: OTAudioBus?) -> Bool { lock.withLock { bus = audioBus }; return true }
    func captureFormat() -> OTAudioFormat { OTAudioFormat(sampleRate: 48_000, numChannels: 1) }
    func renderFormat() -> OTAudioFormat { OTAudioFormat(sampleRate: 48_000, numChannels: 1) }
    func renderingIsAvailable() -> Bool { true }
    func initializeRendering() -> Bool { true }
    func renderingIsInitialized() -> Bool { true }
    func estimatedRenderDelay() -> UInt16 { 10 }
    func captureIsAvailable() -> Bool { true }
    func initializeCapture() -> Bool { true }
    func captureIsInitialized() -> Bool { true }
    func estimatedCaptureDelay() -> UInt16 { 20 }
    func isCapturing() -> Bool { capturing.load(ordering: .relaxed) }
    func isRendering() -> Bool { rendering.load(ordering: .relaxed) }

    /// Ignored (see the type's comment): ``close()`` stops capture.
    func stopCapture() -> Bool { true }

    /// Stops capture and rendering (their threads end within one piece). The test's teardown.
    func close() {
        capturing.store(false, ordering: .relaxed)
        rendering.store(false, ordering: .relaxed)
    }
    func stopRendering() -> Bool { rendering.store(false, ordering: .relaxed); return true }

    func startCapture() -> Bool {
        guard !capturing.exchange(true, ordering: .relaxed) else { return true }
        guard let bus = lock.withLock({ self.bus }), let source = try? ToneSource(frequency: 440, amplitude: 0.3),
              (try? source.start()) != nil else {
            capturing.store(false, ordering: .relaxed)
            return false
        }
        Thread.detachNewThread { [self] in
            while capturing.load(ordering: .relaxed) {
                guard let frame = try? source.nextFrame(timeoutMilliseconds: 100) else { continue }
                bus.writeCaptureData(frame.samples, numberOfSamples: frame.samplesPerChannel * frame.format.channels)
                framesCaptured.add(1, ordering: .relaxed)
            }
            source.stop()
        }
        return true
    }

    func startRendering() -> Bool {
        guard !rendering.exchange(true, ordering: .relaxed) else { return true }
        RenderPull.start(bus: lock.withLock { self.bus }, while: { [self] in rendering.load(ordering: .relaxed) }) { [self] piece in
            lock.withLock {
                recent.append(contentsOf: piece)
                if recent.count > 48_000 * 4 { recent.removeFirst(48_000) }
            }
        }
        return true
    }
}
