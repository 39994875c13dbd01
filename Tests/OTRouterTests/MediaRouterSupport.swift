import Foundation
import OTMedia
import OTRouter
import OTSignaling
import Synchronization
import Testing

/// What one subscriber decoded: frame numbers read from the pictures, audio levels.
final class DecodedStream: @unchecked Sendable {
    private let lock = NSLock()
    private var numbers: [UInt32] = []
    private var unreadable = 0
    private var levels: [Double] = []
    private var samples: [Int16] = []

    private var synced = 0
    private var times: [UInt64] = []

    func video(_ frame: VideoFrame, _ info: DecodedVideoFrameInfo) {
        let number = FrameNumberStamp.read(from: frame)
        let now = DispatchTime.now().uptimeNanoseconds
        lock.lock(); defer { lock.unlock() }
        times.append(now)
        if let number { numbers.append(number) } else { unreadable += 1 }
        if info.presentAtNanoseconds != nil { synced += 1 }
    }

    /// Frames that got a lip-sync presentation time (needs sender reports of both streams).
    var lipSyncedFrames: Int { lock.lock(); defer { lock.unlock() }; return synced }

    func audio(_ frame: AudioFrame) {
        let level = AudioAnalysis.rms(UnsafeBufferPointer(frame.buffer))
        lock.lock(); defer { lock.unlock() }
        levels.append(level)
        if samples.count < 48_000 * 10 { samples.append(contentsOf: frame.buffer) }
    }

    var frameNumbers: [UInt32] { lock.lock(); defer { lock.unlock() }; return numbers }
    /// When each video frame was decoded (monotonic nanoseconds), in order.
    var frameTimes: [UInt64] { lock.lock(); defer { lock.unlock() }; return times }

    /// The longest time between two decoded frames within `start...end` (and from `start`
    /// to the first one, and from the last one to `end`), milliseconds.
    func longestGapMilliseconds(from start: UInt64, to end: UInt64) -> Double {
        let inside = frameTimes.filter { $0 >= start && $0 <= end }
        var previous = start, longest: UInt64 = 0
        for time in inside + [end] {
            longest = max(longest, time - previous)
            previous = time
        }
        return Double(longest) / 1e6
    }
    var unreadableFrames: Int { lock.lock(); defer { lock.unlock() }; return unreadable }
    var audioLevels: [Double] { lock.lock(); defer { lock.unlock() }; return levels }
    var audioSamples: [Int16] { lock.lock(); defer { lock.unlock() }; return samples }

    /// The share of `sent` frame numbers decoded at least once.
    func share(of sent: [UInt64]) -> Double {
        let decoded = Set(frameNumbers.map(UInt64.init))
        return Double(sent.filter(decoded.contains).count) / Double(max(sent.count, 1))
    }

    /// True when every decoded frame number is larger than the one before.
    var numbersIncrease: Bool {
        let list = frameNumbers
        return zip(list, list.dropFirst()).allSatisfy { $0 < $1 }
    }
}

/// SRTP keys and addresses as a client takes them from a `WireMediaLeg`.
enum LegClient {
    static func keys(_ leg: WireMediaLeg) throws -> SRTPLegKeys {
        let profile = try #require(SRTPProfile(rfcName: leg.profile))
        return SRTPLegKeys(send: try SRTPKeyMaterial(profile: profile, base64: leg.clientKey ?? ""),
                           receive: try SRTPKeyMaterial(profile: profile, base64: leg.routerKey ?? ""))
    }

    static func address(_ leg: WireMediaLeg) throws -> SocketAddress {
        try #require(SocketAddress(ipv4: leg.host, port: UInt16(leg.port)))
    }
}

/// A real publisher (test pattern + 440 Hz tone) configured from its publisher leg.
final class TestPublisher: @unchecked Sendable {
    let pipeline: PublisherPipeline
    private let sentNumbers = Mutex<[UInt64]>([])

    init(leg: WireMediaLeg, destination: SocketAddress? = nil, width: Int = 320, height: Int = 240) throws {
        var video = VP8EncoderSettings(width: width, height: height, frameRate: 30, bitrateKbps: 400)
        video.maxKeyframeInterval = 3000  // keyframes only when someone asks
        var audio = OpusEncoderSettings(format: .mono20ms)
        audio.inbandFEC = true
        var configuration = PublisherConfiguration(destination: try destination ?? LegClient.address(leg), video: video, audio: audio)
        configuration.videoStream = .vp8(ssrc: try #require(leg.videoSSRC))
        configuration.audioStream = .opus(ssrc: try #require(leg.audioSSRC))
        configuration.keys = try LegClient.keys(leg)
        configuration.localAddress = .ipv4Loopback()
        let source = try TestPatternSource(format: VideoFormat(width: width, height: height, frameRate: 30))
        let tone = try ToneSource(frequency: 440, amplitude: 0.5, format: .mono20ms)
        pipeline = try PublisherPipeline(configuration: configuration, videoSource: source, audioSource: tone)
        pipeline.onFrameCaptured { [self] sequence, _ in self.sentNumbers.withLock { $0.append(sequence) } }
        try pipeline.start()
    }

    /// Frame numbers captured so far.
    var sent: [UInt64] { sentNumbers.withLock { $0 } }

    func stop() {
        pipeline.onFrameCaptured(nil)
        pipeline.stop()
    }
}

/// A real subscriber configured from its subscriber leg, sending its RTCP to the leg (or
/// to `feedback`, e.g. a lossy proxy in front of it).
final class TestSubscriber: @unchecked Sendable {
    let pipeline: SubscriberPipeline
    let decoded = DecodedStream()

    init(leg: WireMediaLeg, feedback: SocketAddress? = nil) throws {
        var configuration = SubscriberConfiguration()
        configuration.keys = try LegClient.keys(leg)
        configuration.localAddress = .ipv4Loopback()
        configuration.feedbackDestination = try feedback ?? LegClient.address(leg)
        let decoded = decoded
        pipeline = try SubscriberPipeline(configuration: configuration,
                                          onVideoFrame: { frame, info in decoded.video(frame, info) },
                                          onAudioFrame: { frame in decoded.audio(frame) })
        try pipeline.start()
    }

    func stop() { pipeline.stop() }
}

extension MediaRouter {
    /// Adds the audio + video publisher leg of `streamId` (what most tests publish).
    func addAVPublisher(_ streamId: String = "s1") throws -> WireMediaLeg {
        try addPublisher(streamId: streamId, audio: true, video: true)
    }

    /// Adds an audio + video subscriber leg `subscriberId` to `streamId`.
    func addAVSubscriber(_ subscriberId: String, to streamId: String = "s1") throws -> WireMediaLeg {
        try addSubscriber(subscriberId: subscriberId, streamId: streamId, audio: true, video: true)
    }
}

extension TestPublisher {
    /// Waits (up to 20 s) until the frames in `range` (by capture order) have been sent;
    /// returns their numbers (those sent so far if that never happens).
    func framesSent(_ range: Range<Int>) -> [UInt64] {
        waitUntil(seconds: 20) { self.sent.count >= range.upperBound }
        let numbers = sent
        return Array(numbers[min(range.lowerBound, numbers.count)..<min(range.upperBound, numbers.count)])
    }
}

/// Waits up to 3 s for every subscriber to have decoded 99 % of `sent` (the stragglers
/// in flight when the publisher stops); returns whether they all did.
@discardableResult
func waitForDelivery(of sent: [UInt64], to subscribers: TestSubscriber...) -> Bool {
    waitUntil(seconds: 3) { subscribers.allSatisfy { $0.decoded.share(of: sent) >= 0.99 } }
}

/// Waits up to `seconds` for `condition`, polling every 20 ms; returns whether it held.
@discardableResult
func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return condition()
}

/// A UDP relay between a publisher and the router whose router-facing socket can be
/// switched mid-stream (a client whose source address changes, as after a reconnection).
/// Replies from the router are relayed back to the client.
final class SwitchingRelay: @unchecked Sendable {
    let listen: UDPSocket
    private let upstream: [UDPSocket]
    private let target: SocketAddress
    private let useSecond = Atomic<Bool>(false)
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)
    /// Datagrams the router sent to each upstream socket.
    let repliesOnFirst = Atomic<Int>(0)
    let repliesOnSecond = Atomic<Int>(0)

    init(target: SocketAddress) throws {
        listen = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 4 << 20, sendBufferBytes: 4 << 20)
        upstream = [try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 4 << 20, sendBufferBytes: 4 << 20),
                    try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 4 << 20, sendBufferBytes: 4 << 20)]
        self.target = target
        Thread { [self] in run() }.start()
    }

    func switchToSecondSocket() { useSecond.store(true, ordering: .relaxed) }

    private func run() {
        let pool = PacketBufferPool(initialCount: 64)
        let batch = UDPMessageBatch(capacity: 32)
        var buffers: [PacketBuffer] = []
        for _ in 0..<32 { buffers.append(pool.take()!) }
        var client: SocketAddress?
        while running.load(ordering: .relaxed) {
            _ = try? listen.waitUntilReadable(timeoutNanoseconds: 1_000_000)
            if case .processed(let n)? = try? listen.receive(into: buffers, batch: batch), n > 0 {
                client = buffers[n - 1].peer
                for b in buffers.prefix(n) { b.peer = target }
                let out = upstream[useSecond.load(ordering: .relaxed) ? 1 : 0]
                _ = try? out.send(buffers, maximum: n, batch: batch)
                for b in buffers { b.reset() }
            }
            for (index, socket) in upstream.enumerated() {
                guard case .processed(let n)? = try? socket.receive(into: buffers, batch: batch), n > 0 else { continue }
                if index == 0 { repliesOnFirst.add(n, ordering: .relaxed) } else { repliesOnSecond.add(n, ordering: .relaxed) }
                if let client {
                    for b in buffers.prefix(n) { b.peer = client }
                    _ = try? listen.send(buffers, maximum: n, batch: batch)
                }
                for b in buffers { b.reset() }
            }
        }
        finished.store(true, ordering: .releasing)
    }

    func stop() {
        running.store(false, ordering: .relaxed)
        while !finished.load(ordering: .acquiring) { usleep(1_000) }
        listen.close()
        for socket in upstream { socket.close() }
    }
}

/// Open file descriptors and threads of this process, from /proc.
enum ProcessResources {
    static var openDescriptors: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
    static var threads: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1 }
}
