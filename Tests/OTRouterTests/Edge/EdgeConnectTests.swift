import Glibc
import OTMedia
@testable import OTRouter
import OTTestSupport
import Synchronization
import Testing

/// A native client's leg set up with the library's `ICEClientConnector` (not the test
/// client) against a real `MediaEdge` on loopback: what signaling carries is ufrag,
/// password and fingerprint each way; the keys come from the handshake.
struct EdgeConnectLeg {
    let socket: UDPSocket
    let peer: ICEPeer
    let local: ICECredentials
    let context: DTLSContext

    /// Registers leg `id` at `fixture`'s edge for a fresh client certificate and
    /// credentials, with `peerFingerprint` instead of the edge's when given (a wrong one).
    init(_ fixture: EdgeFixture, id: UInt64, peerFingerprint: DTLSFingerprint? = nil) throws {
        let certificate = try DTLSCertificate(commonName: "EdgeConnectTests")
        context = try DTLSContext(certificate: certificate)
        local = ICECredentials.generate()
        let routerSide = ICECredentials.generate()
        try fixture.edge.register(EdgeLegID(id), EdgeLegDescription(local: routerSide, remoteUfrag: local.ufrag,
                                                                     remotePassword: local.password,
                                                                     remoteFingerprint: certificate.fingerprint))
        peer = ICEPeer(address: fixture.edge.localAddress, credentials: routerSide,
                       fingerprint: peerFingerprint ?? fixture.edge.fingerprint)
        socket = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 1 << 20, sendBufferBytes: 1 << 20)
    }

    var connector: ICEClientConnector { ICEClientConnector(socket: socket, peer: peer, local: local, context: context) }

    /// Sends `packet` protected with `keys.send` to the edge.
    func sendProtected(_ packet: [UInt8], keys: SRTPLegKeys) throws {
        let session = try SRTPSession(keys: keys.send, direction: .sender)
        let pool = PacketBufferPool(initialCount: 1, maximumCount: 1, bufferSize: 2_048, headroom: 0)
        let buffer = try #require(pool.take())
        packet.withUnsafeBytes { _ = buffer.assign($0) }
        buffer.setLength(try session.protect(buffer.writableBytes, length: packet.count))
        buffer.peer = peer.address
        _ = try socket.send([buffer], batch: UDPMessageBatch(capacity: 1))
    }

    /// The next SRTP packet on the socket, unprotected with `keys.receive` (STUN and DTLS skipped).
    func receiveMedia(keys: SRTPLegKeys, timeout: Double = 5) throws -> [UInt8]? {
        let session = try SRTPSession(keys: keys.receive, direction: .receiver)
        let pool = PacketBufferPool(initialCount: 1, maximumCount: 1, bufferSize: 2_048, headroom: 0)
        let buffer = try #require(pool.take())
        let batch = UDPMessageBatch(capacity: 1)
        let clock = SystemMediaClock()
        let deadline = clock.nanoseconds() + UInt64(timeout * 1e9)
        while clock.nanoseconds() < deadline {
            _ = try socket.waitUntilReadable(timeoutNanoseconds: deadline - min(deadline, clock.nanoseconds()))
            guard try socket.receive(into: [buffer], batch: batch).count == 1 else { continue }
            guard PacketClassifier.classify(UnsafeRawBufferPointer(buffer.bytes)) == .rtp else { continue }
            let length = try session.unprotect(buffer.writableBytes, length: buffer.length)
            return Array(buffer.writableBytes.prefix(length))
        }
        return nil
    }
}

@Suite struct EdgeConnectTests {
    /// The connector's keys are the ones the edge derived: SRTP from the client is
    /// unprotected by the edge, and the edge's `send(leg:rtp:)` by the client.
    @Test func connectorKeysMatchTheEdgeBothWays() throws {
        let fixture = try EdgeFixture()
        let leg = try EdgeConnectLeg(fixture, id: 1)
        let keys = try leg.connector.connect()
        let id = EdgeLegID(1)
        #expect(fixture.edge.isConnected(id))
        #expect(fixture.edge.selectedAddress(of: id) == leg.socket.localAddress)

        let up = rtpPacket(sequence: 3, ssrc: 0xABCD, payload: Array(0 ..< 100))
        try leg.sendProtected(up, keys: keys)
        #expect(edgeEventually { fixture.inbox.received(id).count == 1 })
        #expect(fixture.inbox.received(id).first?.bytes == up)

        let down = rtpPacket(sequence: 4, ssrc: 0xBEEF, payload: [7, 7, 7])
        try down.withUnsafeBytes { try fixture.edge.send(leg: id, rtp: $0) }
        #expect(try leg.receiveMedia(keys: keys) == down)
        #expect(fixture.edge.counters.srtpAuthFailures == 0)
    }

    /// A router presenting another certificate than signaling announced is refused, with
    /// a sentence that says so (and no key in it).
    @Test func aWrongRouterFingerprintFailsClearly() throws {
        let fixture = try EdgeFixture(workers: 1)
        let other = try DTLSCertificate(commonName: "impostor")
        let leg = try EdgeConnectLeg(fixture, id: 1, peerFingerprint: other.fingerprint)
        let error = #expect(throws: MediaError.self) { _ = try leg.connector.connect(timeout: 5_000_000_000) }
        #expect(error?.code == .networkFailure)
        #expect(error?.message.contains("DTLS handshake") == true)
        #expect(error?.message.contains("fingerprint") == true)
        #expect(error?.message.contains(fixture.edge.fingerprint.sdpValue) == true)
    }

    /// A port that never answers: the connector gives up at its deadline with an ICE error.
    @Test func noAnswerTimesOut() throws {
        let silent = try UDPSocket(bindingTo: .ipv4Loopback())
        defer { silent.close() }
        let socket = try UDPSocket(bindingTo: .ipv4Loopback())
        let context = try DTLSContext(certificate: DTLSCertificate())
        let peer = ICEPeer(address: silent.localAddress, credentials: .generate(),
                           fingerprint: try #require(DTLSFingerprint(sha256: Array(repeating: 1, count: 32))))
        let connector = ICEClientConnector(socket: socket, peer: peer, local: .generate(), context: context)
        let error = #expect(throws: MediaError.self) { _ = try connector.connect(timeout: 300_000_000) }
        #expect(error?.code == .networkFailure)
        #expect(error?.message.contains("no ICE answer") == true)
        // It did send checks there (it is the silence that failed it).
        let pool = PacketBufferPool(initialCount: 1, maximumCount: 1, bufferSize: 2_048, headroom: 0)
        let buffer = try #require(pool.take())
        #expect(try silent.receive(into: [buffer], batch: UDPMessageBatch(capacity: 1)).count == 1)
        #expect(PacketClassifier.classify(UnsafeRawBufferPointer(buffer.bytes)) == .stun)
    }
}
