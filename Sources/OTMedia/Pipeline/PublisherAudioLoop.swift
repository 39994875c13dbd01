/// The publisher's audio capture thread body: source → Opus straight into the packet
/// buffer after the RTP header (no copy) → SRTP → send. Frames captured while the
/// pipeline's `audioEnabled` is false are dropped before the encoder and counted.
///
/// Cost per 20 ms frame: the encode, one protect, one `sendmmsg` of one datagram; no
/// allocation.
final class PublisherAudioLoop: @unchecked Sendable {
    private let pipeline: PublisherPipeline
    private let source: any AudioSource
    private let sender: RTPStreamSender
    private let encoder: OpusEncoder
    private let destination: SocketAddress
    private var batch: [PacketBuffer] = []
    private let messages = UDPMessageBatch(capacity: 1)

    init(pipeline: PublisherPipeline, source: any AudioSource, settings: OpusEncoderSettings, sender: RTPStreamSender) throws(MediaError) {
        guard source.format == settings.format else {
            throw MediaError(.invalidArgument, "audio source gives \(source.format) but the encoder is set for \(settings.format)")
        }
        self.pipeline = pipeline
        self.source = source
        self.sender = sender
        encoder = try OpusEncoder(settings: settings)
        destination = pipeline.configuration.audioDestination ?? pipeline.configuration.destination
        batch.reserveCapacity(1)
    }

    func run(_ flag: StopFlag) {
        while flag.isRunning {
            let frame: AudioFrame?
            do { frame = try source.nextFrame(timeoutMilliseconds: 100) } catch {
                pipeline.record(error)
                return
            }
            guard let frame else { continue }
            // publishAudio off (or a forced mute): the frame stops here, before the encoder.
            guard pipeline.audioSwitch.load(ordering: .relaxed) else {
                pipeline.audioFramesDisabled.add(1, ordering: .relaxed)
                continue
            }
            do { try send(frame) } catch { pipeline.record(error) }
        }
    }

    private func send(_ frame: AudioFrame) throws(MediaError) {
        guard let buffer = pipeline.pool.take() else { return }
        defer { pipeline.pool.release(buffer) }
        let headerSize = RTPHeader.fixedSize
        let region = buffer.writableBytes
        let payload = UnsafeMutableRawBufferPointer(rebasing: region[headerSize..<(region.count - SRTPProfile.maxTrailer)])
        let length = try encoder.encode(frame, into: payload)
        pipeline.audioCounters.frames.add(1, ordering: .relaxed)
        let header = sender.nextHeader(timestamp: sender.rtpTimestamp(at: frame.timestampNanoseconds), marker: false)
        do { _ = try header.write(into: region) } catch { throw MediaError(.systemError, "RTP header: \(error)") }
        try sender.finish(buffer, length: headerSize + length, payloadBytes: length)
        buffer.peer = destination
        batch.append(buffer)
        defer { batch.removeAll(keepingCapacity: true) }
        do {
            let result = try pipeline.socket.send(batch, batch: messages)
            pipeline.audioCounters.packets.add(UInt64(result.count), ordering: .relaxed)
            pipeline.audioCounters.bytes.add(UInt64(buffer.length), ordering: .relaxed)
        } catch {
            throw MediaError(.networkFailure, "audio send failed: \(error)")
        }
    }
}
