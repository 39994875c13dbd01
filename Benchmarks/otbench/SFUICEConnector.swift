import OTMedia

/// How `otbench sfu`'s clients connect a leg: OTKit's ICE and DTLS pieces put together as
/// `ICEClientConnector` does (nominating checks signed with the SFU's password, then the
/// DTLS client handshake with retransmissions and the fingerprint check), plus what a
/// full ICE agent also does and `ICEClientConnector` does not: it answers the SFU's own
/// Binding requests (USERNAME "<our ufrag>:<its ufrag>", MESSAGE-INTEGRITY with our
/// password, FINGERPRINT) with an authenticated success. Janus needs that: libnice checks
/// the pair from its side even in ICE-lite mode and fails the leg when nobody answers.
/// OTKit's router sends no checks, so both SFUs get the same client.
/// Blocks until connected or `timeout`; cost: one P-256 DTLS handshake, a few datagrams.
struct SFUICEConnector {
    let socket: UDPSocket
    let peer: ICEPeer
    let local: ICECredentials
    let context: DTLSContext

    /// ICE then DTLS within `timeout` nanoseconds; returns the exported keys.
    func connect(timeout: UInt64) throws -> SRTPLegKeys {
        let deadline = MonotonicClock.nanoseconds() &+ timeout
        let pool = PacketBufferPool(initialCount: 2, maximumCount: 2, bufferSize: 2_048, headroom: 0)
        let receiveBuffers = [pool.take()!], sendBuffers = [pool.take()!]
        let receiveBatch = UDPMessageBatch(capacity: 1), sendBatch = UDPMessageBatch(capacity: 1)
        let peerPassword = Array(peer.credentials.password.utf8), ownPassword = Array(local.password.utf8)
        let username = peer.credentials.ufrag + ":" + local.ufrag
        let tieBreaker = UInt64.random(in: 1...UInt64.max)
        let priority: UInt32 = (126 << 24) | (65_535 << 8) | 255

        func send(to address: SocketAddress, _ fill: (UnsafeMutableRawBufferPointer) throws -> Int) throws {
            let buffer = sendBuffers[0]
            buffer.reset()
            buffer.setLength(try fill(buffer.writableBytes))
            buffer.peer = address
            _ = try socket.send(sendBuffers, maximum: 1, batch: sendBatch)
        }
        /// The next datagram from the SFU before `until`; STUN requests are answered here.
        func receive(until: UInt64) throws -> UnsafeRawBufferPointer? {
            while true {
                let result = try socket.receive(into: receiveBuffers, batch: receiveBatch)
                if result.count > 0 {
                    let buffer = receiveBuffers[0]
                    guard let source = buffer.peer, !buffer.isTruncated else { continue }
                    let datagram = UnsafeRawBufferPointer(buffer.bytes)
                    if try answerCheck(datagram, from: source) { continue }
                    if source == peer.address { return datagram }
                    continue
                }
                let now = MonotonicClock.nanoseconds()
                guard now < until else { return nil }
                _ = try socket.waitUntilReadable(timeoutNanoseconds: until - now)
            }
        }
        /// Answers an authenticated Binding request for our ufrag; true when `datagram` was one.
        func answerCheck(_ datagram: UnsafeRawBufferPointer, from source: SocketAddress) throws -> Bool {
            guard PacketClassifier.classify(datagram) == .stun, let message = try? STUNMessage(parsing: datagram),
                  message.type == .bindingRequest else { return false }
            guard message.verifyFingerprint(in: datagram),
                  ownPassword.withUnsafeBytes({ message.verifyIntegrity(in: datagram, key: $0) }),
                  let range = message.username,
                  String(decoding: datagram[range], as: UTF8.self).hasPrefix(local.ufrag + ":") else { return true }
            try send(to: source) { buffer in
                try ownPassword.withUnsafeBytes {
                    try STUNBinding.writeSuccessResponse(into: buffer, transactionID: message.transactionID, mapped: source,
                                                         integrityKey: $0)
                }
            }
            return true
        }

        // ICE: a nominating check every 50 ms until one is answered with an authenticated success.
        var sent: [STUNTransactionID] = []
        var checked = false
        while !checked, MonotonicClock.nanoseconds() < deadline {
            let transaction = STUNTransactionID.random()
            sent.append(transaction)
            try send(to: peer.address) { buffer in
                try peerPassword.withUnsafeBytes {
                    try STUNBinding.writeRequest(into: buffer, transactionID: transaction, username: username, priority: priority,
                                                 tieBreaker: tieBreaker, nominate: true, integrityKey: $0)
                }
            }
            let until = min(deadline, MonotonicClock.nanoseconds() + 50_000_000)
            while let datagram = try receive(until: until) {
                guard PacketClassifier.classify(datagram) == .stun, let message = try? STUNMessage(parsing: datagram),
                      message.type == .bindingSuccess, sent.contains(message.transactionID), message.verifyFingerprint(in: datagram),
                      peerPassword.withUnsafeBytes({ message.verifyIntegrity(in: datagram, key: $0) }) else { continue }
                checked = true
                break
            }
        }
        guard checked else { throw ScenarioError("no ICE answer from the SFU at \(peer.address)") }

        // DTLS client handshake, answering the SFU's checks meanwhile.
        let now = MonotonicClock.nanoseconds()
        let dtls = try DTLSTransport(context: context, role: .client, remoteFingerprint: peer.fingerprint,
                                     handshakeTimeout: deadline > now ? deadline - now : 1)
        func flush() throws {
            for index in 0..<dtls.outgoingCount {
                let datagram = dtls.outgoingDatagram(index)
                try send(to: peer.address) { buffer in
                    buffer.copyMemory(from: datagram)
                    return datagram.count
                }
            }
        }
        _ = dtls.start(now: now)
        try flush()
        while !dtls.state.isFinal, dtls.state != .connected {
            let wake = min(deadline, dtls.nextTimeout(now: MonotonicClock.nanoseconds()) ?? deadline)
            if let datagram = try receive(until: wake) {
                if PacketClassifier.classify(datagram) == .dtls { _ = dtls.receive(datagram, now: MonotonicClock.nanoseconds()) }
            } else {
                _ = dtls.handleTimeout(now: MonotonicClock.nanoseconds())
                if MonotonicClock.nanoseconds() >= deadline { break }
            }
            try flush()
        }
        guard dtls.state == .connected, let keys = dtls.srtpKeys else {
            throw ScenarioError("the DTLS handshake with the SFU at \(peer.address) failed: \(dtls.state)")
        }
        return SRTPLegKeys(send: keys.local, receive: keys.remote)
    }
}
