/// The publisher's video capture thread body: source → VP8 → RFC 7741 packets → SRTP →
/// one `sendmmsg` per frame, then the frame's packets into the retransmission store.
/// Frames captured while the pipeline's `videoEnabled` is false are dropped before the
/// encoder and counted.
///
/// Cost per frame: the encode, one protect and one 1.2 KB copy per packet, one batched
/// send; no allocation (the packet array and message batch are reused).
final class PublisherVideoLoop: @unchecked Sendable {
    private let pipeline: PublisherPipeline
    private let source: any VideoSource
    private let sender: RTPStreamSender
    private let encoder: VP8Encoder
    private var packetizer: VP8Packetizer
    private let destination: SocketAddress
    private var batch: [PacketBuffer] = []
    private let messages = UDPMessageBatch(capacity: 32)

    init(pipeline: PublisherPipeline, source: any VideoSource, settings: VP8EncoderSettings, sender: RTPStreamSender) throws(MediaError) {
        self.pipeline = pipeline
        self.source = source
        self.sender = sender
        encoder = try VP8Encoder(settings: settings)
        do {
            packetizer = try VP8Packetizer(maxPayloadSize: pipeline.configuration.maximumPayloadSize,
                                           temporalLayers: settings.temporalLayers > 1)
        } catch {
            throw MediaError(.invalidArgument, "VP8 packetizer: \(error)")
        }
        destination = pipeline.configuration.destination
        batch.reserveCapacity(256)
    }

    func run(_ flag: StopFlag) {
        while flag.isRunning {
            let frame: VideoFrame?
            do { frame = try source.nextFrame(timeoutMilliseconds: 100) } catch {
                pipeline.record(error)
                // A lost camera or an ended file stops video; audio goes on.
                return
            }
            guard let frame else { continue }
            // publishVideo off: the frame stops here, before the encoder.
            guard pipeline.videoSwitch.load(ordering: .relaxed) else {
                pipeline.videoFramesDisabled.add(1, ordering: .relaxed)
                continue
            }
            pipeline.frameCaptured(frame)
            do { try send(frame) } catch { pipeline.record(error) }
        }
    }

    private func send(_ frame: VideoFrame) throws(MediaError) {
        // Whatever was packetized goes out, also when the frame failed partway: packets
        // left in `batch` would otherwise leave one frame late.
        defer { flush() }
        let forceKeyframe = pipeline.keyframeRequested.exchange(false, ordering: .relaxed)
        let timestamp = sender.rtpTimestamp(at: frame.timestampNanoseconds)
        let counters = pipeline.videoCounters
        var failure: MediaError?
        try encoder.encode(frame, forceKeyframe: forceKeyframe) { encoded in
            counters.frames.add(1, ordering: .relaxed)
            if encoded.isKeyframe { counters.keyframes.add(1, ordering: .relaxed) }
            do throws(MediaError) { try packetize(encoded, timestamp: timestamp) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private func packetize(_ encoded: EncodedVideoFrame, timestamp: UInt32) throws(MediaError) {
        do { _ = try packetizer.begin(encoded) } catch { throw MediaError(.codecFailure, "VP8 packetizer: \(error)") }
        let headerSize = RTPHeader.fixedSize
        while packetizer.remainingPackets > 0 {
            guard let buffer = pipeline.pool.take() else {
                throw MediaError(.systemError, "publisher packet pool exhausted; frame truncated")
            }
            let region = buffer.writableBytes
            let payloadRoom = region.count - headerSize - SRTPProfile.maxTrailer
            let payload = UnsafeMutableRawBufferPointer(rebasing: region[headerSize..<(headerSize + payloadRoom)])
            let written: (length: Int, isLast: Bool)?
            do { written = try packetizer.nextPacket(into: payload) } catch {
                pipeline.pool.release(buffer)
                throw MediaError(.codecFailure, "VP8 packetizer: \(error)")
            }
            guard let written else { pipeline.pool.release(buffer); break }
            let header = sender.nextHeader(timestamp: timestamp, marker: written.isLast)
            do { _ = try header.write(into: region) } catch {
                pipeline.pool.release(buffer)
                throw MediaError(.systemError, "RTP header: \(error)")
            }
            do { try sender.finish(buffer, length: headerSize + written.length, payloadBytes: written.length) } catch {
                pipeline.pool.release(buffer)
                throw error
            }
            buffer.peer = destination
            batch.append(buffer)
        }
    }

    /// Sends the frame's packets in one batch, keeps them for NACKs, recycles them.
    private func flush() {
        guard !batch.isEmpty else { return }
        let counters = pipeline.videoCounters
        do {
            let result = try pipeline.socket.send(batch, batch: messages)
            var bytes: UInt64 = 0
            for buffer in batch.prefix(result.count) { bytes += UInt64(buffer.length) }
            counters.packets.add(UInt64(result.count), ordering: .relaxed)
            counters.bytes.add(bytes, ordering: .relaxed)
        } catch {
            pipeline.record(MediaError(.networkFailure, "video send failed: \(error)"))
        }
        pipeline.retransmissions.store(batch)
        for buffer in batch { pipeline.pool.release(buffer) }
        batch.removeAll(keepingCapacity: true)
    }
}
