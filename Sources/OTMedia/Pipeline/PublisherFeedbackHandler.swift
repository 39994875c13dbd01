/// The publisher's feedback thread: reads RTCP from the receiver on the media socket
/// (RFC 5761 mux) and acts on it — NACK → resend from the retransmission store, PLI/FIR →
/// keyframe, receiver report → loss, jitter and RTT — and sends sender reports + SDES
/// every `senderReportInterval`. It is also the transport thread: `PublisherTransport`
/// paces, numbers, protects and sends every RTP packet, and turns transport-wide feedback
/// into the bandwidth estimate.
///
/// Cost per datagram: one SRTCP unprotect and a parse over the bytes; per NACKed packet
/// one copy and one send; no allocation in steady state.
final class PublisherFeedbackHandler: PipelineHandler, @unchecked Sendable {
    private let pipeline: PublisherPipeline
    private let srtp: SRTPSession?
    private let rtcp: RTCPSender
    private let ntp: NTPClock
    private var receiveBuffers: [PacketBuffer] = []
    private var resend: [PacketBuffer] = []
    private let messages = UDPMessageBatch(capacity: 16)
    private let resendMessages = UDPMessageBatch(capacity: PublisherFeedbackHandler.resendCapacity)
    private var nextReport: UInt64 = 0
    /// Touched only through `access` (the video capture thread's direct sends use it
    /// between this thread's turns).
    private let transport: PublisherTransport
    /// The lock this thread shares with the video capture thread's direct sends: taken for
    /// state, never across this thread's sends (resends, reports and batches go out after).
    let access: PublisherTransportAccess
    /// Relayed: the destinations and RTCP senders of this report round, copied under the
    /// lock and sent to after it (room for `relayedDestinationLimit`, made once).
    private var reportDestinations: [(SocketAddress, RTCPSender?)] = []

    init(pipeline: PublisherPipeline) throws(MediaError) {
        self.pipeline = pipeline
        ntp = NTPClock.system(monotonicNanoseconds: pipeline.clock.nanoseconds())
        let keys = pipeline.configuration.streamKeys
        do { srtp = try keys.map { k throws(SRTPError) in try SRTPSession(keys: k.receive, direction: .receiver) } } catch {
            throw MediaError(.invalidArgument, "SRTCP receiver: \(error)")
        }
        rtcp = try RTCPSender(socket: pipeline.socket, pool: pipeline.pool, keys: keys?.send, cname: pipeline.configuration.cname)
        for _ in 0..<16 { if let buffer = pipeline.pool.take() { receiveBuffers.append(buffer) } }
        resend.reserveCapacity(Self.resendCapacity)
        transport = try PublisherTransport(pipeline: pipeline, now: pipeline.clock.nanoseconds())
        access = PublisherTransportAccess(transport: transport, pipeline: pipeline)
        reportDestinations.reserveCapacity(max(1, pipeline.configuration.relayedDestinationLimit))
    }

    func pipelineStarted(now: UInt64) { nextReport = now + 200_000_000 }

    func wokenUp(now: UInt64) { _ = access.turn(now: now) }

    func pipelineStopped(now: UInt64) {
        access.locked { $0.releaseQueued() }
        for buffer in receiveBuffers { pipeline.pool.release(buffer) }
        receiveBuffers.removeAll()
    }

    func socketReadable(_ index: Int, now: UInt64) {
        // A bounded number of batches per turn, so timers (sender reports) still run
        // under a flood; the poll loop comes straight back if more is waiting.
        for _ in 0..<8 {
            guard let result = try? pipeline.socket.receive(into: receiveBuffers, batch: messages),
                  case .processed(let count) = result, count > 0 else { return }
            // State under the lock; the resends it could not queue and what the pacer
            // lets out go after it.
            access.locked { _ in for index in 0..<count { handle(receiveBuffers[index], now: now) } }
            flushResends()
            _ = access.turn(now: now)
        }
    }

    func runTimers(now: UInt64) -> UInt64? {
        if now >= nextReport {
            sendReports(now: now)
            nextReport = now + pipeline.configuration.senderReportIntervalNanoseconds
        }
        let consentCheck = pipeline.configuration.consent?.nextCheck(now: now, socket: pipeline.socket) ?? UInt64.max
        guard let send = access.turn(now: now) else { return min(nextReport, consentCheck) }
        return min(send, nextReport, consentCheck)
    }

    private func handle(_ buffer: PacketBuffer, now: UInt64) {
        let kind = PacketClassifier.classify(UnsafeRawBufferPointer(buffer.bytes))
        // STUN (consent answers) and DTLS never reach SRTCP (RFC 7983).
        if !buffer.isTruncated,
           pipeline.edgeDatagrams.take(kind, UnsafeRawBufferPointer(buffer.bytes), consent: pipeline.configuration.consent, now: now) {
            return
        }
        guard !buffer.isTruncated, kind == .rtcp else {
            pipeline.videoCounters.badPackets.add(1, ordering: .relaxed)
            return
        }
        var length = buffer.length
        // Where its answers (resends) go and whose feedback it is: the datagram's source,
        // except a relayed receiver's new address still in probation.
        var source = buffer.peer
        if transport.keysPerReceiver {
            // Relayed, keys per receiver: the sender's own keys (or none) must pass it.
            guard let authenticated = transport.authenticateRTCP(buffer, length: length, from: buffer.peer, now: now) else {
                pipeline.videoCounters.badPackets.add(1, ordering: .relaxed)
                return
            }
            length = authenticated.length
            source = authenticated.answerAt
        } else if let srtp {
            do { length = try srtp.unprotectRTCP(buffer.writableBytes, length: length) } catch {
                pipeline.videoCounters.badPackets.add(1, ordering: .relaxed)
                return
            }
        }
        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer.writableBytes)[0..<length])
        guard let compound = try? RTCPCompoundPacket(validating: bytes) else {
            pipeline.videoCounters.badPackets.add(1, ordering: .relaxed)
            return
        }
        // Authenticated (or, without keys, well-formed) RTCP: a relayed destination.
        transport.learn(source, now: now)
        var packets = compound.makeIterator()
        defer {
            // A known packet type that did not parse inside a valid compound is bad input too.
            pipeline.videoCounters.badPackets.add(UInt64(packets.malformedCount), ordering: .relaxed)
        }
        while let packet = packets.next() {
            switch packet {
            case .genericNACK(let nack):
                // Each video encoding (simulcast SSRC) keeps its own packets.
                if let store = pipeline.retransmissionStore(ssrc: nack.mediaSSRC) {
                    answer(nack, from: store, to: pipeline.configuration.relayedFanOut ? source : nil, now: now)
                }
            case .pictureLossIndication(let pli):
                keyframeRequested(ssrc: pli.mediaSSRC, now: now)
            case .fullIntraRequest(let fir):
                for entry in fir.entries { keyframeRequested(ssrc: entry.ssrc, now: now) }
            case .transportWideFeedback(let feedback):
                transport.onTransportFeedback(feedback, from: source, now: now)
            case .receiverReport(let report):
                for block in report.reportBlocks { take(block, from: source, now: now) }
            case .senderReport(let report):
                for block in report.reportBlocks { take(block, from: source, now: now) }
            default:
                continue
            }
        }
    }

    /// PLI/FIR for `ssrc`: that encoding's next frame is a keyframe, and under congestion
    /// the frames queued before it are dropped (`PublisherTransport.keyframeRequested`).
    private func keyframeRequested(ssrc: UInt32, now: UInt64) {
        guard pipeline.requestKeyframe(ssrc: ssrc), let encoding = pipeline.videoEncodingIndex(ssrc: ssrc) else { return }
        pipeline.videoCounters.keyframeRequests.add(1, ordering: .relaxed)
        transport.keyframeRequested(encoding: encoding, now: now)
    }

    /// Resends what a NACK asks for through the pacer's retransmission queue (ahead of new
    /// video, within the pacing rate: an unpaced burst of resends into a link that just lost
    /// packets to a full queue loses them again and more). Sent directly (after the lock,
    /// `flushResends`) only when the pacer's table is full, at most `resendCapacity` per
    /// datagram; the rest are skipped (counted) and asked for again.
    private func answer(_ nack: GenericNACK, from store: RetransmissionStore, to source: SocketAddress?, now: UInt64) {
        let destination = source ?? pipeline.configuration.destination
        for sequence in nack.lostSequenceNumbers {
            pipeline.videoCounters.nacks.add(1, ordering: .relaxed)
            guard let buffer = pipeline.pool.take() else { break }
            if store.copy(sequence: sequence, now: now, into: buffer), transport.protectResend(buffer, for: source) {
                buffer.peer = destination
                if !transport.enqueueRetransmission(buffer, now: now) {
                    if resend.count < Self.resendCapacity {
                        resend.append(buffer)
                    } else {
                        pipeline.pool.release(buffer)
                        pipeline.transportCounters.retransmissionsSkipped.add(1, ordering: .relaxed)
                    }
                }
            } else {
                pipeline.pool.release(buffer)
            }
        }
    }

    /// Direct resends (pacer table full) one receive batch may leave for after the lock.
    static let resendCapacity = 64

    private func flushResends() {
        guard !resend.isEmpty else { return }
        let sent = (try? pipeline.socket.send(resend, batch: resendMessages).count) ?? 0
        var bytes: UInt64 = 0
        for buffer in resend.prefix(sent) { bytes += UInt64(buffer.length) }
        pipeline.videoCounters.retransmissions.add(UInt64(sent), ordering: .relaxed)
        pipeline.videoCounters.packets.add(UInt64(sent), ordering: .relaxed)
        pipeline.videoCounters.bytes.add(bytes, ordering: .relaxed)
        for buffer in resend { pipeline.pool.release(buffer) }
        resend.removeAll(keepingCapacity: true)
    }

    /// A report block about one of our streams: loss, jitter, and RTT (RFC 3550 6.4.1).
    private func take(_ block: ReportBlock, from source: SocketAddress?, now: UInt64) {
        let counters: StreamCounters
        let clockRate: Int
        if let video = pipeline.videoSender, block.ssrc == video.parameters.ssrc {
            counters = pipeline.videoCounters
            clockRate = video.parameters.clockRate
        } else if let audio = pipeline.audioSender, block.ssrc == audio.parameters.ssrc {
            counters = pipeline.audioCounters
            clockRate = audio.parameters.clockRate
        } else {
            return
        }
        counters.packetsLost.store(Int64(block.cumulativeLost), ordering: .relaxed)
        counters.jitter.store(UInt64(block.jitter) * 1_000_000_000 / UInt64(clockRate), ordering: .relaxed)
        let rtt = RTCPRoundTrip.nanoseconds(arrival: ntp.timestamp(atMonotonic: now), lastSenderReport: block.lastSenderReport,
                                            delaySinceLastSenderReport: block.delaySinceLastSenderReport)
        if let rtt { counters.roundTrip.store(rtt, ordering: .relaxed) }
        // One loss figure per report: video's, or audio's when there is no video.
        if counters === pipeline.videoCounters || pipeline.videoSender == nil {
            transport.onReceiverReport(fractionLost: block.fractionLost, roundTripNanoseconds: rtt, from: source, now: now)
        }
    }

    /// One SR + SDES compound per stream that has sent something.
    private func sendReports(now: UInt64) {
        let configuration = pipeline.configuration
        if configuration.relayedFanOut {
            // The destinations under the lock (the transport's legs), the sends after it.
            access.locked { transport in
                transport.forEachRelayedDestination { destination, sender in reportDestinations.append((destination, sender)) }
            }
            for index in 0..<reportDestinations.count {
                let (destination, sender) = reportDestinations[index]
                if let video = pipeline.videoSender { sendReport(for: video, to: destination, through: sender ?? rtcp, now: now) }
                if let audio = pipeline.audioSender { sendReport(for: audio, to: destination, through: sender ?? rtcp, now: now) }
            }
            reportDestinations.removeAll(keepingCapacity: true)
            return
        }
        if let video = pipeline.videoSender { sendReport(for: video, to: configuration.destination, now: now) }
        for simulcast in pipeline.simulcastSenders { sendReport(for: simulcast, to: configuration.destination, now: now) }
        if let audio = pipeline.audioSender {
            sendReport(for: audio, to: configuration.audioDestination ?? configuration.destination, now: now)
        }
    }

    /// One SR + SDES for `sender`'s stream to `destination`, protected by `rtcpSender`
    /// (a relayed receiver's own, or the pipeline's).
    private func sendReport(for sender: RTPStreamSender, to destination: SocketAddress, through rtcpSender: RTCPSender? = nil,
                            now: UInt64) {
        let rtcp = rtcpSender ?? self.rtcp
        guard sender.hasSent else { return }
        let counts = sender.senderReportCounts()
        let report = SenderReport(ssrc: sender.parameters.ssrc, ntpTimestamp: ntp.timestamp(atMonotonic: now),
                                  rtpTimestamp: sender.rtpTimestamp(at: now), packetCount: counts.packets,
                                  octetCount: counts.octets)
        rtcp.send(to: destination) { writer throws(RTCPError) in
            try writer.append(report)
            try writer.append(SourceDescription(ssrc: sender.parameters.ssrc, cname: rtcp.cname))
        }
    }
}
