import Glibc
import OTMedia
import OTRecording

/// The forwarding thread of one published stream: its publisher leg's socket (index 0)
/// and its subscriber legs' sockets (index 1...), polled by one `PipelineThread`.
///
/// Publisher datagrams: classify (RFC 7983/5761), SRTP/SRTCP unprotect in place, learn
/// the address. RTP of an assigned SSRC is copied into each subscriber leg's pooled
/// buffer, its SSRC and sequence number rewritten for that leg, protected with the leg's
/// keys and queued; each leg's queue goes out with one `sendmmsg` per receive batch (or
/// per 64 packets). Force-muted audio is dropped and counted before any copy. Sender
/// reports are re-sent to every leg under the leg's SSRCs (lip sync downstream).
///
/// Subscriber datagrams (RTCP only): unprotect, learn the address (`LegAddressGuard`),
/// then NACK → resend from the leg's history (the exact bytes sent, so SRTP never
/// protects an index twice) once per round trip and within the leg's budget
/// (`LegResendGuard`),
/// PLI/FIR → a PLI to the publisher (at most one per `keyframeInterval`), RR → loss and
/// jitter for the counters.
///
/// Timers: an RR + SDES to the publisher every second; pending keyframe requests.
/// Cost per forwarded packet: one copy, one SRTP protect, a share of one `sendmmsg`; per
/// received packet one unprotect. No allocation and no lock in steady state (pools, kept
/// arrays, relaxed atomics). Its state is its thread's alone, so its fields opt out of
/// Swift's dynamic exclusivity checks (`@exclusivity(unchecked)`), as the legs' do.
final class ForwardingHandler: PipelineHandler, @unchecked Sendable {
    /// Packets per `sendmmsg` and per receive batch.
    static let sendBatch = 64
    static let receiveBatch = 32
    /// The fewest nanoseconds between two PLIs to the publisher.
    static let keyframeInterval: UInt64 = 300_000_000
    /// Between two receiver reports to the publisher.
    static let reportInterval: UInt64 = 1_000_000_000
    /// Between two transport-wide feedbacks to the publisher (the agreed 50–100 ms).
    static let feedbackInterval: UInt64 = 50_000_000
    /// Between two rounds of the legs' layer and audio-fallback decisions.
    static let adaptationInterval: UInt64 = 100_000_000

    let group: ForwardingGroup
    let publisher: PublisherLeg
    /// The legs forwarded to, in socket order (index 1...); replaced at a wake-up when the
    /// group's membership changed (`LegTable`).
    @exclusivity(unchecked) private(set) var subscribers: [SubscriberLeg]
    /// The subscriber legs with a socket of their own, in socket order after the
    /// publisher's (edge legs are not polled: their packets come through the inbox).
    @exclusivity(unchecked) private var polled: [SubscriberLeg] = []
    /// Whether socket index 0 is the publisher's (false for an edge publisher).
    private let publisherPolled: Bool
    /// The inbox's packets and tags while the thread handles them (swapped, not copied).
    @exclusivity(unchecked) private var inboxBuffers: [PacketBuffer] = []
    @exclusivity(unchecked) private var inboxTags: [UInt32] = []
    let counters: GroupCounters
    private let receivePool = PacketBufferPool(initialCount: ForwardingHandler.receiveBatch, bufferSize: 2048, headroom: 0)
    @exclusivity(unchecked) private var receiveBuffers: [PacketBuffer] = []
    private let receiveMessages = UDPMessageBatch(capacity: ForwardingHandler.receiveBatch)
    let sendMessages = UDPMessageBatch(capacity: ForwardingHandler.sendBatch)
    /// The most packets one fan-out send gathers from the legs that share a socket.
    static let fanOutCapacity = 512
    /// Scratch for the fan-out send: several legs' queues, one after the other.
    @exclusivity(unchecked) private var fanOut: [PacketBuffer] = []
    private let fanOutMessages = UDPMessageBatch(capacity: ForwardingHandler.fanOutCapacity)
    @exclusivity(unchecked) private var single: [PacketBuffer] = []
    /// Packets queued on the legs since the last `flushAll` (forwarded media only).
    @exclusivity(unchecked) private var queuedSinceFlush = 0
    /// Packets each leg queues at most before a fan-out send (fewer when `fanOutCapacity`
    /// is reached first): what bounds a leg's send buffers (`SubscriberLeg.poolInitialCount`)
    /// when a keyframe's packets arrive in one burst.
    static let legQueueTarget = 8
    @exclusivity(unchecked) private var ntp = NTPClock.system()
    @exclusivity(unchecked) var nextReport: UInt64 = 0
    @exclusivity(unchecked) var nextFeedback: UInt64 = 0
    @exclusivity(unchecked) var nextAdaptation: UInt64 = 0
    @exclusivity(unchecked) var nextProbe: UInt64 = 0
    /// Where a transport-wide feedback to the publisher is built (1200 bytes, once).
    let feedbackScratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1200, alignment: 4)
    /// Where the NACKs to the publisher are gathered (allocated once).
    let upstreamNACKScratch = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: 64)
    let upstreamNACKPairs = UnsafeMutableBufferPointer<NACKPair>.allocate(capacity: 64)
    /// What each layer of the stream costs, measured here.
    @exclusivity(unchecked) var meter = LayerMeter()
    /// The archive recorder fed from this thread (`RecorderSlot`), and the slot's
    /// generation it was taken at.
    @exclusivity(unchecked) var recorder: (any RecordingSink)?
    @exclusivity(unchecked) private var recorderSeen: UInt64 = 0

    init(group: ForwardingGroup, subscribers: [SubscriberLeg]) {
        self.group = group
        publisher = group.publisher
        counters = group.counters
        self.subscribers = subscribers
        publisherPolled = group.publisher.ownsSocket
        polled = subscribers.filter(\.ownsSocket)
        inboxBuffers.reserveCapacity(256)
        inboxTags.reserveCapacity(256)
        fanOut.reserveCapacity(Self.fanOutCapacity)
        for _ in 0..<Self.receiveBatch { if let buffer = receivePool.take() { receiveBuffers.append(buffer) } }
        single.reserveCapacity(1)
    }

    deinit {
        feedbackScratch.deallocate()
        upstreamNACKScratch.deallocate()
        upstreamNACKPairs.deallocate()
    }

    func pipelineStarted(now: UInt64) {
        ntp = NTPClock.system(monotonicNanoseconds: now)
        nextReport = now + Self.reportInterval / 4
        nextFeedback = now + Self.feedbackInterval
        nextAdaptation = now + Self.adaptationInterval
        nextProbe = now + Self.adaptationInterval
        group.forwardingThreadStarted()
    }

    /// Takes the group's membership change, if one was posted: closes the legs that left
    /// (their buffers back to their pools, their sockets) and returns the new socket list.
    /// Called on the thread after each wake-up; a short lock, never per packet.
    func updatedSockets() -> [UDPSocket]? {
        var (next, leaving) = group.legTable.take()
        group.reaper.expect(leaving.count)  // counted before their sockets close
        for leg in leaving { group.close(leg) }
        guard let list = next else {
            group.reaper.release(&leaving)
            return nil
        }
        next = nil
        subscribers = list
        group.reaper.release(&leaving)  // freeing SRTP sessions is slow: not on this thread
        polled = list.filter(\.ownsSocket)
        takeEdgeChanges()  // a new edge leg's keys may have come before the list did
        var sockets: [UDPSocket] = publisherPolled ? [publisher.socket] : []
        sockets.reserveCapacity(polled.count + 1)
        for leg in polled { sockets.append(leg.socket) }
        return sockets
    }

    // MARK: - Edge legs

    /// Rounds of inbox packets one wake-up handles before the thread looks at its sockets
    /// and timers (it wakes itself to come back).
    static let inboxRounds = 64

    /// Keys, addresses and packets the edge's workers handed over since the last wake-up:
    /// each packet is handled as if read from the leg's socket and unprotected, then the
    /// legs' queues go out and the buffers go back to the inbox. Drains again until the
    /// inbox is empty (the workers wake the thread only once it found it empty), at most
    /// `inboxRounds` times.
    func wokenUp(now: UInt64) {
        takeEdgeChanges()
        var rounds = 0
        while drainInbox(now: rounds == 0 ? now : MonotonicClock.nanoseconds()) {
            rounds += 1
            if rounds == Self.inboxRounds {
                group.inbox.ring()  // packets may wait: come back after the sockets and timers
                return
            }
        }
    }

    /// One round of `wokenUp`: false when the inbox was empty (the thread may sleep).
    private func drainInbox(now: UInt64) -> Bool {
        group.inbox.drain(into: &inboxBuffers, tags: &inboxTags)
        guard !inboxBuffers.isEmpty else { return false }
        for position in inboxBuffers.indices {
            let buffer = inboxBuffers[position], tag = inboxTags[position]
            if tag == 0 {
                if publisher.edge != nil { fromEdgePublisher(buffer, now: now) } else { bad() }
            } else if let leg = subscribers.first(where: { $0.edge?.tag == tag }) {
                fromEdgeSubscriber(leg, buffer, now: now)
            } else {
                bad()  // a leg that left meanwhile
            }
        }
        flushAll(now: now)
        for leg in subscribers where !leg.resend.isEmpty { flushResends(leg) }
        inboxTags.removeAll(keepingCapacity: true)
        group.inbox.recycle(&inboxBuffers)
        return true
    }

    /// Moves parked keys and addresses into the edge legs; a leg that can now be reached
    /// (or moved) asks for a keyframe, as a socket leg's first authenticated datagram does.
    private func takeEdgeChanges() {
        if publisher.takeEdgeChanges() { group.requestKeyframe() }
        for leg in subscribers where leg.edge != nil && leg.takeEdgeChanges() {
            if leg.hasVideo, leg.takesVideo.load(ordering: .relaxed) { group.requestKeyframe(encoding: leg.route.spatial) }
        }
    }

    /// A packet from an edge publisher, already unprotected by the edge.
    private func fromEdgePublisher(_ buffer: PacketBuffer, now: UInt64) {
        let length = buffer.length
        switch PacketClassifier.classify(UnsafeRawBufferPointer(buffer.bytes)) {
        case .rtp where length >= 12:
            GroupCounters.bump(counters.packetsIn)
            GroupCounters.bump(counters.bytesIn, by: UInt64(length))
            if publisher.ingress != nil {
                // A browser's numbering becomes the router's, in place (`BrowserIngressMap`).
                switch publisher.ingress!.rewrite(buffer.bytes.baseAddress!, length: length) {
                case .forward(let rewritten): buffer.setLength(rewritten)
                case .probe:
                    recordTransportArrival(buffer, now: now)
                    GroupCounters.bump(counters.probesReceived)
                    return
                case .drop:
                    // It arrived: the browser's congestion control must hear so, or it
                    // reads the packet as lost (Chrome's RTX probes on a layer not yet
                    // learned collapsed its estimate to 84 kbps).
                    recordTransportArrival(buffer, now: now)
                    GroupCounters.bump(counters.unknownSSRCPackets)
                    GroupCounters.bump(counters.packetsDropped)
                    return
                }
            }
            forwardRTP(buffer, now: now)
        case .rtcp:
            GroupCounters.bump(counters.packetsIn)
            GroupCounters.bump(counters.bytesIn, by: UInt64(length))
            publisher.ingress?.rewriteSenderReports(buffer.bytes.baseAddress!, length: length)
            fromPublisherRTCP(UnsafeRawBufferPointer(buffer.bytes), now: now)
        default:
            bad()
        }
    }

    /// An RTCP packet from an edge subscriber, already unprotected by the edge.
    private func fromEdgeSubscriber(_ leg: SubscriberLeg, _ buffer: PacketBuffer, now: UInt64) {
        guard PacketClassifier.classify(UnsafeRawBufferPointer(buffer.bytes)) == .rtcp else { return bad() }
        GroupCounters.bump(counters.packetsIn)
        GroupCounters.bump(counters.bytesIn, by: UInt64(buffer.length))
        fromSubscriberRTCP(leg, UnsafeRawBufferPointer(buffer.bytes), now: now)
    }

    func pipelineStopped(now: UInt64) {
        for leg in subscribers {
            if leg.cascadeEgress != nil { sendGoodbye(leg) }  // the receiving router ends its copy at once
            flush(leg, now: now)
        }
        group.forwardingThreadStopped()
    }

    // MARK: - Receive

    func socketReadable(_ index: Int, now: UInt64) {
        let first = publisherPolled ? 1 : 0
        if index == 0 && publisherPolled {
            for _ in 0..<8 {
                guard let result = try? publisher.socket.receive(into: receiveBuffers, batch: receiveMessages),
                      case .processed(let count) = result, count > 0 else { break }
                for slot in 0..<count { fromPublisher(receiveBuffers[slot], now: now) }
                flushAll(now: now)
                if count < Self.receiveBatch { break }
            }
        } else if index >= first, index - first < polled.count {
            let leg = polled[index - first]
            for _ in 0..<4 {
                guard let result = try? leg.socket.receive(into: receiveBuffers, batch: receiveMessages),
                      case .processed(let count) = result, count > 0 else { break }
                for slot in 0..<count { fromSubscriber(leg, receiveBuffers[slot], now: now) }
                if !leg.resend.isEmpty { flushResends(leg) }
                if count < Self.receiveBatch { break }
            }
        }
    }

    @inline(__always)
    private func bad() { GroupCounters.bump(counters.badPackets) }

    private func fromPublisher(_ buffer: PacketBuffer, now: UInt64) {
        guard !buffer.isTruncated else { return bad() }
        let received = buffer.length
        switch PacketClassifier.classify(UnsafeRawBufferPointer(buffer.bytes)) {
        case .rtp:
            guard let length = publisher.unprotect(buffer.writableBytes, length: received, isRTCP: false, counters: counters),
                  length >= 12 else { return bad() }
            buffer.setLength(length)
            if publisher.learn(buffer.peer, now: now, counters: counters), !publisher.videoSeen { group.requestKeyframe() }
            GroupCounters.bump(counters.packetsIn)
            GroupCounters.bump(counters.bytesIn, by: UInt64(received))
            if let cascade = publisher.cascade { cascade.counters.received(bytes: received) }
            forwardRTP(buffer, now: now)
        case .rtcp:
            guard let length = publisher.unprotect(buffer.writableBytes, length: received, isRTCP: true, counters: counters) else { return bad() }
            _ = publisher.learn(buffer.peer, now: now, counters: counters)
            GroupCounters.bump(counters.packetsIn)
            GroupCounters.bump(counters.bytesIn, by: UInt64(received))
            if let cascade = publisher.cascade { cascade.counters.received(bytes: received) }
            fromPublisherRTCP(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer.writableBytes)[0..<length]), now: now)
        case .stun where publisher.cascade != nil:
            // A cascade ingress' consent answers from the origin's edge (`CascadeIngressLink`).
            if !publisher.cascade!.consent.receive(UnsafeRawBufferPointer(buffer.bytes), now: now) { bad() }
        default:
            bad()
        }
    }

    private func forwardRTP(_ buffer: PacketBuffer, now: UInt64) {
        let base = buffer.bytes.baseAddress!
        let length = buffer.length
        let ssrc = WireBytes.be32(base, 8)
        let sequence = WireBytes.be16(base, 2)
        let timestamp = WireBytes.be32(base, 4)
        recordTransportArrival(buffer, now: now)
        if ssrc == RTPProbe.ssrc || base.load(fromByteOffset: 1, as: UInt8.self) & 0x7F == RTPProbe.payloadType {
            GroupCounters.bump(counters.probesReceived)  // recorded for feedback, never forwarded
            return
        }
        var encoding = -1
        var frameStart = true
        var fields = VP8Fields()
        if let s = publisher.encoding(of: ssrc) {
            encoding = s
            if let parsed = VP8Fields(base, length) { fields = parsed }
            let arrival = publisher.gaps[s].received(sequence, now: now)
            if arrival != .stale {
                // A repair counts as received too (else the receiver reports call it lost and
                // the publisher's loss-based control backs off); a duplicate does not (a
                // browser's RTX probes resend old packets: the loss would go negative).
                publisher.encodingStatistics[s].record(sequence: sequence, rtpTimestamp: timestamp, bytes: length,
                                                       arrivalNanoseconds: now)
            }
            if arrival != .stale, s == publisher.encodingSSRCs.count - 1 { record(.video, buffer, now: now) }
            switch arrival {
            case .inOrder: break
            case .repaired: return forwardLate(buffer, encoding: s, fields: fields, now: now)
            case .stale:
                GroupCounters.bump(counters.packetsDropped)  // a duplicate: forwarded once already
                return
            }
            // A lost marker must not glue two pictures: the descriptor's S bit starts one too.
            frameStart = publisher.encodingFrameEnded[s] || fields.startsFrame
            publisher.encodingFrameEnded[s] = base.load(fromByteOffset: 1, as: UInt8.self) & 0x80 != 0
            if fields.keyframe, fields.width > 0 {
                publisher.encodingWidth[s] = fields.width
                publisher.encodingHeight[s] = fields.height
            }
            meter.addVideo(encoding: s, temporal: fields.temporalLayer, bytes: length, frameStart: frameStart)
            if !publisher.videoSeen { publisher.videoSeen = true }
        } else if ssrc == publisher.audioSSRC {
            publisher.audioSeen = true
            publisher.audioStatistics.record(sequence: sequence, rtpTimestamp: timestamp, bytes: length,
                                             arrivalNanoseconds: now)
            meter.addAudio(bytes: length)
            if group.audioMuted.load(ordering: .relaxed) {
                // Skipped for every leg, like a leg that turned audio off: no gap downstream.
                for leg in subscribers { leg.audioSkipped &+= 1 }
                GroupCounters.bump(counters.mutedAudioDropped)
                return
            }
            record(.audio, buffer, now: now)  // force-muted audio is not recorded either
        } else {
            GroupCounters.bump(counters.unknownSSRCPackets)
            GroupCounters.bump(counters.packetsDropped)
            return
        }
        let isVideo = encoding >= 0
        let source = UnsafeRawBufferPointer(buffer.bytes)
        for leg in subscribers {
            if isVideo {
                let allowed = leg.takesVideo.load(ordering: .relaxed) && !leg.adaptation.fallbackOff
                switch leg.route.admit(encoding: encoding, fields: fields, frameStart: frameStart, allowed: allowed) {
                case .forward: break
                case .skip:
                    leg.route.record(encoding: encoding, sequence: sequence, timestamp: timestamp, forwarded: false)
                    continue
                case .ignore: continue
                }
            } else if !leg.takesAudio.load(ordering: .relaxed) {
                leg.audioSkipped &+= 1
                continue
            }
            guard let address = leg.address, let out = leg.pool.take() else {
                GroupCounters.bump(counters.packetsDropped)
                continue
            }
            guard RTPInPlace.assignMakingRoom(source, into: out) else {
                leg.pool.release(out)
                GroupCounters.bump(counters.packetsDropped)
                continue
            }
            let p = out.bytes.baseAddress!
            if isVideo {
                _ = leg.route.rewrite(p, fields: fields, sequence: sequence, timestamp: timestamp, now: now,
                                      shift: out.length - length)
                leg.route.record(encoding: encoding, sequence: sequence, timestamp: timestamp, forwarded: true)
                WireBytes.store32(leg.videoSSRC, p, 8)
            } else {
                let shifted = sequence &- leg.audioSkipped
                if leg.audioOffset == nil { leg.audioOffset = leg.audioStart &- shifted }
                WireBytes.store16(shifted &+ leg.audioOffset!, p, 2)
                WireBytes.store32(leg.audioSSRC, p, 8)
            }
            send(out, on: leg, to: address, kind: isVideo ? .video : .audio, now: now)
        }
        flushIfQueuesFull(now: now)
    }

    /// Hands a publisher packet (plaintext, the router's numbering) to the archive
    /// recorder, if one records this stream: one atomic load, and with a recorder one
    /// non-blocking copy into its ring (a full ring drops the packet there, not here).
    @inline(__always)
    private func record(_ track: RecordingTrack, _ buffer: PacketBuffer, now: UInt64) {
        group.recording.refresh(&recorderSeen, &recorder)
        guard let recorder else { return }
        recorder.enqueue(track, rtp: UnsafeRawBufferPointer(buffer.bytes), arrivalNanoseconds: now)
    }

    /// Records a publisher packet's transport-wide number, if it has one, for the feedback.
    @inline(__always)
    private func recordTransportArrival(_ buffer: PacketBuffer, now: UInt64) {
        let base = buffer.bytes.baseAddress!
        guard let offset = RTPInPlace.transportSequenceOffset(base, buffer.length) else { return }
        // The kernel's arrival time (UDPSocket), so the publisher's delay-based estimate
        // does not see this thread's scheduling.
        let arrival = buffer.receiveTimestamp != 0 ? buffer.receiveTimestamp : now
        publisher.arrivals.record(transportSequence: WireBytes.be16(base, offset), arrivalNanoseconds: arrival)
    }

    /// A video packet that filled a hole (the publisher answered the router's NACK, or it
    /// came reordered): each leg that forwarded its frame gets it under the numbers the
    /// frame went out with (then it is in the leg's history for the subscriber's NACKs);
    /// legs that dropped its frame or forward another encoding do not.
    private func forwardLate(_ buffer: PacketBuffer, encoding: Int, fields: VP8Fields, now: UInt64) {
        let base = buffer.bytes.baseAddress!
        let length = buffer.length
        let sequence = WireBytes.be16(base, 2)
        let timestamp = WireBytes.be32(base, 4)
        GroupCounters.bump(counters.upstreamRepaired)
        let source = UnsafeRawBufferPointer(buffer.bytes)
        for leg in subscribers where leg.takesVideo.load(ordering: .relaxed) && !leg.adaptation.fallbackOff {
            guard let address = leg.address, let out = leg.pool.take() else { continue }
            guard RTPInPlace.assignMakingRoom(source, into: out),
                  leg.route.rewriteLate(out.bytes.baseAddress!, encoding: encoding, fields: fields, sequence: sequence,
                                        timestamp: timestamp, shift: out.length - length)
            else {
                leg.pool.release(out)
                continue
            }
            WireBytes.store32(leg.videoSSRC, out.bytes.baseAddress!, 8)
            send(out, on: leg, to: address, kind: .video, now: now)
        }
        flushIfQueuesFull(now: now)
    }

    /// Gives a plaintext RTP packet the leg's next transport-wide number, protects it and
    /// queues it on the leg (flushing a full batch). The history records the protected
    /// size, what the wire carries.
    func send(_ out: PacketBuffer, on leg: SubscriberLeg, to address: SocketAddress, kind: SentPacketKind, now: UInt64) {
        let wire = TransportSequenceNumbers.wire(leg.adaptation.transport.next)
        let numbered = RTPInPlace.setTransportSequence(out, wire)
        guard let sender = leg.sender, let protected = try? sender.protect(out.writableBytes, length: out.length) else {
            leg.pool.release(out)
            GroupCounters.bump(counters.packetsDropped)
            return
        }
        if numbered { _ = leg.adaptation.nextSequence(size: protected, kind: kind, now: now) }
        leg.adaptation.sentBytes &+= UInt64(protected)
        out.setLength(protected)
        out.peer = address
        leg.outgoing.append(out)
        if leg.outgoing.count >= Self.sendBatch { flush(leg, now: now) }
        queuedSinceFlush += 1
    }

    /// Sends the legs' queues once one more packet for every leg would pass the fan-out
    /// capacity or `legQueueTarget` per leg, so a burst (a keyframe) does not make every
    /// leg hold it whole. Called after each forwarded publisher packet; O(1) otherwise.
    @inline(__always)
    private func flushIfQueuesFull(now: UInt64) {
        let legs = subscribers.count
        guard legs > 0, queuedSinceFlush + legs > min(Self.fanOutCapacity, Self.legQueueTarget * legs) else { return }
        flushAll(now: now)
    }

    /// Sender reports go on to every subscriber leg under its SSRCs; the rest (SDES, the
    /// publisher's answers to our RRs) stays here.
    private func fromPublisherRTCP(_ bytes: UnsafeRawBufferPointer, now: UInt64) {
        guard let compound = try? RTCPCompoundPacket(validating: bytes) else { return bad() }
        var packets = compound.makeIterator()
        while let packet = packets.next() {
            if case .goodbye = packet, let cascade = publisher.cascade {
                cascade.originEnded("the origin ended the stream")  // a cascade egress' BYE
                continue
            }
            guard case .senderReport(let report) = packet else { continue }
            let encoding = publisher.encoding(of: report.ssrc) ?? -1
            let isVideo = encoding >= 0
            guard isVideo || report.ssrc == publisher.audioSSRC else { continue }
            if let recorder, isVideo ? encoding == publisher.encodingSSRCs.count - 1 : true {
                recorder.enqueueSenderReport(isVideo ? .video : .audio, ntpTimestamp: report.ntpTimestamp,
                                             rtpTimestamp: report.rtpTimestamp, arrivalNanoseconds: now)
            }
            if isVideo {
                publisher.encodingReportNotes[encoding] = (report.ntpTimestamp.middle32, now)
            } else if report.ssrc == publisher.audioSSRC {
                publisher.audioReportNote = (report.ntpTimestamp.middle32, now)
            }
            for leg in subscribers
            where isVideo ? leg.route.spatial == encoding && leg.route.frameOn : leg.takesAudio.load(ordering: .relaxed) {
                guard let address = leg.address else { continue }
                let ssrc = isVideo ? leg.videoSSRC : leg.audioSSRC
                let rtpTimestamp = isVideo ? report.rtpTimestamp &+ leg.route.timestampDelta : report.rtpTimestamp
                let rewritten = SenderReport(ssrc: ssrc, ntpTimestamp: report.ntpTimestamp, rtpTimestamp: rtpTimestamp,
                                             packetCount: report.packetCount, octetCount: report.octetCount)
                if let out = rtcp(leg, to: address, { writer throws(RTCPError) in
                    try writer.append(rewritten)
                    try writer.append(SourceDescription(ssrc: ssrc, cname: leg.cname))
                }) {
                    if isVideo {
                        leg.videoReportSent = (report.ntpTimestamp.middle32, now)
                    } else {
                        leg.audioReportSent = (report.ntpTimestamp.middle32, now)
                    }
                    leg.outgoing.append(out)
                    if leg.outgoing.count >= Self.sendBatch { flush(leg, now: now) }
                }
            }
        }
        if packets.malformedCount > 0 { bad() }
    }

    private func fromSubscriber(_ leg: SubscriberLeg, _ buffer: PacketBuffer, now: UInt64) {
        guard !buffer.isTruncated, PacketClassifier.classify(UnsafeRawBufferPointer(buffer.bytes)) == .rtcp,
              let length = leg.unprotect(buffer.writableBytes, length: buffer.length, isRTCP: true, counters: counters) else { return bad() }
        GroupCounters.bump(counters.packetsIn)
        GroupCounters.bump(counters.bytesIn, by: UInt64(buffer.length))
        if leg.learn(buffer.peer, now: now, counters: counters), leg.hasVideo, leg.takesVideo.load(ordering: .relaxed) {
            // A newly heard subscriber (or one back on a new path) starts with a keyframe.
            group.requestKeyframe(encoding: leg.route.spatial)
        }
        fromSubscriberRTCP(leg, UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer.writableBytes)[0..<length]), now: now)
    }

    /// A subscriber's plain RTCP compound: reports, transport feedback, NACK, PLI/FIR.
    private func fromSubscriberRTCP(_ leg: SubscriberLeg, _ bytes: UnsafeRawBufferPointer, now: UInt64) {
        guard let compound = try? RTCPCompoundPacket(validating: bytes) else { return bad() }
        var packets = compound.makeIterator()
        while let packet = packets.next() {
            switch packet {
            case .receiverReport(let report):
                GroupCounters.bump(counters.receiverReports)
                for block in report.reportBlocks where block.ssrc == leg.videoSSRC || block.ssrc == leg.audioSSRC {
                    take(block, leg: leg, now: now)
                }
            case .transportWideFeedback(let feedback):
                leg.adaptation.take(feedback, now: now)
                GroupCounters.bump(counters.transportFeedbacksIn)
            case .genericNACK(let nack) where nack.mediaSSRC == leg.videoSSRC:
                for sequence in nack.lostSequenceNumbers {
                    guard let kept = leg.kept(sequence, now: now), let address = leg.address,
                          admitResend(bytes: kept.count, sequence: sequence, leg: leg, now: now) else { continue }
                    guard let out = leg.pool.take() else {
                        GroupCounters.bump(counters.packetsDropped)
                        continue
                    }
                    out.assign(kept)
                    out.peer = address
                    leg.resend.append(out)
                    if leg.resend.count >= Self.sendBatch { flushResends(leg) }
                }
            case .pictureLossIndication(let pli) where pli.mediaSSRC == leg.videoSSRC:
                group.requestKeyframe(encoding: leg.route.spatial)
            case .fullIntraRequest(let fir) where fir.entries.contains { $0.ssrc == leg.videoSSRC }:
                group.requestKeyframe(encoding: leg.route.spatial)
            default:
                continue
            }
        }
        if packets.malformedCount > 0 { bad() }
    }

    /// Whether a kept packet the leg NACKed goes out again (`LegResendGuard`: once per
    /// round trip, within the leg's budget); refusals are counted by reason.
    @inline(__always)
    private func admitResend(bytes: Int, sequence: UInt16, leg: SubscriberLeg, now: UInt64) -> Bool {
        switch leg.resendGuard.decide(slot: SubscriberLeg.slot(of: sequence), bytes: bytes,
                                      sentBitsPerSecond: leg.adaptation.sentRate, now: now) {
        case .resend:
            return true
        case .duplicate:
            GroupCounters.bump(counters.retransmissionsDuplicate)
            GroupCounters.bump(leg.status.resendsDuplicate)
            return false
        case .overBudget:
            GroupCounters.bump(counters.retransmissionsOverBudget)
            GroupCounters.bump(leg.status.resendsOverBudget)
            return false
        }
    }

    /// The leg's round trip from a report block that answers the last sender report the
    /// router forwarded to it: arrival − forwarded − DLSR (RFC 3550 6.4.1, on the router's
    /// monotonic clock, since the forwarded SR carries the publisher's NTP time).
    @inline(__always)
    private func measureRoundTrip(_ block: ReportBlock, leg: SubscriberLeg, now: UInt64) {
        let note = block.ssrc == leg.videoSSRC ? leg.videoReportSent : leg.audioReportSent
        guard note.middle32 != 0, block.lastSenderReport == note.middle32, now >= note.sentAt else { return }
        let held = RTCPRoundTrip.nanoseconds(fromCompact: block.delaySinceLastSenderReport)
        let elapsed = now - note.sentAt
        guard elapsed >= held else { return }
        leg.resendGuard.noteRoundTrip(elapsed - held)
        leg.status.roundTrip.store(leg.resendGuard.roundTrip, ordering: .relaxed)
    }

    private func take(_ block: ReportBlock, leg: SubscriberLeg, now: UInt64) {
        measureRoundTrip(block, leg: leg, now: now)
        let clockRate: UInt64 = block.ssrc == leg.videoSSRC ? 90_000 : 48_000
        if block.ssrc == leg.videoSSRC || !leg.hasVideo {
            leg.reportedLost.store(Int64(block.cumulativeLost), ordering: .relaxed)
        }
        // RR loss, the estimator's fallback when transport-wide feedback is missing: of the
        // video while video flows, else of the audio (which shares the path with probes).
        let videoFlows = leg.hasVideo && leg.takesVideo.load(ordering: .relaxed) && !leg.adaptation.fallbackOff
        if (block.ssrc == leg.videoSSRC) == videoFlows {
            leg.adaptation.estimator.onLossReport(fractionLost: Double(block.fractionLost) / 256, now: now)
        }
        leg.reportedJitterMicroseconds.store(UInt64(block.jitter) * 1_000_000 / clockRate, ordering: .relaxed)
    }

    // MARK: - Send

    /// Sends every leg's queue: the queues of consecutive legs that send from one socket
    /// (every edge leg: the edge's port) go out together, one `sendSegmented` for all of
    /// them (up to `fanOutCapacity` packets), so one incoming packet's N copies cost one
    /// `sendmmsg`, and each leg's run of equal-sized packets one GSO send. A leg with its
    /// own socket sends alone, as `flush` does. No allocation (the scratch keeps its
    /// capacity); a retain per gathered packet.
    func flushAll(now: UInt64) {
        queuedSinceFlush = 0
        let legs = subscribers
        var first = 0
        while first < legs.count {
            let socket = legs[first].socket
            var end = first
            var queued = 0
            while end < legs.count, legs[end].socket === socket, queued + legs[end].outgoing.count <= Self.fanOutCapacity {
                queued += legs[end].outgoing.count
                end += 1
            }
            if end <= first + 1 || queued == 0 {
                // One leg, or nothing queued: a leg's own flush.
                let stop = max(end, first + 1)
                for position in first ..< stop where !legs[position].outgoing.isEmpty { flush(legs[position], now: now) }
                first = stop
                continue
            }
            for position in first ..< end { fanOut.append(contentsOf: legs[position].outgoing) }
            let sent = (try? socket.sendSegmented(fanOut, batch: fanOutMessages).count) ?? 0
            fanOut.removeAll(keepingCapacity: true)
            var offset = 0
            for position in first ..< end {
                let leg = legs[position]
                let count = leg.outgoing.count
                guard count > 0 else { continue }
                finishFlush(leg, sent: min(max(sent - offset, 0), count), now: now)
                offset += count
            }
            first = end
        }
    }

    /// Sends a leg's queue with `sendmmsg` (equal-sized runs as one GSO send); video packets
    /// are then copied into its history (sent or not: a packet the kernel refused can still
    /// be NACKed), and every buffer goes back to the pool.
    func flush(_ leg: SubscriberLeg, now: UInt64) {
        guard !leg.outgoing.isEmpty else { return }
        let sent = (try? leg.socket.sendSegmented(leg.outgoing, batch: sendMessages).count) ?? 0
        finishFlush(leg, sent: sent, now: now)
    }

    /// After a send of the leg's whole queue of which the first `sent` went out: history,
    /// pool, counters; empties the queue.
    private func finishFlush(_ leg: SubscriberLeg, sent: Int, now: UInt64) {
        var bytes: UInt64 = 0
        var audio = 0  // counted for cascade egress legs only
        let cascade = leg.cascadeEgress
        for (index, buffer) in leg.outgoing.enumerated() {
            if index < sent { bytes += UInt64(buffer.length) }
            let base = buffer.bytes.baseAddress!
            let byte1 = base.load(fromByteOffset: 1, as: UInt8.self)
            let rtp = byte1 < 192 || byte1 > 223
            if rtp, WireBytes.be32(base, 8) == leg.videoSSRC {
                leg.remember(UnsafeRawBufferPointer(buffer.bytes), sequence: WireBytes.be16(base, 2), now: now)
            } else if cascade != nil, rtp, index < sent, WireBytes.be32(base, 8) == leg.audioSSRC {
                audio += 1
            }
            leg.pool.release(buffer)
        }
        GroupCounters.bump(counters.packetsOut, by: UInt64(sent))
        GroupCounters.bump(counters.bytesOut, by: bytes)
        if let cascade { cascade.sent(packets: sent, bytes: bytes, audio: audio) }
        if sent < leg.outgoing.count { GroupCounters.bump(counters.packetsDropped, by: UInt64(leg.outgoing.count - sent)) }
        leg.outgoing.removeAll(keepingCapacity: true)
    }

    private func flushResends(_ leg: SubscriberLeg) {
        let sent = (try? leg.socket.send(leg.resend, batch: sendMessages).count) ?? 0
        var bytes: UInt64 = 0
        for buffer in leg.resend.prefix(sent) { bytes += UInt64(buffer.length) }
        GroupCounters.bump(counters.retransmissions, by: UInt64(sent))
        GroupCounters.bump(counters.packetsOut, by: UInt64(sent))
        GroupCounters.bump(counters.bytesOut, by: bytes)
        GroupCounters.bump(leg.status.resent, by: UInt64(sent))
        GroupCounters.bump(leg.status.resentBytes, by: bytes)
        for buffer in leg.resend { leg.pool.release(buffer) }
        leg.resend.removeAll(keepingCapacity: true)
    }

    /// A protected RTCP compound for `leg` in one of its pooled buffers, or nil.
    func rtcp(_ leg: RouterLeg, to address: SocketAddress, reducedSize: Bool = false,
              _ build: (inout RTCPCompoundWriter) throws(RTCPError) -> Void) -> PacketBuffer? {
        guard let sender = leg.sender, let buffer = leg.pool.take() else { return nil }
        let region = buffer.writableBytes
        var writer = RTCPCompoundWriter(buffer: UnsafeMutableRawBufferPointer(rebasing: region[0..<(region.count - SRTPProfile.maxTrailer)]),
                                         reducedSize: reducedSize)
        do {
            try build(&writer)
            let length = try writer.finish().count
            buffer.setLength(try sender.protectRTCP(region, length: length))
        } catch {
            leg.pool.release(buffer)
            return nil
        }
        buffer.peer = address
        return buffer
    }

    /// Sends one compound to the publisher from its leg's socket (`reducedSize`: RFC 5506,
    /// no report or SDES needed).
    @discardableResult
    func sendToPublisher(reducedSize: Bool = false, _ build: (inout RTCPCompoundWriter) throws(RTCPError) -> Void) -> Bool {
        guard let address = publisher.address, let buffer = rtcp(publisher, to: address, reducedSize: reducedSize, build)
        else { return false }
        single.append(buffer)
        let sent = (try? publisher.socket.send(single, batch: sendMessages).count) ?? 0
        single.removeAll(keepingCapacity: true)
        if sent == 1 {
            GroupCounters.bump(counters.packetsOut)
            GroupCounters.bump(counters.bytesOut, by: UInt64(buffer.length))
        }
        publisher.pool.release(buffer)
        return sent == 1
    }

    /// Queues an RTCP BYE naming a cascade egress leg's SSRCs (the stream ended here), so
    /// the receiving router's ingress ends its group at once instead of after its consent
    /// lapses. Forwarding thread, when the group stops.
    private func sendGoodbye(_ leg: SubscriberLeg) {
        guard let address = leg.address else { return }
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 2) { storage in
            storage[0] = leg.audioSSRC
            storage[1] = leg.videoSSRC
            let sources = RTCPList(UnsafeBufferPointer(storage))
            if let out = rtcp(leg, to: address, { writer throws(RTCPError) in
                try writer.append(ReceiverReport(ssrc: leg.videoSSRC))
                try writer.append(SourceDescription(ssrc: leg.videoSSRC, cname: leg.cname))
                try writer.append(Goodbye(sources: sources))
            }) {
                leg.outgoing.append(out)
            }
        }
    }
}
