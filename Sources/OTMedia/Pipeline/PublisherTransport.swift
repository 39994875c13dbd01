import Synchronization

/// The publisher's transport side of congestion control, run on its feedback thread
/// (the thread that numbers, protects and sends the RTP packets; the video capture thread
/// does so for a frame the pacer lets go at once, under the same lock:
/// `PublisherTransportAccess`, `pumpDirect`):
///
/// - packets the capture threads hand over (`OutgoingPacketQueue`) go into the `Pacer`
///   (audio first, video spread at `Pacer.pacingFactor` × the estimate, so a keyframe
///   does not burst);
/// - each packet that leaves takes the next transport-wide sequence number (one counter
///   for audio, video and probes; RTPExtensionID.transportWideSequence), is SRTP
///   protected, sent, and remembered in the `SentPacketHistory`;
/// - transport-wide feedback goes through the `TransportFeedbackAdapter` into the
///   `BandwidthEstimator` (RTCP receiver-report loss and RTT too), whose estimate minus
///   the audio's share becomes `PublisherPipeline.videoTargetBitrate`;
/// - when the media does not fill the estimate (application-limited, or video off) and
///   the estimate is below the configured maximum, the pacer's padding budget sends
///   probe packets (`RTPProbe`: own SSRC, padding only) up to the estimate;
/// - probe clusters (`ProbeController`): for ~100 ms the pacer runs at the cluster's rate
///   (2× the estimate) with padding filling what media leaves; the cluster's packets are a
///   run of transport-wide numbers each leg's `ProbeClusterEstimator` measures from its
///   feedback, and a usable result lifts that leg's estimate at once;
/// - for 2 s after an over-use media is paced at the estimate itself, not 2.5 × it.
///
/// Retransmissions (`enqueueRetransmission`) are the stored protected bytes: they keep
/// their original transport-wide number and wait in the pacer's retransmission queue
/// (after audio, before new video), within a budget of half the estimate.
///
/// Relayed with keys per receiver (`PublisherConfiguration.relayedKeysPerReceiver`): the
/// senders leave packets plain; each receiver gets a copy protected with its own keys
/// (`RelayedReceiverContexts`), the store keeps the plain bytes, and a resend is protected
/// for the receiver that asked. Receivers are found by their authenticated SRTCP
/// (`authenticateRTCP`).
///
/// Cost per packet: one protect, one history record, O(1) pacer work; no allocation
/// (buffers are pooled, tables and arrays made once). Both threads fill a batch with the
/// lock held and send it after leaving the lock: nobody holds it across a system call.
final class PublisherTransport {
    /// Offset of the transport-wide number's two bytes in a packet written with
    /// `withTransportSequence` (12-byte header, no CSRCs, 0xBEDE word, one element byte).
    static let sequenceOffset = RTPHeader.fixedSize + 4 + 1
    /// Bytes the extension adds to a header.
    static let extensionBytes = 8
    /// SRTP's tag, counted in the pacer's sizes before the packet is protected.
    static let trailerBytes = 10
    /// Packet overhead left out of the video target: RTP/SRTP/UDP/IPv4 headers over
    /// ~1200-byte packets are about 6 %.
    static let videoPayloadShare = 0.94
    /// The pacer's queue drains within this long: when the encoder produces more than the
    /// estimate (it follows the target with a delay), the pacing rate rises above
    /// `pacingFactor` × the estimate rather than letting packets wait for seconds.
    static let queueTimeLimitNanoseconds: UInt64 = 500_000_000
    /// Retransmissions may use at most this share of the estimate (0.5), with a bucket of
    /// `retransmissionBurstNanoseconds` of it: after a capacity drop the receiver NACKs
    /// every packet the full queue lost, and resending them all (or pacing them at 2.5 ×
    /// the estimate) keeps that queue full: the resends are lost or arrive after the
    /// receiver gave the frame up, and the estimate spirals down with the loss. Requests
    /// over the budget are skipped (counted); the receiver asks again or for a keyframe.
    static let retransmissionShare = 0.5
    /// The retransmission budget's bucket, nanoseconds of it (200 ms).
    static let retransmissionBurstNanoseconds: UInt64 = 200_000_000
    /// For this long after an estimator saw over-use, media is paced at the estimate itself
    /// instead of `Pacer.pacingFactor` × it (2 s): the bottleneck's queue is full, and a
    /// keyframe or a backlog sent at 2.5 × the estimate would be lost at its tail, costing
    /// another keyframe; meanwhile encoder pushback skips frames instead.
    static let congestedPacingNanoseconds: UInt64 = 2_000_000_000
    /// How often the application-limited check runs, nanoseconds.
    static let probeCheckNanoseconds: UInt64 = 250_000_000

    private let pipeline: PublisherPipeline
    private var pacer: Pacer
    private let handles: HandleTable<PacketBuffer>
    private var kinds: [SentPacketKind]
    private var lengths: [Int]
    private var payloads: [Int]
    private var encodings: [Int]
    private var keyframes: [Bool]
    /// Per video encoding (full size, then simulcast): its sender and NACK store.
    private let videoSenders: [RTPStreamSender]
    let videoStores: [RetransmissionStore]
    private var numbers = TransportSequenceNumbers(start: .random(in: 0...UInt16.max))
    private var results: [PacketResult] = []
    /// Routed: one leg for the configured destination; relayed: one per learned address.
    private var legs: [PublisherTransportLeg] = []
    private let relayed: Bool
    /// Relayed with keys per receiver: the master they are derived from (nil otherwise).
    private let receiverMaster: SRTPLegKeys?
    /// Receiver SSRCs revoked by the signaling (most recent `revokedCapacity`): refused.
    private var revoked: [UInt32] = []
    /// How many revoked SSRCs are remembered (the oldest are forgotten first).
    static let revokedCapacity = 256
    /// Receiver key derivations in the current second, and when that second began.
    private var derivations = (count: 0, since: UInt64(0))
    /// At most this many receivers' keys are derived a second: a flood of made-up SSRCs
    /// costs the transport thread ~20 × 1.2 ms a second (one libsrtp context each), not one
    /// per datagram; a real subscriber refused meanwhile is taken at its next RTCP (1 s).
    static let derivationsPerSecond = 20
    private let probeSender: RTPStreamSender
    /// This turn's packets: the transport thread's own batch, or during `pumpDirect` the
    /// capture thread's.
    private var out: TransportSendBatch
    /// The transport thread's batch: filled under the lock (`fill`), sent after it.
    let ownBatch: TransportSendBatch
    /// Bytes the current turn let out so far (a turn may fill several batches).
    private var turnBytes = 0
    private var windowStart: UInt64 = 0
    private var windowMediaBytes = 0
    private let audioShare: Int
    private var basePacingRate: UInt64
    /// When to send probe clusters (one controller for all legs: it follows the smallest
    /// estimate; each leg measures the clusters from its own feedback).
    private var probeController: ProbeController
    /// Retransmission budget, bits (refilled at `retransmissionShare` × the estimate).
    private var retransmissionBudget = 0.0
    /// Whether the last application-limited check found media well under the target.
    private var applicationLimited = false
    private var retransmissionBudgetAt: UInt64 = 0
    /// The cluster being sent: its request, first and last transport-wide numbers, bytes
    /// and packets so far.
    private var cluster: (request: ProbeClusterRequest, first: UInt64?, last: UInt64, bytes: Int, packets: Int)?

    init(pipeline: PublisherPipeline, now: UInt64) throws(MediaError) {
        self.pipeline = pipeline
        let configuration = pipeline.configuration
        relayed = configuration.relayedFanOut
        receiverMaster = configuration.relayedFanOut && configuration.relayedKeysPerReceiver ? configuration.keys : nil
        legs.reserveCapacity(max(1, configuration.relayedDestinationLimit))
        if !relayed { legs.append(PublisherTransportLeg(address: nil, configuration: configuration.bandwidthEstimation, now: now)) }
        let capacity = 512
        pacer = Pacer(configuration: Pacer.Configuration(burstNanoseconds: 5_000_000, audioCapacity: 64,
                                                         videoCapacity: capacity - 64, paddingPacketSize: 255),
                      pacingRate: Self.pacingRate(configuration.bandwidthEstimation.maxBitrate), now: now)
        basePacingRate = Self.pacingRate(configuration.bandwidthEstimation.maxBitrate)
        handles = HandleTable(capacity: capacity)
        kinds = Array(repeating: .video, count: capacity)
        lengths = Array(repeating: 0, count: capacity)
        payloads = Array(repeating: 0, count: capacity)
        encodings = Array(repeating: 0, count: capacity)
        keyframes = Array(repeating: false, count: capacity)
        videoSenders = (pipeline.videoSender.map { [$0] } ?? []) + pipeline.simulcastSenders
        videoStores = [pipeline.retransmissions] + pipeline.simulcastRetransmissions
        probeSender = try RTPStreamSender(parameters: RTPStreamParameters(ssrc: RTPProbe.ssrc, payloadType: RTPProbe.payloadType,
                                                                          clockRate: 90_000),
                                          keys: configuration.streamKeys?.send)
        results.reserveCapacity(SentPacketHistory.defaultCapacity)
        ownBatch = TransportSendBatch(capacity: max(64, configuration.relayedDestinationLimit),
                                      encodings: videoStores.count)
        out = ownBatch
        // Audio's share of the estimate: its bitrate plus 50 packets/s of ~70 bytes of headers.
        audioShare = pipeline.audioSender == nil ? 0 : (configuration.audio?.bitrate ?? 32_000) + 28_000
        probeController = ProbeController(configuration: ProbeController.Configuration(
            maxBitrate: configuration.bandwidthEstimation.maxBitrate))
        windowStart = now
        pipeline.transportCounters.pacingRate.store(pacer.pacingRate, ordering: .relaxed)
    }

    static func pacingRate(_ estimate: Int) -> UInt64 { UInt64(Double(max(estimate, 50_000)) * Pacer.pacingFactor) }

    /// `header` with the transport-wide extension (number 0 until the transport thread
    /// patches it at `sequenceOffset`).
    static func withTransportSequence(_ header: RTPHeader) -> RTPHeader {
        var header = header
        header.extensions = placeholder
        return header
    }

    /// The extension block with number 0, built once.
    static let placeholder: RTPHeaderExtensions = {
        var extensions = RTPHeaderExtensions()
        try? TransportSequenceNumbers.append(0, id: RTPExtensionID.transportWideSequence, to: &extensions)
        return extensions
    }()

    // MARK: Sending

    /// Transport thread, with the lock held (`PublisherTransportAccess.turn`): moves
    /// handed-over packets into the pacer and numbers, protects and records into
    /// `ownBatch` what it lets out now, stopping when the batch is full. The caller sends
    /// `ownBatch` after leaving the lock and, when `full`, calls again. `next`: when to
    /// come back (nil: nothing queued and no padding). While a capture thread's direct
    /// batch is still on its way out (`batchInFlight`) nothing is taken (packets leave in
    /// the order they were numbered): `next` is then 50 µs from now.
    func fill(now: UInt64) -> (next: UInt64?, full: Bool) {
        guard !batchInFlight.load(ordering: .acquiring) else { return (now + 50_000, false) }
        out = ownBatch
        let full = fillOut(now: now)
        if !ownBatch.isEmpty { batchInFlight.store(true, ordering: .releasing) }
        if full { return (now, true) }
        endTurn(now: now)
        return (pacer.nextSendTime(now: now).map { min($0, windowStart + Self.probeCheckNanoseconds) }
                    ?? windowStart + Self.probeCheckNanoseconds, false)
    }

    /// Whether a capture thread may send its frames itself (`pumpDirect`): routed only.
    /// Relayed, the transport thread alone touches this transport (a capture thread reads
    /// just this constant), so its sends to learned receivers and their keys stay on it.
    var acceptsDirectSends: Bool { !relayed }

    /// A batch numbered under the lock is on its way out (set under the lock by whoever
    /// filled it, cleared by that thread after its `sendmmsg`): the other thread takes no
    /// packet meanwhile, so datagrams leave in transport-wide order. The capture thread
    /// then hands its frame over instead; the transport thread retries 50 µs later.
    let batchInFlight = Atomic<Bool>(false)

    /// A capture thread's direct send, routed only (the caller holds the lock that
    /// serialises this transport: SRTP contexts, pacer and numbers are one thread's at a
    /// time): as `fill`, the handed-over packets go into the pacer and what it lets out now
    /// (the same pacing: a frame over the burst budget leaves only in part) is numbered,
    /// protected and recorded, but into `batch`, which the caller sends after leaving the
    /// lock (`TransportSendBatch.send`) and then clears `batchInFlight`. Returns false
    /// when the transport thread need not run for it (nothing stays queued, no padding);
    /// true otherwise, and when relayed or another batch is in flight (then nothing was
    /// done: the caller hands over and wakes the thread as before). Saves the transport
    /// thread's wake-up, `ppoll` and `read` per frame.
    func pumpDirect(into batch: TransportSendBatch, now: UInt64) -> Bool {
        guard acceptsDirectSends, !batchInFlight.load(ordering: .acquiring) else { return true }
        out = batch
        defer { out = ownBatch }
        let full = fillOut(now: now)
        if !batch.isEmpty { batchInFlight.store(true, ordering: .releasing) }
        if full { return true }
        endTurn(now: now)
        return pacer.nextSendTime(now: now) != nil
    }

    /// Packets per datagram the pacer lets out: one, or relayed one per destination.
    private var slotsPerPacket: Int { relayed ? max(1, legs.count) : 1 }

    /// The body of `fill` and `pumpDirect`: into `out`, never sending. Returns true when
    /// it stopped because `out` had no room for the next packet's datagrams.
    private func fillOut(now: UInt64) -> Bool {
        let counters = pipeline.transportCounters
        if pipeline.hasRevocations.load(ordering: .acquiring) { applyRevocations(now: now) }
        while let entry = pipeline.outgoing.pop() {
            guard let handle = handles.insert(entry.buffer) else {
                pipeline.pool.release(entry.buffer)
                counters.droppedPackets.add(1, ordering: .relaxed)
                continue
            }
            kinds[handle] = entry.kind
            lengths[handle] = entry.length
            payloads[handle] = entry.payloadBytes
            encodings[handle] = entry.encoding
            keyframes[handle] = entry.keyframe
            if entry.kind != .audio { windowMediaBytes += entry.length }
            if let dropped = pacer.enqueue(handle: UInt32(handle), size: entry.length + Self.trailerBytes,
                                           kind: entry.kind, now: now),
               let buffer = handles.remove(Int(dropped.handle)) {
                pipeline.pool.release(buffer)
                counters.droppedPackets.add(1, ordering: .relaxed)
            }
        }
        if cluster == nil { startCluster(now: now) }
        applyPacingRate(now: now)
        while out.room >= slotsPerPacket, let packet = pacer.dequeue(now: now) {
            if packet.kind == .padding {
                turnBytes += sendProbe(size: packet.size, now: now)
            } else if let buffer = handles.remove(Int(packet.handle)) {
                turnBytes += send(buffer, handle: Int(packet.handle), now: now)
            }
            if let current = cluster, current.bytes >= current.request.bytes, current.packets >= current.request.packets {
                endCluster(now: now)
            }
        }
        pipeline.pacerVideoBacklogBits.store(UInt64(pacer.queuedBytes) * 8, ordering: .relaxed)
        return out.room < slotsPerPacket
    }

    /// After a turn's last `fillOut`: its burst against the bound, probing's window.
    private func endTurn(now: UInt64) {
        if turnBytes > 0 {
            let counters = pipeline.transportCounters
            let bound = Int(Pacer.cap(rate: pacer.pacingRate, burst: pacer.configuration.burstNanoseconds)
                            / Pacer.unitsPerBit / 8) + 2 * 1300
            if turnBytes > bound { counters.burstsOverBound.add(1, ordering: .relaxed) }
            if UInt64(turnBytes) > counters.largestBurstBytes.load(ordering: .relaxed) {
                counters.largestBurstBytes.store(UInt64(turnBytes), ordering: .relaxed)
            }
            turnBytes = 0
        }
        if now >= windowStart + Self.probeCheckNanoseconds { updateProbing(now: now) }
    }

    /// A receiver asked video encoding `encoding` for a keyframe. While the pacer holds
    /// more than encoder pushback allows (`PublisherVideoLoop.pushbackSeconds` of video at
    /// the target: what is queued would leave that late), that encoding's queued frames
    /// are dropped up to its newest queued keyframe, if one is already waiting (that
    /// keyframe and what follows it stay): the receiver cannot decode them without it,
    /// and sending them first kept the congested bottleneck full for the ~0.5 s after a
    /// capacity drop in which the keyframe waited behind them (and pushback held the
    /// encoder). Their sequence numbers become losses no NACK can fill, which the keyframe
    /// makes moot. Cost: O(queued video) on a keyframe request, nothing otherwise.
    func keyframeRequested(encoding: Int, now: UInt64) {
        let target = Double(pipeline.videoTargetBitrate.load(ordering: .relaxed))
        guard target > 0, Double(pacer.queuedBytes * 8) > target * PublisherVideoLoop.pushbackSeconds else { return }
        let pool = pipeline.pool
        // The newest queued keyframe of this encoding, if any: packets from it on stay.
        var keyframeHandle: UInt32?
        var inKeyframe = false
        pacer.forEachQueuedVideo { handle in
            guard encodings[Int(handle)] == encoding else { return }
            if keyframes[Int(handle)] {
                if !inKeyframe { keyframeHandle = handle }
                inKeyframe = true
            } else {
                inKeyframe = false
            }
        }
        var reached = false
        let gone = pacer.dropVideo(where: { handle in
            if handle == keyframeHandle { reached = true }
            return !reached && encodings[Int(handle)] == encoding
        }) { packet in
            if let buffer = handles.remove(Int(packet.handle)) { pool.release(buffer) }
        }
        guard gone > 0 else { return }
        pipeline.transportCounters.staleVideoDropped.add(UInt64(gone), ordering: .relaxed)
        pipeline.pacerVideoBacklogBits.store(UInt64(pacer.queuedBytes) * 8, ordering: .relaxed)
    }

    /// Queues a resent packet (stored protected bytes, `peer` set to the asker) in the
    /// pacer's retransmission queue: it leaves after audio and before new video, within
    /// the pacing rate, keeping its original transport-wide number. Over the
    /// retransmission budget the buffer is released and the resend skipped (counted).
    /// False (buffer not taken) when the pacer's handle table is full.
    func enqueueRetransmission(_ buffer: PacketBuffer, now: UInt64) -> Bool {
        let rate = Double(estimate ?? pipeline.configuration.bandwidthEstimation.initialBitrate) * Self.retransmissionShare
        let cap = rate * Double(Self.retransmissionBurstNanoseconds) / 1e9
        retransmissionBudget = min(cap, retransmissionBudget + rate * Double(now &- retransmissionBudgetAt) / 1e9)
        retransmissionBudgetAt = now
        guard retransmissionBudget >= 0 else {
            pipeline.transportCounters.retransmissionsSkipped.add(1, ordering: .relaxed)
            pipeline.pool.release(buffer)
            return true
        }
        retransmissionBudget -= Double(buffer.length * 8)
        guard let handle = handles.insert(buffer) else { return false }
        kinds[handle] = .retransmission
        lengths[handle] = buffer.length
        payloads[handle] = 0
        encodings[handle] = 0
        keyframes[handle] = false
        if let dropped = pacer.enqueue(handle: UInt32(handle), size: buffer.length, kind: .retransmission, now: now),
           let old = handles.remove(Int(dropped.handle)) {
            pipeline.pool.release(old)
            pipeline.transportCounters.droppedPackets.add(1, ordering: .relaxed)
        }
        return true
    }

    private func send(_ buffer: PacketBuffer, handle: Int, now: UInt64) -> Int {
        let kind = kinds[handle]
        if kind == .retransmission {
            // Already protected, numbered and addressed: goes out as it is.
            append(buffer, kind: .retransmission)
            pipeline.videoCounters.retransmissions.add(1, ordering: .relaxed)
            return buffer.length
        }
        let encoding = kind == .audio ? 0 : encodings[handle]
        guard let sender = kind == .audio ? pipeline.audioSender
                : (encoding < videoSenders.count ? videoSenders[encoding] : nil) else {
            pipeline.pool.release(buffer)
            return 0
        }
        let (unwrapped, wire) = numbers.allocate()
        let region = buffer.writableBytes
        region[Self.sequenceOffset] = UInt8(wire >> 8)
        region[Self.sequenceOffset + 1] = UInt8(wire & 0xFF)
        do { try sender.finish(buffer, length: lengths[handle], payloadBytes: payloads[handle]) } catch {
            pipeline.record(error)
            pipeline.pool.release(buffer)
            return 0
        }
        // Indexed: a for-in over the array allocates in debug builds (the capture thread's
        // direct sends run this too, and its turns are counted).
        for index in 0..<legs.count {
            legs[index].history.record(sequenceNumber: unwrapped, sendNanoseconds: now, size: buffer.length, kind: kind)
        }
        noteCluster(unwrapped, bytes: buffer.length, now: now)
        pipeline.transportCounters.pacedPackets.add(1, ordering: .relaxed)
        if kind == .video { out.videoPackets[encoding].append(buffer) }
        return fanOut(buffer, kind: kind, encoding: encoding)
    }

    /// Queues `buffer` for sending: routed, to the peer it carries; relayed, to every
    /// learned destination (copies from the pool for all but the first). Returns the
    /// bytes queued; 0 (and the buffer released) when relayed with no destination yet.
    private func fanOut(_ buffer: PacketBuffer, kind: SentPacketKind, encoding: Int = 0) -> Int {
        guard relayed else {
            append(buffer, kind: kind)
            return buffer.length
        }
        guard let first = legs.first?.address else {
            if kind == .video, out.videoPackets[encoding].last === buffer { out.videoPackets[encoding].removeLast() }
            pipeline.pool.release(buffer)
            pipeline.transportCounters.droppedPackets.add(1, ordering: .relaxed)
            return 0
        }
        if receiverMaster != nil { return fanOutProtected(buffer, kind: kind) }
        buffer.peer = first
        append(buffer, kind: kind)
        var bytes = buffer.length
        for index in legs.indices.dropFirst() {  // indexed, as in `estimate`
            let leg = legs[index]
            guard let address = leg.address, let copy = pipeline.pool.take() else { continue }
            guard copy.assign(UnsafeRawBufferPointer(buffer.bytes)) else {
                pipeline.pool.release(copy)
                continue
            }
            copy.peer = address
            // Copies count as the same kind but are not kept for NACKs (the first is).
            append(copy, kind: kind == .audio ? .audio : (kind == .padding ? .padding : .retransmission))
            bytes += copy.length
        }
        return bytes
    }

    /// Keys per receiver: a copy of the plain `buffer` for each receiver, protected with
    /// that receiver's keys; the plain one is kept for NACKs (video) and released after
    /// the batch's send (`TransportSendBatch.plaintexts`). Cost per receiver: one copy and one protect, as each gets a copy anyway.
    private func fanOutProtected(_ buffer: PacketBuffer, kind: SentPacketKind) -> Int {
        out.plaintexts.append(buffer)
        var bytes = 0
        var firstCopy = true
        for index in 0..<legs.count {  // indexed, as in `estimate`
            let leg = legs[index]
            guard let address = leg.address, let contexts = leg.contexts, let copy = pipeline.pool.take() else { continue }
            guard copy.assign(UnsafeRawBufferPointer(buffer.bytes)), protect(copy, with: contexts) else {
                pipeline.pool.release(copy)
                continue
            }
            copy.peer = address
            // Copies after the first count as resends do, as in the shared-key fan-out.
            append(copy, kind: firstCopy || kind == .audio || kind == .padding ? kind : .retransmission)
            firstCopy = false
            bytes += copy.length
        }
        return bytes
    }

    /// Protects the plain RTP packet in `buffer` in place for one receiver.
    private func protect(_ buffer: PacketBuffer, with contexts: RelayedReceiverContexts) -> Bool {
        do { buffer.setLength(try contexts.media.protect(buffer.writableBytes, length: buffer.length)) } catch {
            pipeline.transportCounters.droppedPackets.add(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Keys per receiver: protects a resend (plain bytes from the retransmission store) for
    /// the receiver at `source`. False (nothing to send) for an unknown receiver; true and
    /// nothing done with shared keys (the store holds protected bytes then).
    func protectResend(_ buffer: PacketBuffer, for source: SocketAddress?) -> Bool {
        guard receiverMaster != nil else { return true }
        guard let contexts = leg(for: source)?.contexts else { return false }
        return protect(buffer, with: contexts)
    }

    /// Into `out`, which `fillOut` keeps room in (`slotsPerPacket`); a buffer that finds
    /// none anyway is dropped (counted) rather than sent under the lock.
    private func append(_ buffer: PacketBuffer, kind: SentPacketKind) {
        guard !out.isFull else {
            pipeline.pool.release(buffer)
            pipeline.transportCounters.droppedPackets.add(1, ordering: .relaxed)
            return
        }
        out.add(buffer, kind: kind)
    }

    /// One padding-only probe packet (RFC 3550 5.1: the last padding byte is the count).
    private func sendProbe(size: Int, now: UInt64) -> Int {
        guard let buffer = pipeline.pool.take() else { return 0 }
        let (unwrapped, wire) = numbers.allocate()
        var header = probeSender.nextHeader(timestamp: probeSender.rtpTimestamp(at: now), marker: false)
        var extensions = RTPHeaderExtensions()
        try? TransportSequenceNumbers.append(wire, id: RTPExtensionID.transportWideSequence, to: &extensions)
        header.extensions = extensions
        header.hasPadding = true
        let region = buffer.writableBytes
        let padding = min(255, max(1, size - header.size - Self.trailerBytes))
        do {
            let headerLength = try header.write(into: region)
            let length = try headerLength + RTPHeader.writePadding(padding, into: region, at: headerLength)
            try probeSender.finish(buffer, length: length, payloadBytes: 0)
        } catch {
            pipeline.pool.release(buffer)
            return 0
        }
        buffer.peer = pipeline.configuration.destination
        for index in 0..<legs.count {
            legs[index].history.record(sequenceNumber: unwrapped, sendNanoseconds: now, size: buffer.length, kind: .padding)
        }
        noteCluster(unwrapped, bytes: buffer.length, now: now)
        let bytes = fanOut(buffer, kind: .padding)
        pipeline.transportCounters.probePackets.add(1, ordering: .relaxed)
        pipeline.transportCounters.probeBytes.add(UInt64(bytes), ordering: .relaxed)
        return bytes
    }

    /// Packets still waiting in the pacer go back to the pool (at stop).
    func releaseQueued() {
        while let entry = pipeline.outgoing.pop() { pipeline.pool.release(entry.buffer) }
        for handle in 0..<kinds.count { if let buffer = handles.remove(handle) { pipeline.pool.release(buffer) } }
    }

    // MARK: Feedback

    /// Relayed: notes that authenticated RTCP came from `address` at `now`, adding it as a
    /// destination when there is room. Routed: nothing. Cost: a scan of ≤ 8 legs; a new
    /// leg allocates its estimator once.
    func learn(_ address: SocketAddress?, now: UInt64) {
        guard relayed, receiverMaster == nil, let address else { return }  // per receiver: `authenticateRTCP`
        if let leg = legs.first(where: { $0.address == address }) {
            leg.lastHeard = now
            return
        }
        guard legs.count < pipeline.configuration.relayedDestinationLimit else { return }
        legs.append(PublisherTransportLeg(address: address, configuration: pipeline.configuration.bandwidthEstimation,
                                          now: now))
        pipeline.transportCounters.relayedDestinations.store(UInt64(legs.count), ordering: .relaxed)
        pipeline.requestKeyframe()  // a new receiver needs a keyframe to start
    }

    /// Keys per receiver: authenticates one SRTCP datagram in place and returns its RTCP
    /// length and the address to answer it at, nil when no receiver's keys pass it. The
    /// receiver is found by address, else by the SSRC in the clear header (it may have
    /// moved: its `LegAddressGuard` decides, and until the new address has passed its
    /// probation the answer goes to the current one, so one spoofed datagram under a
    /// receiver's keys cannot point media or resends at a third party), else its keys are
    /// derived and it becomes a destination if it passes (when there is room, and within
    /// `derivationsPerSecond`). Cost: one unprotect; a derivation for a new SSRC.
    func authenticateRTCP(_ buffer: PacketBuffer, length: Int, from source: SocketAddress?,
                          now: UInt64) -> (length: Int, answerAt: SocketAddress)? {
        guard let master = receiverMaster, let source else { return nil }
        func unprotect(_ contexts: RelayedReceiverContexts) -> Int? {
            try? contexts.feedback.unprotectRTCP(buffer.writableBytes, length: length)
        }
        if let leg = legs.first(where: { $0.address == source }), let contexts = leg.contexts {
            guard let plain = unprotect(contexts) else { return nil }
            _ = leg.addressGuard.observe(source, now: now)  // the current path: a pending move is off
            leg.lastHeard = now
            return (plain, source)
        }
        guard let ssrc = SenderSSRC.read(UnsafeRawBufferPointer(buffer.bytes), isRTCP: true), !revoked.contains(ssrc) else {
            return nil
        }
        if let leg = legs.first(where: { $0.contexts?.ssrc == ssrc }), let contexts = leg.contexts {
            guard let plain = unprotect(contexts) else { return nil }
            leg.lastHeard = now
            switch leg.addressGuard.observe(source, now: now) {
            case .moved, .learned:
                pipeline.transportCounters.relayedAddressMoves.add(1, ordering: .relaxed)
            case .held, .unchanged:
                pipeline.transportCounters.relayedAddressHeld.add(1, ordering: .relaxed)
            }
            return (plain, leg.address ?? source)
        }
        guard legs.count < pipeline.configuration.relayedDestinationLimit else { return nil }
        if now &- derivations.since >= 1_000_000_000 { derivations = (0, now) }
        guard derivations.count < Self.derivationsPerSecond else { return nil }
        derivations.count += 1
        // The checking context first: a made-up SSRC costs one context (~1.2 ms), not three.
        let keys = master.relayedReceiver(ssrc: ssrc)
        guard let feedback = try? SRTPSession(keys: keys.receive, direction: .receiver),
              let plain = try? feedback.unprotectRTCP(buffer.writableBytes, length: length),
              let contexts = try? RelayedReceiverContexts(ssrc: ssrc, keys: keys, feedback: feedback, pipeline: pipeline)
        else { return nil }
        legs.append(PublisherTransportLeg(address: source, contexts: contexts,
                                          configuration: pipeline.configuration.bandwidthEstimation, now: now))
        pipeline.transportCounters.relayedDestinations.store(UInt64(legs.count), ordering: .relaxed)
        pipeline.requestKeyframe()  // a new receiver needs a keyframe to start
        return (plain, source)
    }

    /// Drops the legs of receivers the signaling revoked and remembers their SSRCs, so
    /// `authenticateRTCP` refuses them. Cost: a lock and a scan of ≤ 8 legs, per revocation.
    private func applyRevocations(now: UInt64) {
        pipeline.hasRevocations.store(false, ordering: .relaxed)
        let ssrcs = pipeline.revocations.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        guard !ssrcs.isEmpty else { return }
        revoked += ssrcs
        if revoked.count > Self.revokedCapacity { revoked.removeFirst(revoked.count - Self.revokedCapacity) }
        let before = legs.count
        legs.removeAll { leg in leg.contexts.map { ssrcs.contains($0.ssrc) } ?? false }
        guard legs.count != before else { return }
        pipeline.transportCounters.relayedDestinations.store(UInt64(legs.count), ordering: .relaxed)
        updateTargets(now: now)
    }

    /// Whether relayed receivers have keys of their own (`authenticateRTCP` checks SRTCP).
    var keysPerReceiver: Bool { receiverMaster != nil }

    /// Calls `body` with each relayed destination and, with keys per receiver, the RTCP
    /// sender protecting for it (nil: the pipeline's shared one). No allocation.
    func forEachRelayedDestination(_ body: (SocketAddress, RTCPSender?) -> Void) {
        guard relayed else { return }
        for leg in legs { if let address = leg.address { body(address, leg.contexts?.rtcp) } }
    }

    /// Relayed destinations now (routed: empty).
    var relayedDestinations: [SocketAddress] { relayed ? legs.compactMap(\.address) : [] }

    private func leg(for source: SocketAddress?) -> PublisherTransportLeg? {
        relayed ? legs.first { $0.address == source } : legs.first
    }

    /// One transport-wide feedback from `source`: results into that leg's estimator, the
    /// targets updated.
    func onTransportFeedback(_ feedback: TransportWideCCFeedback, from source: SocketAddress?, now: UInt64) {
        guard let leg = leg(for: source) else { return }
        leg.adapter.adapt(feedback, history: &leg.history, now: now, into: &results)
        pipeline.transportCounters.feedbackPackets.add(1, ordering: .relaxed)
        leg.hasFeedback = true
        leg.lastFeedbackAt = now
        guard !results.isEmpty else { return }
        leg.estimator.onTransportFeedback(results, now: now)
        leg.probes.add(results, now: now) { result in
            let counters = pipeline.transportCounters
            if result.rejection == nil { counters.probeClustersMeasured.add(1, ordering: .relaxed) }
            counters.lastProbeBitrate.store(UInt64(max(0, result.bitrate)), ordering: .relaxed)
            if leg.estimator.onProbeResult(result, now: now) { counters.probeClustersApplied.add(1, ordering: .relaxed) }
            probeController.onResult(result, estimate: leg.estimator.targetBitrate, now: now)
        }
        updateTargets(now: now)
    }

    /// A receiver report's fraction lost (0...255) and the round trip it gave, if any.
    func onReceiverReport(fractionLost: UInt8, roundTripNanoseconds: UInt64?, from source: SocketAddress?, now: UInt64) {
        guard let leg = leg(for: source) else { return }
        if let rtt = roundTripNanoseconds { leg.estimator.onRTT(nanoseconds: rtt) }
        leg.estimator.onLossReport(fractionLost: Double(fractionLost) / 256, now: now)
        if leg.hasFeedback { updateTargets(now: now) }
    }

    /// The smallest estimate among legs that gave feedback (nil: none yet).
    private var estimate: Int? {
        var lowest: Int?
        // Indexed: a for-in over the array allocates in debug builds, and the probe check
        // reads this on a capture thread's direct sends too (found by the video loop's
        // allocation test, 2026-12-04).
        for index in 0..<legs.count where legs[index].hasFeedback {
            lowest = min(lowest ?? .max, legs[index].estimator.targetBitrate)
        }
        return lowest
    }

    private func updateTargets(now: UInt64) {
        guard let estimate else { return }
        let video = UInt64(max(0, Double(estimate - audioShare) * Self.videoPayloadShare))
        pipeline.videoTargetBitrate.store(video, ordering: .relaxed)
        let counters = pipeline.transportCounters
        counters.estimate.store(UInt64(estimate), ordering: .relaxed)
        counters.videoTarget.store(video, ordering: .relaxed)
        var lastOveruse: UInt64?
        for index in 0..<legs.count where legs[index].hasFeedback {  // indexed, as in `estimate`
            if let at = legs[index].estimator.lastOveruseNanoseconds { lastOveruse = max(lastOveruse ?? 0, at) }
        }
        let congested = lastOveruse.map { now &- $0 < Self.congestedPacingNanoseconds } ?? false
        basePacingRate = congested ? UInt64(max(estimate, 50_000)) : Self.pacingRate(estimate)
        applyPacingRate(now: now)
    }

    /// `basePacingRate`, or faster when the queue would not drain within
    /// `queueTimeLimitNanoseconds` at it.
    private func applyPacingRate(now: UInt64) {
        let drain = UInt64(pacer.queuedBytes) * 8 * 1_000_000_000 / Self.queueTimeLimitNanoseconds
        // Two-argument `max`s: the variadic one allocates its array in debug builds.
        let rate = max(max(basePacingRate, drain), UInt64(cluster?.request.bitrate ?? 0))
        guard rate != pacer.pacingRate else { return }
        pacer.setPacingRate(rate, now: now)
        pipeline.transportCounters.pacingRate.store(rate, ordering: .relaxed)
    }

    /// Every `probeCheckNanoseconds`: probe (pad up to the estimate) while video sends
    /// less than 3/4 of its target or is off, the estimate is below the maximum, and
    /// feedback answers (no feedback for 2 s: a receiver without it, stop). Never while
    /// audio fallback has video off: the link could not carry video, and padding up to
    /// an estimate whose floor may be above the link (100 kbps over a 60 kbps uplink)
    /// crowded audio out at the bottleneck (15-22 % of its packets lost); probe clusters
    /// (100 ms bursts that a queue absorbs) still show when the link recovers.
    private func updateProbing(now: UInt64) {
        let elapsed = now - windowStart
        let mediaRate = UInt64(windowMediaBytes) * 8 * 1_000_000_000 / max(elapsed, 1)
        windowStart = now
        windowMediaBytes = 0
        expireLegs(now: now)
        let estimate = self.estimate ?? pipeline.configuration.bandwidthEstimation.maxBitrate
        let target = pipeline.videoTargetBitrate.load(ordering: .relaxed)
        let videoOff = !pipeline.videoSwitch.load(ordering: .relaxed) || pipeline.videoSender == nil
        let limited = videoOff || mediaRate * 4 < target * 3
        applicationLimited = limited
        let answering = anyLegAnswering(now: now)
        let padding: UInt64 = limited && answering && estimate < pipeline.configuration.bandwidthEstimation.maxBitrate
            && !pipeline.isVideoSuspendedByFallback ? UInt64(estimate) : 0
        if cluster == nil, padding != pacer.paddingRate {
            pacer.setPaddingRate(padding, now: now)
            pipeline.transportCounters.paddingRate.store(padding, ordering: .relaxed)
        }
    }

    // MARK: Probe clusters

    /// Whether any leg's feedback answers (indexed: `contains(where:)` allocates in debug
    /// builds, and this runs on every pump, a capture thread's direct sends too).
    private func anyLegAnswering(now: UInt64) -> Bool {
        for index in 0..<legs.count where legs[index].isAnswering(now: now) { return true }
        return false
    }

    /// Asks the probe controller for a cluster while feedback answers; starting one paces
    /// at its rate with padding filling up to it.
    private func startCluster(now: UInt64) {
        guard anyLegAnswering(now: now), let estimate else { return }
        var lastOveruse: UInt64?
        var queue: UInt64 = 0
        // Indexed loops here and in the cluster's bookkeeping: a for-in over the array
        // allocates in debug builds, and a capture thread's direct sends run these too.
        for index in 0..<legs.count where legs[index].hasFeedback {
            let leg = legs[index]
            if let at = leg.estimator.lastOveruseNanoseconds { lastOveruse = max(lastOveruse ?? 0, at) }
            queue = max(queue, leg.estimator.state.queueingDelayNanoseconds)
        }
        guard let request = probeController.nextCluster(estimate: estimate, lastOveruse: lastOveruse,
                                                        applicationLimited: applicationLimited,
                                                        queueingDelayNanoseconds: queue,
                                                        pacerQueuedBits: pacer.queuedBytes * 8, now: now) else { return }
        cluster = (request, nil, 0, 0, 0)
        pacer.setPaddingRate(UInt64(request.bitrate), now: now)
        pipeline.transportCounters.paddingRate.store(UInt64(request.bitrate), ordering: .relaxed)
        pipeline.transportCounters.probeClusters.add(1, ordering: .relaxed)
    }

    /// Counts a sent packet into the cluster being sent.
    private func noteCluster(_ sequence: UInt64, bytes: Int, now: UInt64) {
        guard cluster != nil else { return }
        if cluster!.first == nil {
            cluster!.first = sequence
            let request = cluster!.request
            for index in 0..<legs.count {
                legs[index].probes.begin(id: request.id, targetBitrate: request.bitrate, firstSequence: sequence, now: now)
            }
        }
        cluster!.last = sequence
        cluster!.bytes += bytes
        cluster!.packets += 1
    }

    /// Ends the cluster: every leg measures it from its feedback; pacing and padding go
    /// back to their usual rates.
    private func endCluster(now: UInt64) {
        guard let done = cluster else { return }
        cluster = nil
        if done.first != nil {
            for index in 0..<legs.count { legs[index].probes.end(id: done.request.id, lastSequence: done.last, now: now) }
        }
        pacer.setPaddingRate(0, now: now)
        pipeline.transportCounters.paddingRate.store(0, ordering: .relaxed)
        applyPacingRate(now: now)
        updateProbing(now: now)
    }

    /// Relayed: drops destinations not heard from within the timeout.
    private func expireLegs(now: UInt64) {
        guard relayed else { return }
        let timeout = pipeline.configuration.relayedDestinationTimeoutNanoseconds
        var expired = false  // indexed, as in `estimate`: this runs on every probe check
        for index in 0..<legs.count where now &- legs[index].lastHeard > timeout { expired = true }
        if expired {
            legs.removeAll { now &- $0.lastHeard > timeout }
            pipeline.transportCounters.relayedDestinations.store(UInt64(legs.count), ordering: .relaxed)
            updateTargets(now: now)
        }
    }
}
