import Foundation
import Synchronization
import Testing
@testable import OTMedia

/// The video capture thread's direct sends (`PublisherTransportAccess.sendDirect`): a
/// frame the pacer lets go at once is numbered, protected and sent from the capture
/// thread, the rest by the transport thread, through one transport-wide counter.
struct PublisherDirectSendTests {
    @Test("Frames go out from the capture thread; transport-wide numbers stay one gapless run")
    func directSendsKeepOneNumbering() throws {
        let receiver = try AdaptiveEncoderPipelineTests.RawReceiver()
        var configuration = PublisherConfiguration(
            destination: receiver.socket.localAddress,
            video: VP8EncoderSettings(width: 320, height: 240, frameRate: 30, bitrateKbps: 300), audio: nil)
        configuration.localAddress = .ipv4Loopback()
        let pipeline = try PublisherPipeline(
            configuration: configuration,
            videoSource: try TestPatternSource(format: VideoFormat(width: 320, height: 240, frameRate: 30)), audioSource: nil)
        let frames = Atomic<Int>(0)
        pipeline.onFrameCaptured { _, _ in frames.add(1, ordering: .relaxed) }
        try pipeline.start()
        // Poll (up to 60 s under load) until 30 frames went out directly.
        receiver.receive(for: 60) { _ in pipeline.transportCounters.directSends.load(ordering: .relaxed) >= 30 }
        pipeline.stop()
        let direct = pipeline.transportCounters.directSends.load(ordering: .relaxed)
        let sent = Int(pipeline.videoCounters.snapshot().packets)
        // RTP only (payload type 96): the sender reports go to the same address.
        func rtp(_ all: [[UInt8]]) -> [[UInt8]] { all.filter { $0.count > 12 && $0[1] & 0x7F == 96 } }
        receiver.receive(for: 20) { rtp($0).count >= sent }
        let packets = rtp(receiver.packets)
        print("direct sends: \(direct) of \(frames.load(ordering: .relaxed)) frames; \(sent) packets sent, "
              + "\(packets.count) RTP packets received")
        #expect(direct >= 30)
        #expect(direct <= UInt64(frames.load(ordering: .relaxed)))
        #expect(packets.count == sent)
        // Every packet carries the transport-wide number at `sequenceOffset`: whichever thread
        // sent it, the numbers are one run without gaps or repeats.
        let numbers = packets.filter { $0.count > PublisherTransport.sequenceOffset + 1 }.map { bytes in
            Int(bytes[PublisherTransport.sequenceOffset]) << 8 | Int(bytes[PublisherTransport.sequenceOffset + 1])
        }
        try #require(numbers.count == sent)
        let first = numbers.min() ?? 0
        let unwrapped = numbers.map { ($0 - first + 65_536) % 65_536 }  // < 65,536 packets: no second wrap
        #expect(Set(unwrapped).count == numbers.count)
        #expect(Set(unwrapped) == Set(0..<numbers.count) || Self.wrapped(numbers))
    }

    /// True when the numbers are one gapless run across the 16-bit wrap.
    private static func wrapped(_ numbers: [Int]) -> Bool {
        let set = Set(numbers)
        guard let start = numbers.first(where: { !set.contains(($0 + 65_535) % 65_536) }) else { return false }
        return (0..<numbers.count).allSatisfy { set.contains((start + $0) % 65_536) }
    }
}
