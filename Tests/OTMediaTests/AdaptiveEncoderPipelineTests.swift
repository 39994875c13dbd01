import Foundation
import Synchronization
import Testing
@testable import OTMedia

/// The adaptive encoder inside a running `PublisherPipeline`, through real sockets: the
/// routed layering (three SSRCs, temporal layers) seen on the wire, keyframe requests by
/// SSRC over RTCP, the target driving the ladder, encoding limits and the fallback hook.
@Suite(.serialized)
struct AdaptiveEncoderPipelineTests {
    /// A plain-RTP receiver that keeps copies of every datagram.
    final class RawReceiver {
        let socket: UDPSocket
        private let pool = PacketBufferPool(initialCount: 64, bufferSize: 2048, headroom: 0)
        private let batch = UDPMessageBatch(capacity: 32)
        private(set) var packets: [[UInt8]] = []

        init() throws { socket = try UDPSocket(bindingTo: .ipv4Loopback()) }

        /// Receives until `condition` holds or `seconds` pass.
        func receive(for seconds: Double, until condition: ([[UInt8]]) -> Bool) {
            let buffers = (0..<32).map { _ in pool.take()! }
            defer { for buffer in buffers { pool.release(buffer) } }
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline, !condition(packets) {
                guard let result = try? socket.receive(into: buffers, batch: batch), case .processed(let count) = result,
                      count > 0 else {
                    Thread.sleep(forTimeInterval: 0.005)
                    continue
                }
                for buffer in buffers.prefix(count) { packets.append(Array(buffer.bytes)) }
            }
        }
    }

    /// RTP packets of one SSRC, in arrival order.
    static func packets(_ all: [[UInt8]], ssrc: UInt32) -> [[UInt8]] {
        all.filter { bytes in
            bytes.count > 12 && bytes[1] & 0x7F == 96 && bytes.withUnsafeBytes { (try? RTPPacket(parsing: $0))?.ssrc == ssrc }
        }
    }

    /// Depacketizes and decodes one SSRC's packets whose TID is at most `maxLayer`
    /// (a router dropping the upper temporal layers); returns decoded sizes and keyframes.
    static func decode(_ packets: [[UInt8]], maxLayer: UInt8) throws -> (sizes: [String], keyframes: Int, tids: Set<UInt8>) {
        let depacketizer = VP8Depacketizer()
        let decoder = try VP8Decoder()
        var sizes: [String] = []
        var keyframes = 0
        var tids: Set<UInt8> = []
        var started = false
        for bytes in packets {
            try bytes.withUnsafeBytes { raw in
                let packet = try RTPPacket(parsing: raw)
                let descriptor = try VP8PayloadDescriptor.parse(packet.payload).descriptor
                tids.insert(descriptor.temporalLayer ?? 0)
                guard (descriptor.temporalLayer ?? 0) <= maxLayer else { return }
                var failure: (any Error)?
                depacketizer.push(packet) { event in
                    guard case .frame(let frame) = event else { return }
                    if frame.isKeyframe { started = true; keyframes += 1 }
                    guard started else { return }
                    do {
                        if let picture = try decoder.decode(frame.data) { sizes.append("\(picture.width)x\(picture.height)") }
                    } catch { failure = error }
                }
                if let failure { throw failure }
            }
        }
        return (sizes, keyframes, tids)
    }

    private func waitUntil(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    private func publisher(to destination: SocketAddress, width: Int, height: Int,
                           configure: (inout PublisherConfiguration) -> Void = { _ in }) throws -> PublisherPipeline {
        var configuration = PublisherConfiguration(
            destination: destination,
            video: VP8EncoderSettings(width: width, height: height, frameRate: 30, bitrateKbps: 600), audio: nil)
        configuration.localAddress = .ipv4Loopback()
        configuration.videoStream = .vp8(ssrc: 0xA000)
        configure(&configuration)
        return try PublisherPipeline(configuration: configuration,
                                     videoSource: try TestPatternSource(format: VideoFormat(width: width, height: height, frameRate: 30)),
                                     audioSource: nil)
    }

    @Test func routedLayeringSendsThreeSSRCsWithDecodableBaseLayers() throws {
        let receiver = try RawReceiver()
        let pipeline = try publisher(to: receiver.socket.localAddress, width: 640, height: 360) {
            $0.useRoutedLayers(simulcastSSRCs: [0xA001, 0xA002])
        }
        #expect(pipeline.videoSSRCs == [0xA000, 0xA001, 0xA002])
        try pipeline.start()
        defer { pipeline.stop() }
        receiver.receive(for: 20) { packets in
            [0xA000, 0xA001, 0xA002].allSatisfy { ssrc in
                Self.packets(packets, ssrc: ssrc).filter { $0[1] & 0x80 != 0 }.count >= 48
            }
        }
        for (ssrc, size) in zip([0xA000, 0xA001, 0xA002] as [UInt32], ["640x360", "320x180", "160x90"]) {
            let stream = Self.packets(receiver.packets, ssrc: ssrc)
            let all = try Self.decode(stream, maxLayer: 2)
            let half = try Self.decode(stream, maxLayer: 1)
            let quarter = try Self.decode(stream, maxLayer: 0)
            #expect(all.tids == [0, 1, 2], "SSRC \(ssrc) carries three temporal layers")
            #expect(all.sizes.count >= 40 && Set(all.sizes) == [size], "SSRC \(ssrc): \(all.sizes.count) frames")
            // Dropping TID 2 halves the rate, dropping TID 1 too quarters it, and both still decode.
            #expect(abs(Double(half.sizes.count) - Double(all.sizes.count) / 2) <= 2, "TL≤1: \(half.sizes.count) of \(all.sizes.count)")
            #expect(abs(Double(quarter.sizes.count) - Double(all.sizes.count) / 4) <= 2, "TL0: \(quarter.sizes.count) of \(all.sizes.count)")
            #expect(Set(quarter.sizes) == [size])
        }
        let states = pipeline.currentVideoEncodings
        #expect(states.map(\.ssrc) == [0xA000, 0xA001, 0xA002])
        #expect(states.map { "\($0.width)x\($0.height)" } == ["640x360", "320x180", "160x90"])
    }

    @Test func pictureLossIndicationNamesTheEncodingThatSendsAKeyframe() throws {
        let receiver = try RawReceiver()
        let pipeline = try publisher(to: receiver.socket.localAddress, width: 320, height: 180) {
            $0.simulcastLayers = 2
            $0.simulcastStreams = [.vp8(ssrc: 0xA001)]
        }
        try pipeline.start()
        defer { pipeline.stop() }
        #expect(waitUntil { pipeline.videoCounters.snapshot().frames >= 20 })
        #expect(!pipeline.requestKeyframe(ssrc: 0xBEEF), "not one of ours")
        let before = pipeline.videoCounters.snapshot().keyframes

        // An RR + SDES + PLI for the small encoding's SSRC, as a receiver sends it.
        var bytes = [UInt8](repeating: 0, count: 256)
        let cname = Array("test".utf8)
        let length = try bytes.withUnsafeMutableBytes { raw in
            try cname.withUnsafeBytes { name in
                var writer = RTCPCompoundWriter(buffer: raw)
                try writer.append(ReceiverReport(ssrc: 0x5555))
                try writer.append(SourceDescription(ssrc: 0x5555, cname: name))
                try writer.append(PictureLossIndication(senderSSRC: 0x5555, mediaSSRC: 0xA001))
                return try writer.finish().count
            }
        }
        let pool = PacketBufferPool(initialCount: 1, bufferSize: 2048, headroom: 0)
        let buffer = try #require(pool.take())
        _ = bytes[..<length].withUnsafeBytes { buffer.assign($0) }
        buffer.peer = pipeline.localAddress
        _ = try receiver.socket.send([buffer], batch: UDPMessageBatch(capacity: 1))
        #expect(waitUntil { pipeline.videoCounters.snapshot().keyframeRequests == 1 })
        #expect(waitUntil { pipeline.videoCounters.snapshot().keyframes == before + 1 }, "one keyframe: only the named encoding")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(pipeline.videoCounters.snapshot().keyframes == before + 1)
        receiver.receive(for: 0.5) { _ in false }
        let small = Self.packets(receiver.packets, ssrc: 0xA001)
        #expect(try Self.decode(small, maxLayer: 0).keyframes >= 2, "the small SSRC carries the requested keyframe")
    }

    @Test func targetLimitAndFallbackDriveTheRunningPipeline() throws {
        let receiver = try RawReceiver()
        let events = Mutex<[AudioFallbackEvent]>([])
        let pipeline = try publisher(to: receiver.socket.localAddress, width: 640, height: 360) {
            // Short holds so the wall-clock test stays short; the shape is the default's.
            $0.audioFallbackEnabled = true
            $0.audioFallback.warningHold = 300_000_000
            $0.audioFallback.disableHold = 300_000_000
            $0.audioFallback.recoveryHold = 300_000_000
        }
        pipeline.onVideoQualityEvent { event in events.withLock { $0.append(event) } }
        try pipeline.start()
        defer { pipeline.stop() }
        #expect(waitUntil { pipeline.currentVideoEncoding?.width == 640 && pipeline.videoCounters.snapshot().frames >= 10 })

        // A low target: the ladder's smallest rung (far below: at once).
        pipeline.videoTargetBitrate.store(60_000, ordering: .relaxed)
        #expect(waitUntil { pipeline.currentVideoEncoding.map { $0.width == 320 && $0.frameRate == 7.5 } ?? false })
        // An encoding limit holds under a generous target.
        pipeline.videoTargetBitrate.store(2_000_000, ordering: .relaxed)
        pipeline.setEncodingLimit(maxWidth: 320, maxHeight: 180, maxFrameRate: 15)
        #expect(waitUntil { pipeline.currentVideoEncoding.map { $0.width == 320 && $0.frameRate == 15 } ?? false })
        #expect(pipeline.encodingLimit == VideoEncodingLimit(maxWidth: 320, maxHeight: 180, maxFrameRate: 15))
        pipeline.setEncodingLimit(.none)
        #expect(waitUntil { pipeline.currentVideoEncoding.map { $0.width == 640 && $0.frameRate == 30 } ?? false })

        // Starved: warning, then video off; nothing is encoded while off.
        pipeline.videoTargetBitrate.store(20_000, ordering: .relaxed)
        #expect(waitUntil { events.withLock { $0 } == [.warning, .videoDisabled(reason: .qualityChanged)] })
        #expect(pipeline.isVideoSuspendedByFallback)
        #expect(pipeline.currentVideoEncoding == nil)
        Thread.sleep(forTimeInterval: 0.1)
        let frozen = pipeline.videoCounters.snapshot()
        let dropped = pipeline.videoFramesDroppedByFallback
        #expect(waitUntil { pipeline.videoFramesDroppedByFallback >= dropped + 10 })
        #expect(pipeline.videoCounters.snapshot().frames == frozen.frames, "the encoder does not run")

        // Recovered: video back with a keyframe.
        pipeline.videoTargetBitrate.store(500_000, ordering: .relaxed)
        #expect(waitUntil { events.withLock { $0.last } == .videoEnabled(reason: .qualityChanged) })
        #expect(waitUntil { pipeline.videoCounters.snapshot().keyframes > frozen.keyframes })
        #expect(!pipeline.isVideoSuspendedByFallback && pipeline.videoFallbackState == .normal)
        #expect(waitUntil { pipeline.videoCounters.snapshot().frames > frozen.frames + 5 })
    }
}
