import OTMedia
import Testing

/// `PublisherConfiguration.packetBufferCount`: the pipeline makes that many packet buffers
/// at creation (so a source running ahead of the transport thread finds them made, and
/// the capture thread does not allocate), clamped to 1...1,200.
struct PublisherPacketBufferTests {
    private func pipeline(buffers: Int?) throws -> PublisherPipeline {
        var configuration = PublisherConfiguration(
            destination: .ipv4Loopback(port: 9), video: VP8EncoderSettings(width: 320, height: 240, frameRate: 30,
                                                                           bitrateKbps: 300), audio: nil)
        configuration.localAddress = .ipv4Loopback()
        if let buffers { configuration.packetBufferCount = buffers }
        return try PublisherPipeline(configuration: configuration,
                                     videoSource: try TestPatternSource(format: VideoFormat(width: 320, height: 240,
                                                                                            frameRate: 30)),
                                     audioSource: nil)
    }

    @Test("96 buffers by default, as before the setting existed")
    func defaultCount() throws {
        #expect(try pipeline(buffers: nil).packetBuffersCreated == 96)
    }

    @Test("The configured count is made up front", arguments: [1, 256, 1200])
    func configuredCount(_ count: Int) throws {
        #expect(try pipeline(buffers: count).packetBuffersCreated == count)
    }

    @Test("Out-of-range counts are clamped to 1...1,200", arguments: [(0, 1), (-5, 1), (5000, 1200), (Int.max, 1200)])
    func clamped(_ pair: (given: Int, made: Int)) throws {
        #expect(try pipeline(buffers: pair.given).packetBuffersCreated == pair.made)
    }
}
