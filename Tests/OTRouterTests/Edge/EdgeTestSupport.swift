import Glibc
import OTMedia
@testable import OTRouter
import OTTestSupport
import Synchronization

/// Collects what a `MediaEdge` hands its receive handler, per leg, in arrival order.
final class EdgeInbox: Sendable {
    struct Packet: Equatable {
        let bytes: [UInt8]
        let isRTCP: Bool
    }

    private let packets = Mutex<[EdgeLegID: [Packet]]>([:])

    var handler: EdgeReceiveHandler {
        { [self] leg, bytes, isRTCP in
            let copy = Packet(bytes: Array(bytes), isRTCP: isRTCP)
            packets.withLock { $0[leg, default: []].append(copy) }
        }
    }

    func received(_ leg: EdgeLegID) -> [Packet] { packets.withLock { $0[leg] ?? [] } }

    private let endingsSeen = Mutex<[String]>([])

    /// Records each ending as "leg N: <ending>".
    var endedHandler: EdgeLegEndedHandler {
        { [self] leg, ending in endingsSeen.withLock { $0.append("\(leg): \(ending)") } }
    }

    /// The endings told so far.
    var endings: [String] { endingsSeen.withLock { $0 } }
}

/// Polls `condition` every 2 ms for up to `seconds` of real time (a generous bound for a
/// loaded machine; the tests never assert a time).
func edgeEventually(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let clock = SystemMediaClock()
    let deadline = clock.nanoseconds() + UInt64(seconds * 1e9)
    while clock.nanoseconds() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

/// An RTP packet: version 2, payload type 96, `sequence`, timestamp, `ssrc`, then `payload`.
func rtpPacket(sequence: UInt16, ssrc: UInt32, payload: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x10, 0x00]
    bytes += [UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
    return bytes + payload
}

/// An RTCP receiver report with no blocks from `ssrc` (8 bytes).
func rtcpPacket(ssrc: UInt32) -> [UInt8] {
    [0x80, 201, 0, 1, UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
}

/// An edge and its inbox, with fresh legs made by `leg`.
struct EdgeFixture {
    let edge: MediaEdge
    let inbox: EdgeInbox

    init(workers: Int = 2, clock: any MediaClock = SystemMediaClock(),
         adjust: (inout MediaEdgeConfiguration) -> Void = { _ in }) throws {
        var configuration = MediaEdgeConfiguration(workerCount: workers)
        adjust(&configuration)
        let inbox = EdgeInbox()
        self.inbox = inbox
        edge = try MediaEdge(configuration: configuration, clock: clock, ended: inbox.endedHandler, receive: inbox.handler)
    }

    /// Registers leg `id` for a new client and returns the client (not yet connected). The
    /// only things exchanged are the two offers: ufrag, password and fingerprint each way.
    func client(_ id: UInt64, peerFingerprint: DTLSFingerprint? = nil) throws -> EdgeClient {
        let local = ICECredentials.generate()
        let client = try EdgeClient(edge: EdgeClient.EdgeOffer(address: edge.localAddress, credentials: local,
                                                               fingerprint: edge.fingerprint))
        let offer = client.offer
        try edge.register(EdgeLegID(id), EdgeLegDescription(local: local, remoteUfrag: offer.ufrag, remotePassword: offer.password,
                                                            remoteFingerprint: peerFingerprint ?? offer.fingerprint))
        return client
    }

    /// A registered and connected client for leg `id`.
    func connected(_ id: UInt64) throws -> EdgeClient {
        let client = try client(id)
        try client.connect()
        return client
    }
}

/// Sends `rtp` to leg `id` with `edge.send`: the error it threw, or nil when it was sent.
func edgeSend(_ edge: MediaEdge, _ id: EdgeLegID, rtp: [UInt8]) -> EdgeError? {
    rtp.withUnsafeBytes { bytes -> EdgeError? in
        do {
            try edge.send(leg: id, rtp: bytes)
            return nil
        } catch let error as EdgeError {
            return error
        } catch {
            return nil
        }
    }
}
