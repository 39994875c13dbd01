import CUDP
import Glibc
import OTMedia
import Synchronization

/// One worker of a `MediaEdge`: its own `SO_REUSEPORT` socket on the shared port, read
/// with `recvmmsg` into buffers allocated once, each datagram sorted by its first byte
/// (RFC 7983) and handed to its leg: STUN to the leg's ICE agent (found by USERNAME),
/// DTLS to its transport and RTP/RTCP to its SRTP session (both found by the sender's
/// address). Answers (STUN responses, DTLS flights) are collected and sent with one
/// `sendmmsg` after each batch. Worker 0 also runs the timers (`tick`). With receive
/// coalescing (UDP GRO) a message may carry a run of one peer's datagrams; each is cut
/// out in place and takes the same path as a datagram read alone.
///
/// Used by its own thread only (`@unchecked Sendable` to hand it over). Steady state
/// (SRTP in, plain RTP out to the handler) allocates nothing here.
final class EdgeWorker: @unchecked Sendable {
    let index: Int
    let socket: UDPSocket
    let core: EdgeCore
    private let receiveBuffers: [PacketBuffer]
    private let receiveBatch: UDPMessageBatch
    private let outBuffers: [PacketBuffer]
    private let sendBatch: UDPMessageBatch
    private var outCount = 0
    private let response: UnsafeMutableRawBufferPointer
    private var lastTick: UInt64
    /// Endings noticed under a leg's lock, told to the router once it is released.
    private var endings: [(EdgeLeg, EdgeLegEnding)] = []
    /// Sender sessions made under a leg's lock for its sink, handed over once it is released.
    private var keyed: [(any EdgeLegSink, SRTPSession)] = []
    /// Sinks handed packets in this batch: told once it is done (`edgeBatchEnded`), so a
    /// burst wakes a forwarding thread once, not per packet. Capacity kept between batches.
    private var touched: [any EdgeLegSink] = []

    /// Room for answers between two flushes; a flush happens before a packet when less
    /// than `flightRoom` is left, so nothing is sent while a leg's lock is held.
    private static let outCapacity = 64
    private static let flightRoom = 16

    init(index: Int, socket: UDPSocket, core: EdgeCore) {
        self.index = index
        self.socket = socket
        self.core = core
        // A coalesced message is up to 64 KB; one cut by a short buffer is lost whole.
        let size = socket.usesReceiveCoalescing ? 65_535 : core.configuration.maximumPacketBytes + 64
        let batch = core.configuration.batchSize
        let inPool = PacketBufferPool(initialCount: batch, maximumCount: batch, bufferSize: size + 64, headroom: 0)
        receiveBuffers = (0 ..< batch).map { _ in inPool.take()! }
        receiveBatch = UDPMessageBatch(capacity: batch)
        let outPool = PacketBufferPool(initialCount: Self.outCapacity, maximumCount: Self.outCapacity,
                                       bufferSize: DTLSTransport.mtu + 200, headroom: 0)
        outBuffers = (0 ..< Self.outCapacity).map { _ in outPool.take()! }
        sendBatch = UDPMessageBatch(capacity: Self.outCapacity)
        response = .allocate(byteCount: 128, alignment: 8)
        lastTick = core.clock.nanoseconds()
    }

    deinit { response.deallocate() }

    /// The worker's loop: wait up to `pollInterval`, read batches until the socket is
    /// empty, run the timers (worker 0), until the edge stops or the socket closes.
    func run() {
        _ = "otk-edge-\(index)".withCString { CUDP_set_thread_name($0) }  // as top -H and perf show it
        var cpuClock = clockid_t()
        if pthread_getcpuclockid(pthread_self(), &cpuClock) == 0 { core.workerClocks.withLock { $0.append(cpuClock) } }
        let configuration = core.configuration
        while !core.stopping.load(ordering: .relaxed) {
            let readable: Bool
            do { readable = try socket.waitUntilReadable(timeoutNanoseconds: configuration.pollInterval) } catch { return }
            if readable {
                var rounds = 0
                while rounds < 64 {
                    rounds += 1
                    let result: IOResult
                    do { result = try socket.receive(into: receiveBuffers, batch: receiveBatch) } catch { return }
                    let count = result.count
                    if count == 0 { break }
                    let now = core.clock.nanoseconds()
                    for position in 0 ..< count { handle(receiveBuffers[position], now: now) }
                    flush()
                    endBatch()
                    if count < receiveBuffers.count { break }
                }
            }
            if index == 0 {
                let now = core.clock.nanoseconds()
                if now &- lastTick >= configuration.tickInterval {
                    lastTick = now
                    tick(now: now)
                }
            }
        }
    }

    // MARK: - Per datagram

    /// One message `datagram` from `source` through the same path `run` takes for a batch
    /// of one (cut at `segmentSize` as a coalesced message is when it is not 0, classify,
    /// hand over, send the answers, end the batch), without reading the socket: the seam
    /// the edge's fuzz target (`Fuzz/EdgeDatagramFuzz.swift`) drives. Uses the first
    /// receive buffer; a message too large for it counts as a truncated one.
    func handle(_ datagram: UnsafeRawBufferPointer, from source: SocketAddress, segmentSize: Int = 0, now: UInt64) {
        let buffer = receiveBuffers[0]
        buffer.reset()
        buffer.isTruncated = !buffer.assign(datagram)
        buffer.segmentSize = max(0, segmentSize)
        buffer.peer = source
        handle(buffer, now: now)
        flush()
        endBatch()
    }

    /// One received message: a datagram, or a coalesced run of them cut at its segment
    /// size (every one but the last that long). A datagram longer than
    /// `maximumPacketBytes` is dropped as the kernel's truncation would have dropped it.
    private func handle(_ buffer: PacketBuffer, now: UInt64) {
        let counters = core.counters
        guard !buffer.isTruncated, let source = buffer.peer else {
            counters.unknownPackets.add(1, ordering: .relaxed)
            return
        }
        let bytes = buffer.bytes
        let limit = core.configuration.maximumPacketBytes
        let size = buffer.segmentSize
        guard size > 0, size < bytes.count else {
            if bytes.count > limit {
                counters.unknownPackets.add(1, ordering: .relaxed)
            } else {
                handle(bytes, from: source, receivedAt: buffer.receiveTimestamp, now: now)
            }
            return
        }
        guard size <= limit else {
            counters.unknownPackets.add((bytes.count + size - 1) / size, ordering: .relaxed)
            return
        }
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + size, bytes.count)
            handle(UnsafeMutableRawBufferPointer(rebasing: bytes[offset ..< end]), from: source,
                   receivedAt: buffer.receiveTimestamp, now: now)
            offset = end
        }
    }

    /// One datagram from `source`, sorted by its first byte (RFC 7983). `bytes` may be
    /// rewritten in place (SRTP is unprotected there).
    private func handle(_ bytes: UnsafeMutableRawBufferPointer, from source: SocketAddress, receivedAt: UInt64, now: UInt64) {
        let counters = core.counters
        if outCount > Self.outCapacity - Self.flightRoom { flush() }
        let datagram = UnsafeRawBufferPointer(bytes)
        switch PacketClassifier.classify(datagram) {
        case .stun:
            counters.stunPackets.add(1, ordering: .relaxed)
            handleSTUN(datagram, from: source, now: now)
        case .dtls:
            counters.dtlsPackets.add(1, ordering: .relaxed)
            handleDTLS(datagram, from: source, now: now)
        case .rtp:
            counters.rtpPackets.add(1, ordering: .relaxed)
            handleMedia(bytes, from: source, isRTCP: false, receivedAt: receivedAt)
        case .rtcp:
            counters.rtcpPackets.add(1, ordering: .relaxed)
            handleMedia(bytes, from: source, isRTCP: true, receivedAt: receivedAt)
        case .zrtp, .turnChannel, .unknown:
            counters.unknownPackets.add(1, ordering: .relaxed)
        }
        if !endings.isEmpty || !keyed.isEmpty { tellEndings() }
    }

    /// Hands the collected endings to the router's handler (outside every lock).
    private func tellEndings() {
        for (sink, sender) in keyed { sink.edgeKeyed(sender: sender) }
        keyed.removeAll()
        let told = endings
        endings.removeAll()
        for (leg, ending) in told {
            leg.sink?.edgeEnded(ending)
            core.ended?(leg.id, ending)
        }
    }

    /// STUN: the leg by the USERNAME's first half, then its agent checks and answers.
    private func handleSTUN(_ datagram: UnsafeRawBufferPointer, from source: SocketAddress, now: UInt64) {
        let counters = core.counters
        guard let message = try? STUNMessage(parsing: datagram), message.type == .bindingRequest else {
            counters.stunMalformed.add(1, ordering: .relaxed)
            return
        }
        guard let range = message.username, range.lowerBound >= 0, range.upperBound <= datagram.count else {
            counters.stunUnknownUfrag.add(1, ordering: .relaxed)
            return
        }
        var colon = range.lowerBound
        while colon < range.upperBound, datagram[colon] != UInt8(ascii: ":") { colon += 1 }
        guard colon < range.upperBound, colon > range.lowerBound,
              let leg = core.registry.leg(ufrag: String(decoding: UnsafeRawBufferPointer(rebasing: datagram[range.lowerBound ..< colon]),
                                                        as: UTF8.self))
        else {
            counters.stunUnknownUfrag.add(1, ordering: .relaxed)
            return
        }
        let response = self.response
        let (result, previous) = leg.state.withLock { state in
            let previous = state.agent.selectedAddress(of: leg.id)
            let result = state.agent.handle(datagram, from: source, now: now, response: response)
            // Cleared under the state lock, as `tick` sets it: the two cannot cross.
            if case let .respond(_, event) = result, event.consentRestored { leg.sender.withLock { $0.lapsed = false } }
            return (result, previous)
        }
        switch result {
        case let .drop(reason):
            switch reason {
            case .unknownUfrag: counters.stunUnknownUfrag.add(1, ordering: .relaxed)
            case .badIntegrity, .badFingerprint: counters.stunBadSignature.add(1, ordering: .relaxed)
            default: counters.stunMalformed.add(1, ordering: .relaxed)
            }
        case let .respond(byteCount, event):
            counters.stunAnswered.add(1, ordering: .relaxed)
            queue(UnsafeRawBufferPointer(rebasing: response[0 ..< byteCount]), to: source)
            if event.change != .checked {
                core.registry.select(leg, address: source, previous: previous)
                leg.sender.withLock { $0.address = source }
                leg.sink?.edgeSelected(source)
            }
            if event.consentRestored {
                // Same leg, address and keys: sending just resumes.
                counters.consentRestored.add(1, ordering: .relaxed)
                leg.sink?.edgeConsent(true)
            }
        }
    }

    /// DTLS from the leg that selected `source`: a ClientHello starts an admitted
    /// handshake; the rest goes to the leg's transport.
    private func handleDTLS(_ datagram: UnsafeRawBufferPointer, from source: SocketAddress, now: UInt64) {
        let counters = core.counters
        guard let leg = core.registry.leg(at: source) else {
            counters.dtlsGarbage.add(1, ordering: .relaxed)
            return
        }
        leg.state.withLock { state in
            if state.dtls == nil {
                guard !state.dtlsEnded, Self.isClientHello(datagram) else {
                    counters.dtlsGarbage.add(1, ordering: .relaxed)
                    return
                }
                guard core.admission.admit(from: source) else {
                    counters.handshakesRefused.add(1, ordering: .relaxed)
                    return
                }
                state.admittedFrom = source
                do {
                    state.dtls = try DTLSTransport(context: core.context, role: .server,
                                                   remoteFingerprint: leg.description.remoteFingerprint,
                                                   handshakeTimeout: core.configuration.handshakeTimeout)
                } catch {
                    core.releaseAdmission(&state)
                    counters.handshakesFailed.add(1, ordering: .relaxed)
                    return
                }
                counters.handshakesStarted.add(1, ordering: .relaxed)
                state.dtls?.start(now: now)
            }
            guard let dtls = state.dtls else { return }
            let before = Self.garbage(dtls.counters)
            let change = dtls.receive(datagram, now: now)
            if Self.garbage(dtls.counters) != before { counters.dtlsGarbage.add(1, ordering: .relaxed) }
            for position in 0 ..< dtls.outgoingCount { queue(dtls.outgoingDatagram(position), to: source) }
            if let change { apply(change, to: &state, leg: leg) }
        }
    }

    /// SRTP or SRTCP from the leg that selected `source`: unprotected in place, then to the
    /// receive handler (outside the leg's lock).
    private func handleMedia(_ bytes: UnsafeMutableRawBufferPointer, from source: SocketAddress, isRTCP: Bool,
                             receivedAt: UInt64) {
        let counters = core.counters
        guard let leg = core.registry.leg(at: source) else {
            counters.mediaWithoutLeg.add(1, ordering: .relaxed)
            return
        }
        let length = bytes.count
        let plain: Int? = leg.state.withLock { state in
            guard let receiver = state.receiver else {
                counters.mediaWithoutLeg.add(1, ordering: .relaxed)
                return nil
            }
            do {
                return isRTCP ? try receiver.unprotectRTCP(bytes, length: length) : try receiver.unprotect(bytes, length: length)
            } catch {
                counters.srtpAuthFailures.add(1, ordering: .relaxed)
                return nil
            }
        }
        guard let plain else { return }
        counters.mediaDelivered.add(1, ordering: .relaxed)
        let packet = UnsafeRawBufferPointer(rebasing: bytes[0 ..< plain])
        if let sink = leg.sink {
            sink.edgeReceived(packet, isRTCP: isRTCP, receivedAt: receivedAt)
            if touched.last !== sink { touched.append(sink) }
        } else {
            core.receive(leg.id, packet, isRTCP)
        }
    }

    // MARK: - Timers (worker 0)

    /// Consent lapses, DTLS retransmissions and handshake deadlines for every leg at `now`.
    /// A lapsed leg stays registered with its DTLS/SRTP state (RFC 7675 only asks to stop
    /// sending): `send` refuses it and its sink is told, until a valid check restores it.
    func tick(now: UInt64) {
        let counters = core.counters
        var lapsed: [EdgeLeg] = []
        for leg in core.registry.all() {
            if outCount > Self.outCapacity - Self.flightRoom { flush() }
            leg.state.withLock { state in
                if !state.agent.lapse(now: now).isEmpty {
                    leg.sender.withLock { $0.lapsed = true }
                    lapsed.append(leg)
                }
                guard let dtls = state.dtls, let due = dtls.nextTimeout(now: now), due <= now else { return }
                let change = dtls.handleTimeout(now: now)
                if let address = state.agent.selectedAddress(of: leg.id) {
                    for position in 0 ..< dtls.outgoingCount { queue(dtls.outgoingDatagram(position), to: address) }
                }
                if let change { apply(change, to: &state, leg: leg) }
            }
        }
        flush()
        for leg in lapsed {
            counters.consentLapses.add(1, ordering: .relaxed)
            leg.sink?.edgeConsent(false)
        }
        if !endings.isEmpty || !keyed.isEmpty { tellEndings() }
    }

    // MARK: - Helpers

    /// A DTLS state change: keys into SRTP sessions on `.connected`; the transport freed
    /// and counted on failure.
    private func apply(_ change: DTLSState, to state: inout EdgeLegState, leg: EdgeLeg) {
        let counters = core.counters
        switch change {
        case .connected:
            core.releaseAdmission(&state)
            guard let keys = state.dtls?.srtpKeys, let receiver = try? keys.makeReceiver(), let sender = try? keys.makeSender() else {
                counters.handshakesFailed.add(1, ordering: .relaxed)
                state.dtls?.close()
                state.dtls = nil
                state.dtlsEnded = true
                return
            }
            state.receiver = receiver
            // One party protects with these keys: the sink when the router forwards the leg.
            if let sink = leg.sink { keyed.append((sink, sender)) }
            leg.sender.withLock { slot in
                slot.keyed = true
                if leg.sink == nil { slot.session = sender }
            }
            counters.handshakesCompleted.add(1, ordering: .relaxed)
        case let .failed(reason):
            core.releaseAdmission(&state)
            state.dtls = nil
            state.dtlsEnded = true
            if reason == .handshakeTimedOut {
                counters.handshakesTimedOut.add(1, ordering: .relaxed)
            } else {
                counters.handshakesFailed.add(1, ordering: .relaxed)
            }
            endings.append((leg, .handshakeFailed(reason)))
        case .closed:
            core.releaseAdmission(&state)
            state.dtls = nil
            state.dtlsEnded = true
        case .new, .handshaking:
            break
        }
    }

    /// What a transport counts as input it threw away.
    private static func garbage(_ counters: DTLSTransportCounters) -> UInt64 {
        counters.datagramsIgnored &+ counters.rejectedBeforeHandshake &+ counters.recordsDiscarded
            &+ counters.associationErrorsAfterHandshake
    }

    /// A plaintext (epoch 0) handshake record carrying a ClientHello (handshake type 1).
    static func isClientHello(_ datagram: UnsafeRawBufferPointer) -> Bool {
        datagram.count >= 25 && datagram[0] == 22 && datagram[3] == 0 && datagram[4] == 0 && datagram[13] == 1
    }

    /// Copies `bytes` into the next answer buffer, addressed to `address`.
    private func queue(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress) {
        guard outCount < outBuffers.count else { return }
        let buffer = outBuffers[outCount]
        buffer.reset()
        guard buffer.assign(bytes) else { return }
        buffer.peer = address
        outCount += 1
    }

    /// Tells every sink handed packets since the last call that the batch is over.
    private func endBatch() {
        guard !touched.isEmpty else { return }
        for sink in touched { sink.edgeBatchEnded() }
        touched.removeAll(keepingCapacity: true)
    }

    /// Sends the queued answers with one `sendmmsg`.
    private func flush() {
        guard outCount > 0 else { return }
        _ = try? socket.send(outBuffers, maximum: outCount, batch: sendBatch)
        outCount = 0
    }
}
