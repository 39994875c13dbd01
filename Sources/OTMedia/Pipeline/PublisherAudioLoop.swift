/// The publisher's audio capture thread body: source → Opus straight into the packet
/// buffer after the RTP header (no copy) → handed to the transport thread, which sends
/// audio ahead of video (`PublisherTransport`). Frames captured while the
/// pipeline's `audioEnabled` is false are dropped before the encoder and counted.
///
/// Cost per 20 ms frame: the encode, one lock and one wake-up of the transport thread; no
/// allocation.
final class PublisherAudioLoop: @unchecked Sendable {
    private let pipeline: PublisherPipeline
    private let source: any AudioSource
    private let sender: RTPStreamSender
    private let encoder: OpusEncoder
    private let destination: SocketAddress
    /// End-to-end encryption: the track's encryptor and the Opus packet before sealing.
    private let encryptor: SFrameFrameEncryptor?
    private let plain: UnsafeMutableRawBufferPointer

    init(pipeline: PublisherPipeline, source: any AudioSource, settings: OpusEncoderSettings, sender: RTPStreamSender) throws(MediaError) {
        guard source.format == settings.format else {
            throw MediaError(.invalidArgument, "audio source gives \(source.format) but the encoder is set for \(settings.format)")
        }
        self.pipeline = pipeline
        self.source = source
        self.sender = sender
        encoder = try OpusEncoder(settings: settings)
        destination = pipeline.configuration.audioDestination ?? pipeline.configuration.destination
        encryptor = pipeline.configuration.endToEndEncryption.map(SFrameFrameEncryptor.init(slot:))
        plain = .allocate(byteCount: encryptor == nil ? 0 : OpusEncoder.maximumPacketSize, alignment: 16)
    }

    deinit { plain.deallocate() }

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
        let headerSize = RTPHeader.fixedSize + PublisherTransport.extensionBytes
        let region = buffer.writableBytes
        let payload = UnsafeMutableRawBufferPointer(rebasing: region[headerSize..<(region.count - SRTPProfile.maxTrailer)])
        var length: Int
        do { length = try encoder.encode(frame, into: encryptor == nil ? payload : plain) } catch {
            pipeline.pool.release(buffer)
            throw error
        }
        if let encryptor {
            // Sealed into the packet after its RTP header; no clear bytes for Opus.
            guard let sealed = seal(UnsafeRawBufferPointer(rebasing: plain[0..<length]), with: encryptor, into: payload) else {
                pipeline.pool.release(buffer)
                return
            }
            length = sealed
        }
        pipeline.audioCounters.frames.add(1, ordering: .relaxed)
        let header = PublisherTransport.withTransportSequence(
            sender.nextHeader(timestamp: sender.rtpTimestamp(at: frame.timestampNanoseconds), marker: false))
        do { _ = try header.write(into: region) } catch {
            pipeline.pool.release(buffer)
            throw MediaError(.systemError, "RTP header: \(error)")
        }
        buffer.peer = destination
        let entry = OutgoingPacketQueue.Entry(buffer: buffer, kind: .audio, length: headerSize + length,
                                              payloadBytes: length)
        guard pipeline.outgoing.push(entry) else {
            pipeline.pool.release(buffer)
            pipeline.transportCounters.droppedPackets.add(1, ordering: .relaxed)
            return
        }
        pipeline.wakeTransport()
    }

    /// The sealed packet's length, nil when it must not be sent (no key yet, counted; or
    /// a failure, reported as 6001).
    private func seal(_ packet: UnsafeRawBufferPointer, with encryptor: SFrameFrameEncryptor,
                      into payload: UnsafeMutableRawBufferPointer) -> Int? {
        do { _ = try encryptor.refresh() } catch {
            pipeline.encryptionFailed(error)
            return nil
        }
        return pipeline.seal(packet, clearBytes: SFrameFrameLayout.opusClearBytes, with: encryptor, into: payload)
    }
}
