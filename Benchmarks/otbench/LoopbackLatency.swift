import OTMedia
import Synchronization

/// Capture-to-decoded latency of a publisher → subscriber pair on 127.0.0.1, no
/// impairment: the paced test pattern (`TestPatternSource`, 640x480 at 30 fps), VP8 at
/// 500 kbps with `VP8Comparison`'s settings, SRTP AEAD_AES_128_GCM, no audio.
///
/// Per frame: the subscriber's `decodedAtNanoseconds` minus the capture time the
/// publisher reported through `onFrameCaptured` for the frame number read back from the
/// decoded picture (`FrameNumberStamp`). Both are `CLOCK_MONOTONIC`. Every frame counts,
/// the first keyframe included; percentiles are nearest-rank over all of them.
struct LoopbackLatency {
    let codec = VP8Comparison(width: 640, height: 480, bitrateKbps: 500)
    /// How long the publisher sends.
    var seconds = 10

    /// "latency 640x480 500k".
    var label: String { "latency \(codec.width)x\(codec.height) \(codec.bitrateKbps)k" }

    /// Capture times by frame number and latencies in arrival order; preallocated.
    final class Collector: Sendable {
        private struct State {
            var captured: [UInt64]
            var capturedCount = 0
            var decoded: [Bool]
            var latencies: [UInt64] = []
            var unreadable = 0
        }
        private let state: Mutex<State>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            var latencies: [UInt64] = []
            latencies.reserveCapacity(capacity)
            state = Mutex(State(captured: [UInt64](repeating: 0, count: capacity),
                                decoded: [Bool](repeating: false, count: capacity), latencies: latencies))
        }

        func captured(_ number: UInt64, at time: UInt64) {
            state.withLock { state in
                guard number < UInt64(capacity) else { return }
                state.captured[Int(number)] = time
                state.capturedCount += 1
            }
        }

        func decoded(_ frame: VideoFrame, _ info: DecodedVideoFrameInfo) {
            let number = FrameNumberStamp.read(from: frame)
            state.withLock { state in
                guard let number, Int(number) < capacity else { state.unreadable += 1; return }
                let time = state.captured[Int(number)]
                guard time > 0, !state.decoded[Int(number)] else { return }
                state.decoded[Int(number)] = true
                if info.decodedAtNanoseconds > time { state.latencies.append(info.decodedAtNanoseconds - time) }
            }
        }

        var capturedCount: Int { state.withLock { $0.capturedCount } }

        /// (latencies sorted, frames decoded among those captured, frames captured, unreadable pictures).
        func results() -> (latencies: [UInt64], decoded: Int, captured: Int, unreadable: Int) {
            state.withLock { state in
                let decoded = (0..<capacity).filter { state.captured[$0] > 0 && state.decoded[$0] }.count
                return (state.latencies.sorted(), decoded, state.capturedCount, state.unreadable)
            }
        }
    }

    func run(log: ProgressLog) throws -> [BenchResult] {
        let frames = seconds * 30
        log("\(label): paced test pattern → publisher → 127.0.0.1 → subscriber for \(seconds) s, GCM, no impairment")
        let collector = Collector(capacity: frames + 120)
        let keys = SRTPLegKeys.random(profile: .aeadAES128GCM)
        var subscriberConfiguration = SubscriberConfiguration()
        subscriberConfiguration.keys = keys.reversed
        subscriberConfiguration.localAddress = .ipv4Loopback()
        subscriberConfiguration.audioStream = nil
        let subscriber = try SubscriberPipeline(configuration: subscriberConfiguration,
                                                onVideoFrame: { frame, info in collector.decoded(frame, info) })
        try subscriber.start()
        defer { subscriber.stop() }

        var configuration = PublisherConfiguration(destination: subscriber.localAddress, video: codec.settings, audio: nil)
        configuration.keys = keys
        configuration.localAddress = .ipv4Loopback()
        let source = try TestPatternSource(format: VideoFormat(width: codec.width, height: codec.height, frameRate: 30))
        let publisher = try PublisherPipeline(configuration: configuration, videoSource: source, audioSource: nil)
        publisher.onFrameCaptured { sequence, time in collector.captured(sequence, at: time) }
        try publisher.start()
        let deadline = MonotonicClock.nanoseconds() + UInt64(seconds + 10) * 1_000_000_000
        while collector.capturedCount < frames && MonotonicClock.nanoseconds() < deadline { sleepMilliseconds(50) }
        publisher.onFrameCaptured(nil)
        sleepMilliseconds(500)   // the last frames' packets and decodes
        publisher.stop()
        subscriber.stop()
        if let error = publisher.errorsSeen.first { throw ScenarioError("\(label): the publisher failed: \(error)") }
        if let error = subscriber.errorsSeen.first { throw ScenarioError("\(label): the subscriber failed: \(error)") }

        let outcome = collector.results()
        guard !outcome.latencies.isEmpty else { throw ScenarioError("\(label): no frame was decoded") }
        let ms = outcome.latencies.map { Double($0) / 1e6 }
        func percentile(_ p: Double) -> Double { ms[min(ms.count - 1, max(0, Int((p * Double(ms.count)).rounded(.up)) - 1))] }
        let share = Double(outcome.decoded) / Double(max(outcome.captured, 1)) * 100
        let dropped = source.statistics.framesDropped
        log("  \(label): \(outcome.captured) frames captured (\(dropped) skipped by the paced source), \(outcome.decoded) decoded, "
            + "\(outcome.unreadable) unreadable; latency min \(TableReport.format(ms.first!)) p50 \(TableReport.format(percentile(0.5))) "
            + "p90 \(TableReport.format(percentile(0.9))) p99 \(TableReport.format(percentile(0.99))) max \(TableReport.format(ms.last!)) ms")
        return [
            .bounded("\(label) capture-to-decoded p50", value: percentile(0.5), unit: "ms", goal: 15),
            .bounded("\(label) capture-to-decoded p99", value: percentile(0.99), unit: "ms", goal: 40),
            .info("\(label) frames decoded", value: share, unit: "%"),
        ]
    }
}
