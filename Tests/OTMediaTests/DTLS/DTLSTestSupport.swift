import Glibc
import OTMedia

/// Certificates, contexts, transports and an in-memory flight pump for the DTLS tests.
enum DTLSTest {
    /// One P-256 certificate per process per role: generating is cheap, but sharing keeps
    /// the tests about the handshake.
    static let clientCertificate = try! DTLSCertificate(commonName: "otkit-test-client")
    static let serverCertificate = try! DTLSCertificate(commonName: "otkit-test-server")

    /// The monotonic clock in nanoseconds (OpenSSL's retransmission timer runs on real
    /// time, so the tests that rely on it pass real time).
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// A client and a server transport that expect each other's certificates, unless told.
    static func pair(clientProfiles: [SRTPProfile] = SRTPProfile.dtlsDefaultOrder,
                     serverProfiles: [SRTPProfile] = SRTPProfile.dtlsDefaultOrder,
                     serverExpects: DTLSFingerprint? = nil, clientExpects: DTLSFingerprint? = nil,
                     handshakeTimeout: UInt64 = DTLSTransport.defaultHandshakeTimeout) throws -> (client: DTLSTransport, server: DTLSTransport) {
        let client = try DTLSTransport(context: DTLSContext(certificate: clientCertificate, srtpProfiles: clientProfiles),
                                       role: .client, remoteFingerprint: clientExpects ?? serverCertificate.fingerprint,
                                       handshakeTimeout: handshakeTimeout)
        let server = try DTLSTransport(context: DTLSContext(certificate: serverCertificate, srtpProfiles: serverProfiles),
                                       role: .server, remoteFingerprint: serverExpects ?? clientCertificate.fingerprint,
                                       handshakeTimeout: handshakeTimeout)
        return (client, server)
    }

    /// Copies of the datagrams the last call on `transport` produced.
    static func outgoing(_ transport: DTLSTransport) -> [[UInt8]] {
        (0..<transport.outgoingCount).map { Array(transport.outgoingDatagram($0)) }
    }

    /// Hands each datagram to `transport`; returns what it answered, in order.
    @discardableResult
    static func deliver(_ datagrams: [[UInt8]], to transport: DTLSTransport, now: UInt64) -> [[UInt8]] {
        var answers: [[UInt8]] = []
        for datagram in datagrams {
            datagram.withUnsafeBytes { _ = transport.receive($0, now: now) }
            answers += outgoing(transport)
        }
        return answers
    }

    /// Runs the handshake in memory with real time until both ends are final or connected,
    /// or `wallLimit` nanoseconds pass. `dropClientFlights` flights the client sends first
    /// (initial or retransmitted) are lost. Returns how many client flights were dropped.
    @discardableResult
    static func handshake(_ client: DTLSTransport, _ server: DTLSTransport, dropClientFlights: Int = 0,
                          wallLimit: UInt64 = 20_000_000_000) -> Int {
        let begin = now()
        var dropped = 0
        client.start(now: begin)
        server.start(now: begin)
        var toServer = outgoing(client)
        var toClient: [[UInt8]] = []
        func done() -> Bool {
            (client.state == .connected || client.state.isFinal) && (server.state == .connected || server.state.isFinal)
        }
        while !done(), now() - begin < wallLimit {
            if !toServer.isEmpty, dropped < dropClientFlights {
                dropped += 1
                toServer = []
            }
            if !toServer.isEmpty {
                toClient += deliver(toServer, to: server, now: now())
                toServer = []
                continue
            }
            if !toClient.isEmpty {
                toServer += deliver(toClient, to: client, now: now())
                toClient = []
                continue
            }
            // Nothing in flight: wait for the earliest timer and run both.
            let t = now()
            let next = [client.nextTimeout(now: t), server.nextTimeout(now: t)].compactMap { $0 }.min() ?? (t + 5_000_000)
            if next > t { sleepNanoseconds(min(next - t, 200_000_000) + 1_000_000) }
            client.handleTimeout(now: now())
            toServer += outgoing(client)
            server.handleTimeout(now: now())
            toClient += outgoing(server)
        }
        return dropped
    }

    static func sleepNanoseconds(_ nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// The exporter output as both sides computed it, rebuilt from this side's split keys
    /// (client key | server key | client salt | server salt, RFC 5764 section 4.2).
    static func exporterBytes(_ keys: DTLSSRTPKeys, role: DTLSRole) -> [UInt8] {
        let client = role == .client ? keys.local : keys.remote
        let server = role == .client ? keys.remote : keys.local
        return client.masterKey + server.masterKey + client.masterSalt + server.masterSalt
    }

    /// Protects an RTP packet with `sender`'s local keys and unprotects it with
    /// `receiver`'s remote keys (fresh sessions); true when the clear packet comes back.
    static func srtpRoundTrip(from sender: DTLSSRTPKeys, to receiver: DTLSSRTPKeys, sequence: UInt16) throws -> Bool {
        let clear = SRTPTestPackets.rtp(sequence: sequence, payloadLength: 400)
        let protected = try sender.makeSender().protect(clear)
        guard protected != clear, protected.count == clear.count + sender.profile.rtpTrailer else { return false }
        return try receiver.makeReceiver().unprotect(protected) == clear
    }
}

/// A plain UDP socket bound to 127.0.0.1 for the tests that cross real sockets.
final class DTLSTestSocket {
    let descriptor: Int32
    let port: UInt16
    /// The largest datagram `send` has sent, and how many it sent.
    private(set) var largestSent = 0
    private(set) var sentCount = 0

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.descriptor = descriptor
        guard descriptor >= 0 else { throw DTLSTestSocketError(message: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw DTLSTestSocketError(message: "bind: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { Glibc.close(descriptor) }

    /// Sends `bytes` as one datagram to 127.0.0.1:`port`.
    func send(_ bytes: UnsafeRawBufferPointer, to port: UInt16) {
        largestSent = max(largestSent, bytes.count)
        sentCount += 1
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    /// Sends every datagram the last call on `transport` produced.
    func sendOutgoing(of transport: DTLSTransport, to port: UInt16) {
        for index in 0..<transport.outgoingCount { send(transport.outgoingDatagram(index), to: port) }
    }

    /// Waits up to `timeoutMilliseconds` for a datagram; returns it and the sender's port, or nil.
    func receive(timeoutMilliseconds: Int32) -> (bytes: [UInt8], port: UInt16)? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, max(0, timeoutMilliseconds)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { raw in
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, raw.baseAddress, raw.count, 0, $0, &length) }
            }
        }
        guard count >= 0 else { return nil }
        return (Array(buffer[0..<count]), UInt16(bigEndian: address.sin_port))
    }
}

struct DTLSTestSocketError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
