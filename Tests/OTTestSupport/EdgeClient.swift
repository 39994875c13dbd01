import Glibc
import OTMedia

/// A native client of the router's one-port media edge, written for tests with the
/// project's own parts and real sockets: ICE as the controlling agent (Binding requests
/// with USE-CANDIDATE, MESSAGE-INTEGRITY and FINGERPRINT from `STUNBinding`), then a
/// `DTLSTransport` as the client (`a=setup:active`) with its own certificate, then
/// `SRTPSession`s from the exported keys.
///
/// All it learns about the edge is `EdgeClient.EdgeOffer` (address, ICE ufrag/password,
/// certificate fingerprint) and all it gives back is `offer` (its ufrag, password and
/// fingerprint): the same three things an SDP carries, and no SRTP key.
///
/// Driven by the test's thread, blocking with timeouts; not thread-safe.
public final class EdgeClient: @unchecked Sendable {
    /// What the edge side tells this client (what its SDP answer would say): the library's
    /// `ICEPeer` (address, ICE credentials, certificate fingerprint).
    public typealias EdgeOffer = ICEPeer

    /// What this client tells the edge through signaling (what its SDP would say).
    public struct ClientOffer: Sendable, Equatable {
        /// The client's ICE ufrag.
        public let ufrag: String
        /// The client's ICE password.
        public let password: String
        /// The client's certificate fingerprint.
        public let fingerprint: DTLSFingerprint
    }

    /// A step that did not finish in time or failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// The edge as this client was told about it.
    public let edge: EdgeOffer
    /// This client's ICE credentials.
    public let credentials: ICECredentials
    /// This client's certificate.
    public let certificate: DTLSCertificate
    /// The client's socket (its own port on 127.0.0.1 unless told otherwise).
    public private(set) var socket: UDPSocket
    /// The DTLS transport, once `handshake` ran.
    public private(set) var transport: DTLSTransport?
    private let context: DTLSContext
    private var sender: SRTPSession?
    private var receiver: SRTPSession?
    private let receiveBuffers: [PacketBuffer]
    private let receiveBatch = UDPMessageBatch(capacity: 1)
    private let sendBuffers: [PacketBuffer]
    private let sendBatch = UDPMessageBatch(capacity: 1)
    private let clock = SystemMediaClock()
    private let tieBreaker = UInt64.random(in: 1 ... UInt64.max)

    /// A client for `edge`, with fresh credentials and certificate unless given, on a new
    /// socket bound to `bind` (loopback, any port).
    public init(edge: EdgeOffer, credentials: ICECredentials = .generate(), certificate: DTLSCertificate? = nil,
                bind: SocketAddress = .ipv4Loopback()) throws {
        self.edge = edge
        self.credentials = credentials
        let own = try certificate ?? DTLSCertificate(commonName: "EdgeClient")
        self.certificate = own
        context = try DTLSContext(certificate: own)
        socket = try UDPSocket(bindingTo: bind)
        let pool = PacketBufferPool(initialCount: 2, maximumCount: 2, bufferSize: 2_048, headroom: 0)
        receiveBuffers = [pool.take()!]
        sendBuffers = [pool.take()!]
    }

    /// Moves the client to a new socket on another port (a NAT rebinding, a network
    /// change), keeping its ICE, DTLS and SRTP state.
    public func rebind(to address: SocketAddress = .ipv4Loopback()) throws {
        let old = socket
        socket = try UDPSocket(bindingTo: address)
        old.close()
    }

    /// What goes to the edge through signaling: ufrag, password, fingerprint.
    public var offer: ClientOffer {
        ClientOffer(ufrag: credentials.ufrag, password: credentials.password, fingerprint: certificate.fingerprint)
    }

    /// The SRTP keys the handshake exported (for tests that look for them elsewhere).
    public var keys: DTLSSRTPKeys? { transport?.srtpKeys }

    /// ICE, DTLS and SRTP in turn; throws `Failure` when a step does not finish in `timeout`
    /// seconds.
    public func connect(timeout: Double = 10) throws {
        guard try checkICE(timeout: timeout) else { throw Failure(description: "no ICE answer from \(edge.address)") }
        let state = try handshake(timeout: timeout)
        guard state == .connected else { throw Failure(description: "DTLS ended \(state)") }
    }

    /// Writes a Binding request as this client would send it; `integrityKey` and `username`
    /// default to the right ones (tests pass wrong ones).
    public func bindingRequest(nominate: Bool = true, username: String? = nil, integrityKey: String? = nil,
                               transactionID: STUNTransactionID = .random()) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 512)
        let name = username ?? "\(edge.credentials.ufrag):\(credentials.ufrag)"
        let key = Array((integrityKey ?? edge.credentials.password).utf8)
        let count = try bytes.withUnsafeMutableBytes { buffer in
            try key.withUnsafeBytes { key in
                try STUNBinding.writeRequest(into: buffer, transactionID: transactionID, username: name, priority: 0x6E00_1EFF,
                                             tieBreaker: tieBreaker, nominate: nominate, integrityKey: key)
            }
        }
        return Array(bytes.prefix(count))
    }

    /// Sends nominating checks every 50 ms until one gets a success response whose
    /// integrity the edge's password verifies; false after `timeout` seconds.
    public func checkICE(nominate: Bool = true, timeout: Double = 5) throws -> Bool {
        let deadline = clock.nanoseconds() + UInt64(timeout * 1e9)
        while clock.nanoseconds() < deadline {
            let transaction = STUNTransactionID.random()
            try sendRaw(try bindingRequest(nominate: nominate, transactionID: transaction))
            let until = min(deadline, clock.nanoseconds() + 50_000_000)
            while let datagram = try receiveRaw(until: until) {
                if isSuccess(datagram, for: transaction) { return true }
            }
        }
        return false
    }

    /// True when `datagram` is a Binding success for `transaction` signed with the edge's password.
    public func isSuccess(_ datagram: [UInt8], for transaction: STUNTransactionID) -> Bool {
        datagram.withUnsafeBytes { raw in
            guard let message = try? STUNMessage(parsing: raw), message.type == .bindingSuccess,
                  message.transactionID == transaction else { return false }
            let key = Array(edge.credentials.password.utf8)
            return key.withUnsafeBytes { message.verifyIntegrity(in: raw, key: $0) }
        }
    }

    /// Runs the DTLS client handshake (after ICE) until it connects or fails, or `timeout`
    /// seconds pass; makes the SRTP sessions when it connects. Returns the final state.
    /// `remoteFingerprint` defaults to the edge's (tests pass a wrong one).
    @discardableResult
    public func handshake(timeout: Double = 10, remoteFingerprint: DTLSFingerprint? = nil) throws -> DTLSState {
        let dtls = try DTLSTransport(context: context, role: .client, remoteFingerprint: remoteFingerprint ?? edge.fingerprint)
        transport = dtls
        let deadline = clock.nanoseconds() + UInt64(timeout * 1e9)
        dtls.start(now: clock.nanoseconds())
        try flushDTLS(dtls)
        while clock.nanoseconds() < deadline {
            if dtls.state == .connected || dtls.state.isFinal { break }
            let wake = min(deadline, dtls.nextTimeout(now: clock.nanoseconds()) ?? deadline)
            if let datagram = try receiveRaw(until: wake) {
                if let first = datagram.first, (20 ... 63).contains(first) {
                    datagram.withUnsafeBytes { _ = dtls.receive($0, now: clock.nanoseconds()) }
                }
            } else {
                dtls.handleTimeout(now: clock.nanoseconds())
            }
            try flushDTLS(dtls)
        }
        if dtls.state == .connected, let keys = dtls.srtpKeys {
            sender = try keys.makeSender()
            receiver = try keys.makeReceiver()
        }
        return dtls.state
    }

    /// Sends the ClientHello of a handshake that is never continued (a stalled peer);
    /// returns the transport so the test can keep it alive.
    public func sendClientHelloOnly() throws -> DTLSTransport {
        let dtls = try DTLSTransport(context: context, role: .client, remoteFingerprint: edge.fingerprint)
        dtls.start(now: clock.nanoseconds())
        try flushDTLS(dtls)
        return dtls
    }

    /// Protects `rtp` as SRTP and sends it to the edge.
    public func sendRTP(_ rtp: [UInt8]) throws { try sendProtected(rtp, isRTCP: false) }

    /// Protects `rtcp` as SRTCP and sends it to the edge.
    public func sendRTCP(_ rtcp: [UInt8]) throws { try sendProtected(rtcp, isRTCP: true) }

    /// Protects each of `packets` as SRTP and sends them all to the edge with one
    /// segmented (UDP GSO) send, so the kernel carries them as one message: what an edge
    /// with receive coalescing reads as one. Their lengths must match (the last may be
    /// shorter). The auth tag of the packets at `corrupt` positions gets a bit flipped.
    /// Returns how many datagrams the socket sent inside segmented messages.
    @discardableResult
    public func sendRTPRun(_ packets: [[UInt8]], corrupt: Set<Int> = []) throws -> Int {
        guard let sender else { throw Failure(description: "not connected") }
        let pool = PacketBufferPool(initialCount: packets.count, maximumCount: packets.count, bufferSize: 2_048, headroom: 0)
        let buffers = packets.map { _ in pool.take()! }
        defer { for buffer in buffers { pool.release(buffer) } }
        for (index, packet) in packets.enumerated() {
            let buffer = buffers[index]
            packet.withUnsafeBytes { _ = buffer.assign($0) }
            buffer.setLength(try sender.protect(buffer.writableBytes, length: packet.count))
            if corrupt.contains(index) { buffer.bytes[buffer.length - 1] ^= 0x01 }
            buffer.peer = edge.address
        }
        let before = socket.segmentedDatagramCount
        let result = try socket.sendSegmented(buffers, batch: UDPMessageBatch(capacity: max(1, packets.count)))
        guard result == .processed(packets.count) else { throw Failure(description: "sent \(result) of \(packets.count)") }
        return socket.segmentedDatagramCount - before
    }

    /// Sends `bytes` to the edge as they are.
    public func sendRaw(_ bytes: [UInt8]) throws {
        let buffer = sendBuffers[0]
        buffer.reset()
        bytes.withUnsafeBytes { _ = buffer.assign($0) }
        buffer.peer = edge.address
        _ = try socket.send(sendBuffers, maximum: 1, batch: sendBatch)
    }

    /// The next datagram from anyone before `timeout` seconds pass, or nil.
    public func receiveRaw(timeout: Double) throws -> [UInt8]? {
        try receiveRaw(until: clock.nanoseconds() + UInt64(timeout * 1e9))
    }

    /// The next SRTP or SRTCP packet from the edge, unprotected, before `timeout` seconds
    /// pass (other datagrams are skipped), or nil. Throws what unprotecting throws.
    public func receiveMedia(timeout: Double = 5) throws -> (packet: [UInt8], isRTCP: Bool)? {
        guard let receiver else { throw Failure(description: "not connected") }
        let deadline = clock.nanoseconds() + UInt64(timeout * 1e9)
        while let datagram = try receiveRaw(until: deadline) {
            var bytes = datagram
            let kind = bytes.withUnsafeBytes { PacketClassifier.classify($0) }
            guard kind == .rtp || kind == .rtcp else { continue }
            let length = try bytes.withUnsafeMutableBytes { raw in
                kind == .rtcp ? try receiver.unprotectRTCP(raw, length: raw.count) : try receiver.unprotect(raw, length: raw.count)
            }
            return (Array(bytes.prefix(length)), kind == .rtcp)
        }
        return nil
    }

    private func sendProtected(_ packet: [UInt8], isRTCP: Bool) throws {
        guard let sender else { throw Failure(description: "not connected") }
        let buffer = sendBuffers[0]
        buffer.reset()
        packet.withUnsafeBytes { _ = buffer.assign($0) }
        let length = isRTCP ? try sender.protectRTCP(buffer.writableBytes, length: packet.count)
            : try sender.protect(buffer.writableBytes, length: packet.count)
        buffer.setLength(length)
        buffer.peer = edge.address
        _ = try socket.send(sendBuffers, maximum: 1, batch: sendBatch)
    }

    private func flushDTLS(_ dtls: DTLSTransport) throws {
        for index in 0 ..< dtls.outgoingCount { try sendRaw(Array(dtls.outgoingDatagram(index))) }
    }

    private func receiveRaw(until deadline: UInt64) throws -> [UInt8]? {
        while true {
            let result = try socket.receive(into: receiveBuffers, batch: receiveBatch)
            if result.count > 0 { return Array(receiveBuffers[0].bytes) }
            let now = clock.nanoseconds()
            guard now < deadline else { return nil }
            _ = try socket.waitUntilReadable(timeoutNanoseconds: deadline - now)
        }
    }
}
