/// The subscriber's receive thread: datagrams in, decoded frames and RTCP out.
///
/// Per datagram: classify (RFC 7983/5761), SRTP unprotect in place, parse. Video packets
/// go into the jitter buffer (the packet buffer itself, no copy); complete frames are
/// reassembled (RFC 7741), decoded and handed to `onVideoFrame`. Audio packets go into
/// the audio jitter buffer for the playout thread. Sender reports are noted for the
/// receiver reports (LSR/DLSR) and lip sync. Timers send NACKs as holes age, PLIs when a
/// keyframe is needed, and receiver reports every interval. Every RTP packet's
/// transport-wide sequence number is recorded (`TransportFeedbackRecorder`) and answered
/// with transport-wide feedback about every 50 ms; probe packets (`RTPProbe`) are
/// recorded, then dropped.
///
/// Cost: no allocation per packet or frame in steady state (buffers are pooled and move
/// into the jitter buffers; scratch arrays are kept).
final class SubscriberReceiveHandler: PipelineHandler, @unchecked Sendable {
    private let pipeline: SubscriberPipeline
    private let configuration: SubscriberConfiguration
    private let srtp: SRTPSession?
    private let rtcp: RTCPSender
    private let ntp: NTPClock
    private let messages = UDPMessageBatch(capacity: 32)
    private var receiveBuffers: [PacketBuffer] = []

    private let videoJitter: VideoJitterBuffer
    private let videoPackets: HandleTable<PacketBuffer>
    private let depacketizer = VP8Depacketizer()
    private let decoder: VP8Decoder
    private let frameHandles: UnsafeMutableBufferPointer<Int>
    // 64 sequence numbers always fit in 64 NACK pairs: nothing collected is left unsent.
    private let nackScratch = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: 64)
    private let nackPairs = UnsafeMutableBufferPointer<NACKPair>.allocate(capacity: 64)

    private var videoSSRC: UInt32?
    private var audioSSRC: UInt32?
    private var videoStatistics: ReceiveStreamStatistics
    private var audioStatistics: ReceiveStreamStatistics
    private var videoReport = SenderReportNote()
    private var audioReport = SenderReportNote()
    private var feedbackDestination: SocketAddress?
    private var nextReport: UInt64 = 0
    private var nextFeedbackCheck: UInt64 = 0
    private var recorder = TransportFeedbackRecorder(configuration: .reordering)
    private let transportFeedback = UnsafeMutableRawBufferPointer.allocate(byteCount: 1200, alignment: 8)
    /// End-to-end decryption (nil without): one decryptor per track, the opened frame
    /// (video: grown to the largest frame seen; audio: one Opus packet), and when the last
    /// keyframe request went out while frames did not verify.
    private let videoDecryptor: SFrameFrameDecryptor?
    private let audioDecryptor: SFrameFrameDecryptor?
    private var openedVideo = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private let openedAudio: UnsafeMutableRawBufferPointer
    private var lastMismatchKeyframeRequest: UInt64 = 0
    /// When this subscriber's own key last changed (0: never), for `rekeyWindow`.
    private var keyChangedAt: UInt64 = 0
    /// While frames do not verify, a keyframe request at most this often (a subscriber
    /// with another secret must not make the publisher send keyframes for everyone).
    static let mismatchKeyframeRequestInterval: UInt64 = 2_000_000_000
    /// For this long after its own key changed, a subscriber whose frames do not verify asks
    /// every `rekeyKeyframeRequestInterval`: the publisher switches keys within moments of
    /// the others, and one request answered under the old key (or a keyframe lost) must not
    /// cost the whole 2 s mismatch interval.
    static let rekeyWindow: UInt64 = 3_000_000_000
    /// The keyframe request interval inside `rekeyWindow`.
    static let rekeyKeyframeRequestInterval: UInt64 = 250_000_000

    /// What the receiver keeps of a stream's latest sender report (RFC 3550 6.4.1 LSR/DLSR).
    struct SenderReportNote {
        var middle32: UInt32 = 0
        var receivedAt: UInt64 = 0
    }

    init(pipeline: SubscriberPipeline) throws(MediaError) {
        self.pipeline = pipeline
        ntp = NTPClock.system(monotonicNanoseconds: pipeline.clock.nanoseconds())
        configuration = pipeline.configuration
        do { srtp = try configuration.keys.map { k throws(SRTPError) in try SRTPSession(keys: k.receive, direction: .receiver) } } catch {
            throw MediaError(.invalidArgument, "SRTP receiver: \(error)")
        }
        rtcp = try RTCPSender(socket: pipeline.socket, pool: pipeline.pool, keys: configuration.keys?.send, cname: configuration.cname)
        videoJitter = VideoJitterBuffer(configuration: configuration.jitterBuffer)
        videoPackets = HandleTable(capacity: configuration.jitterBuffer.capacity)
        decoder = try VP8Decoder()
        frameHandles = .allocate(capacity: 1024)
        feedbackDestination = configuration.feedbackDestination
        videoStatistics = ReceiveStreamStatistics(clockRate: configuration.videoStream?.clockRate ?? 90_000)
        audioStatistics = ReceiveStreamStatistics(clockRate: configuration.audioStream?.clockRate ?? 48_000)
        if let stream = configuration.videoStream, stream.ssrc != 0 { videoSSRC = stream.ssrc }
        if let stream = configuration.audioStream, stream.ssrc != 0 { audioSSRC = stream.ssrc }
        for _ in 0..<32 { if let buffer = pipeline.pool.take() { receiveBuffers.append(buffer) } }
        let slot = configuration.endToEndEncryption
        videoDecryptor = slot.map { SFrameFrameDecryptor(slot: $0, monitor: pipeline.decryption, track: .video) }
        audioDecryptor = slot.map { SFrameFrameDecryptor(slot: $0, monitor: pipeline.decryption, track: .audio) }
        openedAudio = .allocate(byteCount: slot == nil ? 0 : 1600, alignment: 16)
        if slot != nil { openedVideo = .allocate(byteCount: 256 << 10, alignment: 16) }
    }

    deinit {
        frameHandles.deallocate()
        nackScratch.deallocate()
        nackPairs.deallocate()
        transportFeedback.deallocate()
        openedVideo.deallocate()
        openedAudio.deallocate()
    }

    func pipelineStarted(now: UInt64) {
        // The first report goes out at once, before any media: a router learns the
        // subscriber's address from it (an SFU sends nothing to a leg it has not heard from).
        nextReport = now
        nextFeedbackCheck = now
    }

    func pipelineStopped(now: UInt64) {
        let pool = pipeline.pool
        for buffer in receiveBuffers { pool.release(buffer) }
        receiveBuffers.removeAll()
        videoJitter.reset { handle in if let buffer = videoPackets.remove(handle) { pool.release(buffer) } }
        pipeline.audio.withLock { state in
            state.jitter.reset { handle in if let buffer = state.packets.remove(handle) { pool.release(buffer) } }
        }
    }

    // MARK: - Receive

    func socketReadable(_ index: Int, now: UInt64) {
        // A bounded number of batches per turn, so feedback timers still run under a
        // flood; the poll loop comes straight back if more is waiting.
        for _ in 0..<8 {
            guard let result = try? pipeline.socket.receive(into: receiveBuffers, batch: messages),
                  case .processed(let count) = result, count > 0 else { break }
            for slot in 0..<count {
                let buffer = receiveBuffers[slot]
                // A replacement first: a buffer the jitter buffer keeps leaves the batch.
                guard let fresh = pipeline.pool.take() else {
                    // Pool exhausted (a huge backlog): drop the packet, keep going.
                    _ = countBad()
                    buffer.reset()
                    continue
                }
                if handle(buffer, now: buffer.receiveTimestamp) {
                    receiveBuffers[slot] = fresh
                } else {
                    pipeline.pool.release(fresh)
                    buffer.reset()
                }
            }
        }
        drainVideo(now: now)
        sendFeedback(now: now)
        sendTransportFeedback(now: now)
    }

    /// Handles one datagram; true when a jitter buffer kept the buffer.
    private func handle(_ buffer: PacketBuffer, now: UInt64) -> Bool {
        let datagram = UnsafeRawBufferPointer(buffer.bytes)
        guard !buffer.isTruncated else { return countBad() }
        let kind = PacketClassifier.classify(datagram)
        // STUN (consent answers) and DTLS never reach SRTP (RFC 7983).
        if pipeline.edgeDatagrams.take(kind, datagram, consent: configuration.consent, now: now) { return false }
        switch kind {
        case .rtp: return receiveRTP(buffer, now: now)
        case .rtcp:
            receiveRTCP(buffer, now: now)
            return false
        default: return countBad()
        }
    }

    private func countBad() -> Bool {
        pipeline.videoCounters.badPackets.add(1, ordering: .relaxed)
        return false
    }

    private func receiveRTP(_ buffer: PacketBuffer, now: UInt64) -> Bool {
        if let srtp {
            do { buffer.setLength(try srtp.unprotect(buffer.writableBytes, length: buffer.length)) } catch {
                return countBad()
            }
        }
        guard let packet = try? RTPPacket(parsing: UnsafeRawBufferPointer(buffer.bytes)) else { return countBad() }
        if feedbackDestination == nil { feedbackDestination = buffer.peer }
        if packet.hasExtension, let elements = packet.extensions,
           let wire = TransportSequenceNumbers.read(from: elements, id: RTPExtensionID.transportWideSequence) {
            recorder.record(transportSequence: wire, arrivalNanoseconds: now)
            pipeline.transportCounters.recordedPackets.add(1, ordering: .relaxed)
        }
        if packet.ssrc == RTPProbe.ssrc && packet.payloadType == RTPProbe.payloadType {
            // A bandwidth probe: recorded for feedback above, never media.
            pipeline.transportCounters.probePackets.add(1, ordering: .relaxed)
            pipeline.transportCounters.probeBytes.add(UInt64(buffer.length), ordering: .relaxed)
            return false
        }
        if let stream = configuration.videoStream, packet.payloadType == stream.payloadType,
           videoSSRC == nil || videoSSRC == packet.ssrc {
            videoSSRC = packet.ssrc
            return receiveVideo(packet, buffer: buffer, now: now)
        }
        if let stream = configuration.audioStream, packet.payloadType == stream.payloadType,
           audioSSRC == nil || audioSSRC == packet.ssrc {
            audioSSRC = packet.ssrc
            return receiveAudio(packet, buffer: buffer, now: now)
        }
        return countBad()
    }

    private func receiveVideo(_ packet: RTPPacket, buffer: PacketBuffer, now: UInt64) -> Bool {
        let counters = pipeline.videoCounters
        counters.packets.add(1, ordering: .relaxed)
        counters.bytes.add(UInt64(buffer.length), ordering: .relaxed)
        videoStatistics.record(sequence: packet.sequenceNumber, rtpTimestamp: packet.timestamp, bytes: buffer.length,
                               arrivalNanoseconds: now)
        guard let (descriptor, length) = try? VP8PayloadDescriptor.parse(packet.payload) else { return countBad() }
        let startsFrame = descriptor.startsFrame
        // RFC 7741 4.3: the P bit of the first VP8 payload byte is 0 on keyframes.
        let isKeyframe = startsFrame && packet.payload.count > length && packet.payload[length] & 0x01 == 0
        let info = JitterPacketInfo(sequence: packet.sequenceNumber, timestamp: packet.timestamp, isFrameEnd: packet.marker,
                                    isFrameStart: startsFrame, isKeyframe: isKeyframe, arrivalNanoseconds: now,
                                    temporalLayer: descriptor.temporalLayer, layerSync: descriptor.layerSync,
                                    tl0PicIdx: descriptor.tl0PicIdx, isNonReference: descriptor.nonReference)
        guard let handle = videoPackets.insert(buffer) else { return false }
        let pool = pipeline.pool
        let result = videoJitter.insert(info, handle: handle) { dropped in
            if let old = videoPackets.remove(dropped) { pool.release(old) }
        }
        switch result {
        case .stored, .restarted: return true
        case .duplicate, .tooLate:
            _ = videoPackets.remove(handle)
            return false
        }
    }

    private func receiveAudio(_ packet: RTPPacket, buffer: PacketBuffer, now: UInt64) -> Bool {
        let counters = pipeline.audioCounters
        counters.packets.add(1, ordering: .relaxed)
        counters.bytes.add(UInt64(buffer.length), ordering: .relaxed)
        audioStatistics.record(sequence: packet.sequenceNumber, rtpTimestamp: packet.timestamp, bytes: buffer.length,
                               arrivalNanoseconds: now)
        if let audioDecryptor {
            guard let opened = open(packet, buffer: buffer, with: audioDecryptor) else { return false }
            guard (try? OpusPayload(parsing: opened)) != nil else { return countBad() }
        } else {
            guard (try? OpusPayload(parsing: packet.payload)) != nil else { return countBad() }
        }
        let sequence = packet.sequenceNumber
        let pool = pipeline.pool
        return pipeline.audio.withLock { state -> Bool in
            guard let handle = state.packets.insert(buffer) else { return false }
            let result = state.jitter.insert(sequence: sequence, handle: handle, now: now) { dropped in
                if let old = state.packets.remove(dropped) { pool.release(old) }
            }
            if result == .refused { _ = state.packets.remove(handle) }
            return result == .stored
        }
    }

    /// Opens an end-to-end encrypted Opus packet in place: the plaintext replaces the
    /// payload in the packet buffer (padding dropped, P bit cleared) so the playout thread
    /// and FEC read it as usual. Nil when the packet did not verify (dropped).
    private func open(_ packet: RTPPacket, buffer: PacketBuffer, with decryptor: SFrameFrameDecryptor) -> UnsafeRawBufferPointer? {
        let payload = packet.payload
        guard let start = payload.baseAddress, let base = UnsafeRawBufferPointer(buffer.bytes).baseAddress else { return nil }
        guard case .decrypted(let length) = decryptor.decrypt(payload, clearBytes: SFrameFrameLayout.opusClearBytes,
                                                              into: openedAudio) else { return nil }
        let offset = start - base
        let region = buffer.writableBytes
        guard offset + length <= region.count else { return nil }
        (region.baseAddress! + offset).copyMemory(from: openedAudio.baseAddress!, byteCount: length)
        region[0] &= ~0x20  // no padding any more
        buffer.setLength(offset + length)
        return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(region)[offset..<(offset + length)])
    }

    private func receiveRTCP(_ buffer: PacketBuffer, now: UInt64) {
        var length = buffer.length
        if let srtp {
            do { length = try srtp.unprotectRTCP(buffer.writableBytes, length: length) } catch {
                _ = countBad()
                return
            }
        }
        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer.writableBytes)[0..<length])
        guard let compound = try? RTCPCompoundPacket(validating: bytes) else {
            _ = countBad()
            return
        }
        var packets = compound.makeIterator()
        defer {
            // A known packet type that did not parse inside a valid compound is bad input too.
            pipeline.videoCounters.badPackets.add(UInt64(packets.malformedCount), ordering: .relaxed)
        }
        while let packet = packets.next() {
            guard case .senderReport(let report) = packet else { continue }
            let note = SenderReportNote(middle32: report.ntpTimestamp.middle32, receivedAt: now)
            // The sender's NTP clock needs no particular epoch: only the difference between
            // its audio and video reports matters.
            if report.ssrc == videoSSRC {
                videoReport = note
                let mapping = SenderClockMapping(ntp: report.ntpTimestamp.rawValue, rtpTimestamp: report.rtpTimestamp,
                                                 clockRate: videoStatistics.clockRate)
                pipeline.lipSync.withLock { $0.updateVideo(mapping) }
            }
            if report.ssrc == audioSSRC {
                audioReport = note
                let mapping = SenderClockMapping(ntp: report.ntpTimestamp.rawValue, rtpTimestamp: report.rtpTimestamp,
                                                 clockRate: audioStatistics.clockRate)
                pipeline.lipSync.withLock { $0.updateAudio(mapping) }
            }
        }
    }

    // MARK: - Video frames

    private func drainVideo(now: UInt64) {
        let pool = pipeline.pool
        while let frame = videoJitter.nextFrame(now: now, handles: frameHandles, discard: { handle in
            if let buffer = videoPackets.remove(handle) { pool.release(buffer) }
        }) {
            decode(frame, now: now)
        }
    }

    private func decode(_ frame: VideoJitterBuffer.FrameInfo, now: UInt64) {
        let pool = pipeline.pool
        var decodeFailed = false
        var failedToVerify = false
        for index in 0..<frame.packetCount {
            guard let buffer = videoPackets.remove(frameHandles[index]) else { continue }
            defer { pool.release(buffer) }
            guard let packet = try? RTPPacket(parsing: UnsafeRawBufferPointer(buffer.bytes)) else { continue }
            depacketizer.push(packet) { event in
                if case .incompleteFrame = event {
                    // The depacketizer refused a frame the jitter buffer thought complete
                    // (a malformed VP8 header): the decoder's references are gone.
                    decodeFailed = true
                    return
                }
                guard case .frame(let assembled) = event else { return }
                var data = assembled.data
                if let videoDecryptor {
                    // Never decoded unless it verifies; a frame lost this way takes the
                    // decoder's references with it.
                    guard let opened = open(data, with: videoDecryptor, lost: &failedToVerify) else { return }
                    data = opened
                }
                do {
                    guard let picture = try decoder.decode(data) else { return }
                    let counters = pipeline.videoCounters
                    counters.frames.add(1, ordering: .relaxed)
                    if assembled.isKeyframe { counters.keyframes.add(1, ordering: .relaxed) }
                    let presentAt = pipeline.lipSync.withLock { $0.renderTime(ofVideo: assembled.rtpTimestamp) }
                    let info = DecodedVideoFrameInfo(rtpTimestamp: assembled.rtpTimestamp, isKeyframe: assembled.isKeyframe,
                                                     pictureID: assembled.pictureID,
                                                     firstPacketArrivalNanoseconds: frame.firstArrivalNanoseconds,
                                                     lastPacketArrivalNanoseconds: frame.lastArrivalNanoseconds,
                                                     decodedAtNanoseconds: pipeline.clock.nanoseconds(),
                                                     presentAtNanoseconds: presentAt)
                    pipeline.onVideoFrame?(picture, info)
                } catch let error as MediaError {
                    decodeFailed = true
                    pipeline.record(error)
                } catch {
                    decodeFailed = true
                }
            }
        }
        // A frame libvpx refused leaves the decoder without its reference: the jitter buffer
        // then waits for a keyframe and asks for one.
        if decodeFailed {
            pipeline.videoCounters.badPackets.add(1, ordering: .relaxed)
            videoJitter.decoderLostReference()
        } else if failedToVerify {
            videoJitter.decoderLostReference()
        }
    }

    /// Opens an end-to-end encrypted VP8 frame into `openedVideo`; nil when it did not
    /// verify (`lost` set unless it was a quiet replay drop).
    private func open(_ frame: UnsafeRawBufferPointer, with decryptor: SFrameFrameDecryptor, lost: inout Bool) -> UnsafeRawBufferPointer? {
        if openedVideo.count < frame.count {  // a frame larger than any before: grow once (doubling)
            openedVideo.deallocate()
            openedVideo = .allocate(byteCount: max(frame.count, openedVideo.count * 2), alignment: 16)
        }
        switch decryptor.decrypt(frame, clearBytes: SFrameFrameLayout.vp8ClearBytes(frame), into: openedVideo) {
        case .decrypted(let length):
            return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(openedVideo)[0..<length])
        case .dropped(let error):
            if error.openTokCode != nil { lost = true }
            return nil
        }
    }

    // MARK: - Feedback

    func runTimers(now: UInt64) -> UInt64? {
        drainVideo(now: now)
        sendFeedback(now: now)
        sendTransportFeedback(now: now)
        if now >= nextReport {
            sendReceiverReport(now: now)
            nextReport = now + configuration.receiverReportIntervalNanoseconds
        }
        // Holes age and keyframe requests come due only while video is buffered or
        // awaited: poll every 5 ms then, otherwise sleep until the next report.
        let videoPending = videoSSRC != nil && (videoJitter.bufferedPacketCount > 0 || videoJitter.isWaitingForKeyframe)
        let consentCheck = configuration.consent?.nextCheck(now: now, socket: pipeline.socket) ?? UInt64.max
        let next = min(videoPending ? min(nextReport, now + 5_000_000) : nextReport, consentCheck)
        guard recorder.hasUnreported, let feedback = recorder.nextFeedbackTime(now: now) else { return next }
        return min(next, feedback)
    }

    /// Transport-wide feedback (RR + TWCC) when one is due (about every 50 ms while
    /// packets arrive). Cost: one build over the packets since the last one, one send.
    private func sendTransportFeedback(now: UInt64) {
        guard recorder.isDue(now: now), let destination = feedbackDestination else { return }
        let sender = configuration.ssrc
        let size = recorder.buildFeedback(senderSSRC: sender, mediaSSRC: videoSSRC ?? audioSSRC ?? 0, now: now,
                                          into: transportFeedback)
        guard size > 0 else { return }
        let packet = PrebuiltRTCPPacket(bytes: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(transportFeedback)[0..<size]))
        let sent = rtcp.send(to: destination) { writer throws(RTCPError) in
            try writer.append(ReceiverReport(ssrc: sender))
            try writer.append(SourceDescription(ssrc: sender, cname: rtcp.cname))
            try writer.append(packet)
        }
        if sent { pipeline.transportCounters.feedbackPackets.add(1, ordering: .relaxed) }
    }

    /// NACKs for aged holes and a PLI when the decoder needs a keyframe, at most every 5 ms.
    private func sendFeedback(now: UInt64) {
        guard now >= nextFeedbackCheck, let destination = feedbackDestination, let ssrc = videoSSRC else { return }
        nextFeedbackCheck = now + 5_000_000
        let count = videoJitter.collectNACKs(now: now, into: nackScratch)
        var wantsKeyframe = videoJitter.keyframeRequestDue(now: now)
        if wantsKeyframe, let videoDecryptor, videoDecryptor.isFailing {
            // Frames do not verify: ask rarely, except at once after our own key changed and
            // often for a short while after it (the publisher is switching too).
            let changed = videoDecryptor.takeKeyChanged()
            if changed { keyChangedAt = now }
            let rekeying = keyChangedAt != 0 && now &- keyChangedAt < Self.rekeyWindow
            let interval = rekeying ? Self.rekeyKeyframeRequestInterval : Self.mismatchKeyframeRequestInterval
            if changed || now &- lastMismatchKeyframeRequest >= interval {
                lastMismatchKeyframeRequest = now
            } else {
                wantsKeyframe = false
            }
        }
        guard count > 0 || wantsKeyframe else { return }
        let built = NACKPair.build(lost: UnsafeBufferPointer(rebasing: nackScratch[0..<count]), into: nackPairs)
        let nacked = built.consumed
        let pairs = RTCPList(UnsafeBufferPointer(rebasing: nackPairs[0..<built.pairs]))
        let sender = configuration.ssrc
        let sent = rtcp.send(to: destination) { writer throws(RTCPError) in
            try writer.append(ReceiverReport(ssrc: sender))
            try writer.append(SourceDescription(ssrc: sender, cname: rtcp.cname))
            if nacked > 0 { try writer.append(GenericNACK(senderSSRC: sender, mediaSSRC: ssrc, pairs: pairs)) }
            if wantsKeyframe { try writer.append(PictureLossIndication(senderSSRC: sender, mediaSSRC: ssrc)) }
        }
        if sent {
            pipeline.videoCounters.nacks.add(UInt64(nacked), ordering: .relaxed)
            if wantsKeyframe { pipeline.videoCounters.keyframeRequests.add(1, ordering: .relaxed) }
        }
    }

    /// RR + SDES with one report block per stream received (RFC 3550 6.4.2); before any
    /// media arrived, an RR without blocks (allowed by RFC 3550 6.4.2, RC = 0), so the
    /// sender hears from this receiver from the start.
    private func sendReceiverReport(now: UInt64) {
        guard let destination = feedbackDestination else { return }
        var blocks = (ReportBlock(ssrc: 0), ReportBlock(ssrc: 0))
        var count = 0
        if let ssrc = videoSSRC {
            let block = reportBlock(ssrc: ssrc, statistics: &videoStatistics, note: videoReport, now: now)
            publish(videoStatistics, to: pipeline.videoCounters)
            blocks.0 = block
            count = 1
        }
        if let ssrc = audioSSRC {
            let block = reportBlock(ssrc: ssrc, statistics: &audioStatistics, note: audioReport, now: now)
            publish(audioStatistics, to: pipeline.audioCounters)
            if count == 0 { blocks.0 = block } else { blocks.1 = block }
            count += 1
        }
        let sender = configuration.ssrc
        withUnsafeBytes(of: &blocks) { raw in
            let list = RTCPList(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: ReportBlock.self), count: count))
            _ = rtcp.send(to: destination) { writer throws(RTCPError) in
                try writer.append(ReceiverReport(ssrc: sender, reportBlocks: list))
                try writer.append(SourceDescription(ssrc: sender, cname: rtcp.cname))
            }
        }
    }

    private func reportBlock(ssrc: UInt32, statistics: inout ReceiveStreamStatistics, note: SenderReportNote,
                             now: UInt64) -> ReportBlock {
        let delay = note.receivedAt == 0 ? 0 : RTCPRoundTrip.compact(fromNanoseconds: now - note.receivedAt)
        return ReportBlock(ssrc: ssrc, fractionLost: statistics.takeFractionLost(),
                           cumulativeLost: Int32(clamping: statistics.cumulativeLost),
                           extendedHighestSequence: UInt32(truncatingIfNeeded: statistics.extendedHighestSequence),
                           jitter: UInt32(clamping: Int(statistics.jitter)), lastSenderReport: note.middle32,
                           delaySinceLastSenderReport: note.middle32 == 0 ? 0 : delay)
    }

    private func publish(_ statistics: ReceiveStreamStatistics, to counters: StreamCounters) {
        counters.packetsLost.store(statistics.cumulativeLost, ordering: .relaxed)
        counters.jitter.store(statistics.jitterNanoseconds, ordering: .relaxed)
    }
}
