/// Connects one media leg of a native client to a peer's ICE-lite, DTLS-server media
/// port (the router's one-port edge) on a socket the caller bound: nominating ICE checks
/// until the peer answers one with a success signed with its password, then the DTLS
/// client handshake (`a=setup:active`) with retransmissions until it connects and the
/// peer's certificate matches the fingerprint signaling gave. Returns the SRTP keys the
/// handshake exported, split for this side; no key travels in signaling.
///
/// Blocks the calling thread (not a pipeline thread) until connected, failed or
/// `timeout` passes. Failures are `MediaError(.networkFailure, …)` with a sentence naming
/// the step and the peer's address; no message ever contains a key, and nothing is
/// logged. Datagrams that are not for this connection (late STUN answers, stray bytes)
/// are skipped. Cost: one ~2 ms P-256 handshake, a few small datagrams, two packet
/// buffers; the socket is left open and unconnected for the pipeline that follows.
public struct ICEClientConnector: Sendable {
    /// The socket the leg uses from now on (checks, DTLS, then media).
    public let socket: UDPSocket
    /// The far end: address, ICE credentials, certificate fingerprint.
    public let peer: ICEPeer
    /// This side's ICE credentials (what signaling told the peer).
    public let local: ICECredentials
    /// This side's DTLS context (its certificate's fingerprint went to the peer).
    public let context: DTLSContext
    /// The clock the deadlines run on.
    public let clock: any MediaClock
    /// Time between nominating checks while the peer has not answered (50 ms).
    public var checkInterval: UInt64 = 50_000_000

    /// A connector for `peer` on `socket`; nothing is sent before `connect`.
    public init(socket: UDPSocket, peer: ICEPeer, local: ICECredentials, context: DTLSContext,
                clock: any MediaClock = SystemMediaClock()) {
        self.socket = socket
        self.peer = peer
        self.local = local
        self.context = context
        self.clock = clock
    }

    /// Runs ICE then DTLS, both within `timeout` nanoseconds from now, and returns the
    /// leg's SRTP keys (`send` = this side's exported keys, `receive` = the peer's).
    /// Throws `MediaError(.networkFailure, …)` when the peer does not answer the checks in
    /// time, the handshake fails (a wrong certificate, no common SRTP profile, an alert)
    /// or does not finish in time, or the socket fails.
    public func connect(timeout: UInt64 = 10_000_000_000) throws(MediaError) -> SRTPLegKeys {
        let deadline = clock.nanoseconds() &+ timeout
        let io = ConnectorIO(socket: socket, peer: peer.address, clock: clock)
        try checkICE(io, deadline: deadline, timeout: timeout)
        return try handshake(io, deadline: deadline, timeout: timeout)
    }

    /// Sends a nominating check every `checkInterval` until an authenticated success for
    /// one of them arrives.
    private func checkICE(_ io: ConnectorIO, deadline: UInt64, timeout: UInt64) throws(MediaError) {
        let checks = ICEControllingCheck(peer: peer.credentials, local: local)
        var sent: [STUNTransactionID] = []
        while clock.nanoseconds() < deadline {
            let transaction = STUNTransactionID.random()
            sent.append(transaction)
            if sent.count > 64 { sent.removeFirst() }
            try io.send { buffer throws(MediaError) in
                do { return try checks.write(into: buffer, transaction: transaction, nominate: true) } catch {
                    throw MediaError(.networkFailure, "cannot write an ICE check: \(error)")
                }
            }
            let until = min(deadline, clock.nanoseconds() &+ checkInterval)
            while let datagram = try io.receive(until: until) {
                guard PacketClassifier.classify(datagram) == .stun, let answered = checks.authenticatedSuccess(datagram),
                      sent.contains(answered) else { continue }
                return
            }
        }
        throw MediaError(.networkFailure, "no ICE answer from the media server at \(peer.address) within \(Self.seconds(timeout)) s "
            + "(checks signed for ufrag \(peer.credentials.ufrag)); is its media port reachable over UDP?")
    }

    /// The DTLS client handshake: flights, retransmissions, the fingerprint check.
    private func handshake(_ io: ConnectorIO, deadline: UInt64, timeout: UInt64) throws(MediaError) -> SRTPLegKeys {
        let now = clock.nanoseconds()
        let left = deadline > now ? deadline - now : 1
        let dtls: DTLSTransport
        do { dtls = try DTLSTransport(context: context, role: .client, remoteFingerprint: peer.fingerprint, handshakeTimeout: left) } catch {
            throw MediaError(.networkFailure, "cannot start a DTLS handshake: \(error)")
        }
        dtls.start(now: now)
        try flush(dtls, io)
        while !dtls.state.isFinal, dtls.state != .connected {
            let wake = min(deadline, dtls.nextTimeout(now: clock.nanoseconds()) ?? deadline)
            if let datagram = try io.receive(until: wake) {
                if PacketClassifier.classify(datagram) == .dtls { dtls.receive(datagram, now: clock.nanoseconds()) }
            } else {
                dtls.handleTimeout(now: clock.nanoseconds())
                if dtls.state == .handshaking || dtls.state == .new, clock.nanoseconds() >= deadline { break }
            }
            try flush(dtls, io)
        }
        guard dtls.state == .connected, let keys = dtls.srtpKeys else {
            let reason: String
            switch dtls.state {
            case let .failed(failure): reason = "\(failure)"
            case .closed: reason = "the media server closed the association"
            default: reason = "it did not finish within \(Self.seconds(timeout)) s"
            }
            dtls.close()
            throw MediaError(.networkFailure, "the DTLS handshake with the media server at \(peer.address) failed: \(reason)")
        }
        return SRTPLegKeys(send: keys.local, receive: keys.remote)
    }

    private func flush(_ dtls: DTLSTransport, _ io: ConnectorIO) throws(MediaError) {
        for index in 0 ..< dtls.outgoingCount {
            let datagram = dtls.outgoingDatagram(index)
            try io.send { buffer throws(MediaError) in
                guard datagram.count <= buffer.count else {
                    throw MediaError(.networkFailure, "a DTLS datagram of \(datagram.count) bytes does not fit the send buffer")
                }
                buffer.copyMemory(from: datagram)
                return datagram.count
            }
        }
    }

    static func seconds(_ nanoseconds: UInt64) -> String {
        let tenths = (nanoseconds + 50_000_000) / 100_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// The connector's two packet buffers and the blocking send/receive around them.
private final class ConnectorIO {
    let socket: UDPSocket
    let peer: SocketAddress
    let clock: any MediaClock
    let receiveBuffers: [PacketBuffer]
    let sendBuffers: [PacketBuffer]
    let receiveBatch = UDPMessageBatch(capacity: 1)
    let sendBatch = UDPMessageBatch(capacity: 1)

    init(socket: UDPSocket, peer: SocketAddress, clock: any MediaClock) {
        self.socket = socket
        self.peer = peer
        self.clock = clock
        let pool = PacketBufferPool(initialCount: 2, maximumCount: 2, bufferSize: 2_048, headroom: 0)
        receiveBuffers = [pool.take()!]
        sendBuffers = [pool.take()!]
    }

    /// Writes one datagram with `fill` (returns its size) and sends it to the peer.
    func send(_ fill: (UnsafeMutableRawBufferPointer) throws(MediaError) -> Int) throws(MediaError) {
        let buffer = sendBuffers[0]
        buffer.reset()
        let count = try fill(buffer.writableBytes)
        buffer.setLength(count)
        buffer.peer = peer
        do { _ = try socket.send(sendBuffers, maximum: 1, batch: sendBatch) } catch {
            throw MediaError(.networkFailure, "cannot send to the media server at \(peer): \(error)")
        }
    }

    /// The next datagram from the peer before `deadline` (others are skipped), or nil.
    /// The bytes are valid until the next call.
    func receive(until deadline: UInt64) throws(MediaError) -> UnsafeRawBufferPointer? {
        do {
            while true {
                let result = try socket.receive(into: receiveBuffers, batch: receiveBatch)
                let buffer = receiveBuffers[0]
                if result.count > 0 {
                    if buffer.peer == peer, !buffer.isTruncated { return UnsafeRawBufferPointer(buffer.bytes) }
                    continue
                }
                let now = clock.nanoseconds()
                guard now < deadline else { return nil }
                _ = try socket.waitUntilReadable(timeoutNanoseconds: deadline - now)
            }
        } catch {
            throw MediaError(.networkFailure, "cannot receive from the media server at \(peer): \(error)")
        }
    }
}
