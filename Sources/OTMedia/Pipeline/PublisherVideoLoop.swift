/// The publisher's video capture thread body: source → VP8 → RFC 7741 packets (with the
/// transport-wide extension's placeholder) → handed to the transport thread, which paces,
/// numbers, protects and sends them and keeps them for NACKs (`PublisherTransport`).
/// Frames captured while the pipeline's `videoEnabled` is false are dropped before the
/// encoder and counted.
///
/// Cost per frame: the encode, one lock and one wake-up of the transport thread; no
/// allocation (the packet arrays are reused).
final class PublisherVideoLoop: @unchecked Sendable {
    private let pipeline: PublisherPipeline
    private let source: any VideoSource
    private let sender: RTPStreamSender
    private let encoder: VP8Encoder
    private var packetizer: VP8Packetizer
    private let destination: SocketAddress
    private var batch: [PacketBuffer] = []
    private var lengths: [Int] = []
    private var payloadSizes: [Int] = []
    private let maximumKbps: Int
    private var appliedKbps: Int

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
        lengths.reserveCapacity(256)
        payloadSizes.reserveCapacity(256)
        maximumKbps = settings.bitrateKbps
        appliedKbps = settings.bitrateKbps
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
        let headerSize = RTPHeader.fixedSize + PublisherTransport.extensionBytes
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
            let header = PublisherTransport.withTransportSequence(sender.nextHeader(timestamp: timestamp,
                                                                                    marker: written.isLast))
            do { _ = try header.write(into: region) } catch {
                pipeline.pool.release(buffer)
                throw MediaError(.systemError, "RTP header: \(error)")
            }
            buffer.peer = destination
            batch.append(buffer)
            lengths.append(headerSize + written.length)
            payloadSizes.append(written.length)
        }
    }

    /// Hands the frame's packets to the transport thread (which paces and sends them) and
    /// wakes it; a full hand-over ring drops the rest of the frame (counted).
    private func flush() {
        followTarget()
        guard !batch.isEmpty else { return }
        for (index, buffer) in batch.enumerated() {
            let entry = OutgoingPacketQueue.Entry(buffer: buffer, kind: .video, length: lengths[index],
                                                  payloadBytes: payloadSizes[index])
            if !pipeline.outgoing.push(entry) {
                pipeline.pool.release(buffer)
                pipeline.transportCounters.droppedPackets.add(1, ordering: .relaxed)
            }
        }
        pipeline.wakeTransport()
        batch.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
        payloadSizes.removeAll(keepingCapacity: true)
    }

    /// Interim, until the adaptive encoder (PUBENC) reads `videoTargetBitrate` itself: the
    /// encoder's bitrate follows the target (never above the configured rate) when it moved
    /// by more than 10 %.
    private func followTarget() {
        let target = pipeline.videoTargetBitrate.load(ordering: .relaxed)
        guard target > 0 else { return }
        let kbps = min(maximumKbps, max(30, Int(target / 1000)))
        guard abs(kbps - appliedKbps) * 10 > appliedKbps else { return }
        do { try encoder.setBitrate(kbps: kbps) } catch { return }
        appliedKbps = kbps
    }
}
