import OTMedia
import Synchronization

/// One worker of a `MediaEdge`: its own `SO_REUSEPORT` socket on the shared port, read
/// with `recvmmsg` into buffers allocated once, each datagram sorted by its first byte
/// (RFC 7983) and handed to its leg: STUN to the leg's ICE agent (found by USERNAME),
/// DTLS to its transport and RTP/RTCP to its SRTP session (both found by the sender's
/// address). Answers (STUN responses, DTLS flights) are collected and sent with one
/// `sendmmsg` after each batch. Worker 0 also runs the timers (`tick`).
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
    private var endings: [(EdgeLegID, EdgeLegEnding)] = []

    /// Room for answers between two flushes; a flush happens before a packet when less
    /// than `flightRoom` is left, so nothing is sent while a leg's lock is held.
    private static let outCapacity = 64
    private static let flightRoom = 16

    init(index: Int, socket: UDPSocket, core: EdgeCore) {
        self.index = index
        self.socket = socket
        self.core = core
        let size = core.configuration.maximumPacketBytes + 64
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

    private func handle(_ buffer: PacketBuffer, now: UInt64) {
        let counters = core.counters
        guard !buffer.isTruncated, let source = buffer.peer else {
            counters.unknownPackets.add(1, ordering: .relaxed)
            return
        }
        if outCount > Self.outCapacity - Self.flightRoom { flush() }
        let datagram = UnsafeRawBufferPointer(buffer.bytes)
        switch PacketClassifier.classify(datagram) {
        case .stun:
            counters.stunPackets.add(1, ordering: .relaxed)
            handleSTUN(datagram, from: source, now: now)
        case .dtls:
            counters.dtlsPackets.add(1, ordering: .relaxed)
            handleDTLS(datagram, from: source, now: now)
        case .rtp:
            counters.rtpPackets.add(1, ordering: .relaxed)
            handleMedia(buffer, from: source, isRTCP: false)
        case .rtcp:
            counters.rtcpPackets.add(1, ordering: .relaxed)
            handleMedia(buffer, from: source, isRTCP: true)
        case .zrtp, .turnChannel, .unknown:
            counters.unknownPackets.add(1, ordering: .relaxed)
        }
        if !endings.isEmpty { tellEndings() }
    }

    /// Hands the collected endings to the router's handler (outside every lock).
    private func tellEndings() {
        let told = endings
        endings.removeAll()
        guard let ended = core.ended else { return }
        for (leg, ending) in told { ended(leg, ending) }
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
            return (state.agent.handle(datagram, from: source, now: now, response: response), previous)
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
    private func handleMedia(_ buffer: PacketBuffer, from source: SocketAddress, isRTCP: Bool) {
        let counters = core.counters
        guard let leg = core.registry.leg(at: source) else {
            counters.mediaWithoutLeg.add(1, ordering: .relaxed)
            return
        }
        let bytes = buffer.bytes
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
        core.receive(leg.id, UnsafeRawBufferPointer(rebasing: bytes[0 ..< plain]), isRTCP)
    }

    // MARK: - Timers (worker 0)

    /// Consent expiry, DTLS retransmissions and handshake deadlines for every leg at `now`.
    func tick(now: UInt64) {
        let counters = core.counters
        for leg in core.registry.all() {
            if outCount > Self.outCapacity - Self.flightRoom { flush() }
            let expired: Bool = leg.state.withLock { state in
                if !state.agent.expire(now: now).isEmpty { return true }
                guard let dtls = state.dtls, let due = dtls.nextTimeout(now: now), due <= now else { return false }
                let change = dtls.handleTimeout(now: now)
                if let address = state.agent.selectedAddress(of: leg.id) {
                    for position in 0 ..< dtls.outgoingCount { queue(dtls.outgoingDatagram(position), to: address) }
                }
                if let change { apply(change, to: &state, leg: leg) }
                return false
            }
            if expired {
                counters.legsExpired.add(1, ordering: .relaxed)
                core.registry.remove(leg)
                core.tearDown(leg)
                endings.append((leg.id, .consentExpired))
            }
        }
        flush()
        if !endings.isEmpty { tellEndings() }
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
            leg.sender.withLock { $0.session = sender }
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
            endings.append((leg.id, .handshakeFailed(reason)))
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

    /// Sends the queued answers with one `sendmmsg`.
    private func flush() {
        guard outCount > 0 else { return }
        _ = try? socket.send(outBuffers, maximum: outCount, batch: sendBatch)
        outCount = 0
    }
}
