/// The publisher's video capture thread body: source → adaptive VP8 encoder (quality
/// ladder, frame-rate decimation, simulcast, audio fallback) → RFC 7741 packets (with
/// the transport-wide extension's placeholder) → handed to the transport thread, which
/// paces, numbers, protects and sends them and keeps them for NACKs in the encoding's
/// store (`PublisherTransport`). Frames captured while the pipeline's `videoEnabled` is
/// false are dropped before the encoder and counted.
///
/// Cost per frame: one atomic load of the video target, the encode(s), one 1.2 KB copy
/// per packet, one ring hand-over per encoding and, when the pacer lets the frame go at
/// once, its protects and one `sendmmsg` on this thread (else one wake-up); no allocation (packet
/// arrays and scaled frames are reused).
final class PublisherVideoLoop: @unchecked Sendable {
    private let pipeline: PublisherPipeline
    private let source: any VideoSource
    /// Per encoding (largest first): its RTP sender, packetizer and retransmission store.
    private let senders: [RTPStreamSender]
    private var packetizers: [VP8Packetizer]
    private let adaptive: AdaptiveVideoEncoder
    private let destination: SocketAddress
    private var batch: [PacketBuffer] = []
    private var lengths: [Int] = []
    private var payloadSizes: [Int] = []
    private var limitGeneration: UInt64 = 0
    private var fallbackState = AudioFallbackState.normal
    private var loss = LossWindow()
    /// End-to-end encryption (empty without): one encryptor per encoding (each its own
    /// KID and counter), and the sealed frame the packetizer reads (grown to the largest
    /// frame seen, then reused).
    private let encryptors: [SFrameFrameEncryptor]
    private var sealed = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// This thread's batch for direct sends (`PublisherPipeline.sendOrWakeTransport`).
    private let direct: TransportSendBatch

    init(pipeline: PublisherPipeline, source: any VideoSource, settings: VP8EncoderSettings, sender: RTPStreamSender) throws(MediaError) {
        self.pipeline = pipeline
        self.source = source
        let configuration = pipeline.configuration
        senders = [sender] + pipeline.simulcastSenders
        var adaptiveSettings = AdaptiveVideoEncoder.Settings(video: settings, ssrcs: senders.map(\.parameters.ssrc))
        adaptiveSettings.adaptive = configuration.adaptiveVideo
        adaptiveSettings.fallback = configuration.audioFallback
        adaptiveSettings.fallback.side = .publisher
        adaptiveSettings.quality = configuration.quality
        adaptive = try AdaptiveVideoEncoder(settings: adaptiveSettings)
        var made: [VP8Packetizer] = []
        for _ in senders {
            do {
                made.append(try VP8Packetizer(maxPayloadSize: configuration.maximumPayloadSize,
                                              temporalLayers: settings.temporalLayers > 1))
            } catch {
                throw MediaError(.invalidArgument, "VP8 packetizer: \(error)")
            }
        }
        packetizers = made
        let encodings = senders.count
        encryptors = configuration.endToEndEncryption.map { slot in (0..<encodings).map { _ in SFrameFrameEncryptor(slot: slot) } } ?? []
        destination = configuration.destination
        if !encryptors.isEmpty { sealed = .allocate(byteCount: 256 << 10, alignment: 16) }
        direct = TransportSendBatch(capacity: 64, encodings: encodings)
        batch.reserveCapacity(256)
        lengths.reserveCapacity(256)
        payloadSizes.reserveCapacity(256)
        pipeline.publish(adaptive.encodings)
    }

    deinit { sealed.deallocate() }

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

    /// Encoder pushback: a frame is not encoded while the pacer holds more than this many
    /// seconds of video at the current target (0.25 s: a keyframe at the target's rate,
    /// about what a bottleneck's queue and the receiver's 150 ms frame wait tolerate).
    static let pushbackSeconds = 0.25

    private func send(_ frame: VideoFrame) throws(MediaError) {
        let target = pipeline.videoTargetBitrate.load(ordering: .relaxed)
        if target > 0, pipeline.configuration.adaptiveVideo,
           Double(pipeline.pacerVideoBacklogBits.load(ordering: .relaxed)) > Double(target) * Self.pushbackSeconds {
            pipeline.videoFramesPushedBackCount.add(1, ordering: .relaxed)
            return
        }
        let generation = pipeline.encodingLimitGeneration.load(ordering: .acquiring)
        var changed = false
        if generation != limitGeneration {
            limitGeneration = generation
            try adaptive.setLimit(pipeline.encodingLimitValue.withLock { $0 })
            changed = true
        }
        // Receivers' requests (PLI/FIR by SSRC) are held off right after a keyframe; the
        // pipeline's own requests (a new relayed destination, the app) are not.
        let mask = pipeline.keyframeRequestMask.exchange(0, ordering: .relaxed)
        if mask != 0 { adaptive.requestKeyframes(mask: mask, now: frame.timestampNanoseconds) }
        if pipeline.keyframeRequested.exchange(false, ordering: .relaxed) { adaptive.requestKeyframes(mask: UInt32.max) }
        // A new end-to-end key: every encoding starts over with a keyframe under it, so
        // subscribers recover at once.
        if refreshKeys() { adaptive.requestKeyframes(mask: UInt32.max) }
        let counters = pipeline.videoCounters
        let lossFraction = loss.update(now: frame.timestampNanoseconds, counters: counters)
        var failure: MediaError?
        let result = try adaptive.encode(frame, targetBitrate: target, lossFraction: lossFraction) { index, encoded in
            counters.frames.add(1, ordering: .relaxed)
            if encoded.isKeyframe { counters.keyframes.add(1, ordering: .relaxed) }
            let timestamp = senders[index].rtpTimestamp(at: frame.timestampNanoseconds)
            do throws(MediaError) { try packetize(encoded, timestamp: timestamp, encoding: index) } catch { failure = error }
            // Whatever was packetized goes out, also when the frame failed partway.
            flush(encoding: index, keyframe: encoded.isKeyframe)
        }
        if result.suspended {
            pipeline.videoFramesSuspendedCount.add(1, ordering: .relaxed)
        } else if result.encodedFrames == 0 {
            pipeline.videoFramesDecimatedCount.add(1, ordering: .relaxed)
        }
        if let event = result.event {
            fallbackState = adaptive.fallback.state
            pipeline.deliver(event, state: fallbackState)
        } else if adaptive.fallback.state != fallbackState {
            fallbackState = adaptive.fallback.state  // probing starts and ends without an event
            pipeline.noteFallbackState(fallbackState)
        }
        if changed || result.stateChanged { pipeline.publish(adaptive.encodings) }
        if let failure { throw failure }
    }

    private func packetize(_ encoded: EncodedVideoFrame, timestamp: UInt32, encoding index: Int) throws(MediaError) {
        let sender = senders[index]
        var data = encoded.data
        if !encryptors.isEmpty {
            guard let length = seal(encoded.data, encoding: index) else { return }  // dropped: no key, or failed
            data = UnsafeRawBufferPointer(rebasing: sealed[0..<length])
        }
        do {
            _ = try packetizers[index].begin(data, temporalLayer: encoded.temporalLayer, layerSync: encoded.layerSync,
                                             nonReference: encoded.isNonReference)
        } catch { throw MediaError(.codecFailure, "VP8 packetizer: \(error)") }
        let headerSize = RTPHeader.fixedSize + PublisherTransport.extensionBytes
        while packetizers[index].remainingPackets > 0 {
            guard let buffer = pipeline.pool.take() else {
                throw MediaError(.systemError, "publisher packet pool exhausted; frame truncated")
            }
            let region = buffer.writableBytes
            let payloadRoom = region.count - headerSize - SRTPProfile.maxTrailer
            let payload = UnsafeMutableRawBufferPointer(rebasing: region[headerSize..<(headerSize + payloadRoom)])
            let written: (length: Int, isLast: Bool)?
            do { written = try packetizers[index].nextPacket(into: payload) } catch {
                pipeline.pool.release(buffer)
                throw MediaError(.codecFailure, "VP8 packetizer: \(error)")
            }
            guard let written else { pipeline.pool.release(buffer); break }
            let header = PublisherTransport.withTransportSequence(sender.nextHeader(timestamp: timestamp, marker: written.isLast))
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

    /// Takes a newly installed end-to-end key in every encoding; true when one changed.
    /// One atomic load per encoding when nothing did.
    private func refreshKeys() -> Bool {
        var changed = false
        for index in 0..<encryptors.count {
            do { if try encryptors[index].refresh() { changed = true } } catch { pipeline.encryptionFailed(error) }
        }
        return changed
    }

    /// Seals one encoded frame into `sealed` (`clear ‖ SFrame(rest)`, the VP8 payload
    /// header clear); its length, or nil when it must not be sent (no key yet, counted;
    /// or a failure, reported as 6001).
    private func seal(_ frame: UnsafeRawBufferPointer, encoding index: Int) -> Int? {
        let needed = frame.count + SFrameFrameEncryptor.maxOverhead
        if sealed.count < needed {  // a frame larger than any before: grow once (doubling)
            sealed.deallocate()
            sealed = .allocate(byteCount: max(needed, sealed.count * 2), alignment: 16)
        }
        return pipeline.seal(frame, clearBytes: SFrameFrameLayout.vp8ClearBytes(frame), with: encryptors[index], into: sealed)
    }

    /// Hands one encoding's frame to the transport (which paces, protects and sends it, and
    /// keeps it in that encoding's store for NACKs): sent from this thread when the
    /// transport is free and the pacer lets it go now, else by the transport thread, woken
    /// for it; a full hand-over ring drops the rest of the frame (counted).
    private func flush(encoding index: Int, keyframe: Bool) {
        guard !batch.isEmpty else { return }
        for slot in 0..<batch.count {  // indexed: a for-in over the array allocates in debug builds
            let entry = OutgoingPacketQueue.Entry(buffer: batch[slot], kind: .video, length: lengths[slot],
                                                  payloadBytes: payloadSizes[slot], encoding: index, keyframe: keyframe)
            if !pipeline.outgoing.push(entry) {
                pipeline.pool.release(batch[slot])
                pipeline.transportCounters.droppedPackets.add(1, ordering: .relaxed)
            }
        }
        pipeline.sendOrWakeTransport(direct)
        batch.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
        payloadSizes.removeAll(keepingCapacity: true)
    }
}
