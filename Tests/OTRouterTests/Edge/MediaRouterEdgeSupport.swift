import OTMedia
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// A `MediaRouter` with its one-port edge, and `EdgeClient`s that join it the way a client
/// does through signaling: its ICE credentials and certificate fingerprint go in
/// `transport`, the leg it gets back says where and whom to check and handshake with.
struct EdgeRouterRig {
    let router: MediaRouter

    init(workers: Int = 2, consentTimeout: UInt64 = 30_000_000_000) throws {
        router = try MediaRouter(host: "127.0.0.1", edge: MediaEdgeConfiguration(workerCount: workers, consentTimeout: consentTimeout))
    }

    var edge: MediaEdge { router.edge! }

    /// A fresh client identity and the `transport` it would send.
    static func identity() throws -> (ICECredentials, DTLSCertificate, WireTransport) {
        let credentials = ICECredentials.generate()
        let certificate = try DTLSCertificate(commonName: "edge test client")
        return (credentials, certificate, WireTransport(iceUfrag: credentials.ufrag, icePassword: credentials.password,
                                                        fingerprint: certificate.fingerprint.sdpValue))
    }

    /// The client for `leg` (which must carry the router's `transport`), connected (ICE + DTLS).
    static func client(for leg: WireMediaLeg, credentials: ICECredentials, certificate: DTLSCertificate) throws -> EdgeClient {
        let transport = try #require(leg.transport)
        let address = try #require(SocketAddress(ipv4: leg.host, port: UInt16(leg.port)))
        let offer = EdgeClient.EdgeOffer(address: address,
                                         credentials: try ICECredentials(ufrag: transport.iceUfrag, password: transport.icePassword),
                                         fingerprint: try DTLSFingerprint(sdp: SDPFingerprint(sdpValue: Substring(transport.fingerprint))))
        let client = try EdgeClient(edge: offer, credentials: credentials, certificate: certificate)
        try client.connect()
        return client
    }

    /// Publishes `streamId` over the edge and connects its client.
    func publisher(_ streamId: String = "s1") throws -> (WireMediaLeg, EdgeClient) {
        let (credentials, certificate, transport) = try Self.identity()
        let leg = try router.addPublisher(streamId: streamId, audio: true, video: true, simulcastLayers: 1, transport: transport)
        return (leg, try Self.client(for: leg, credentials: credentials, certificate: certificate))
    }

    /// Subscribes `id` to `streamId` over the edge and connects its client.
    func subscriber(_ id: String, to streamId: String = "s1") throws -> (WireMediaLeg, EdgeClient) {
        let (credentials, certificate, transport) = try Self.identity()
        let leg = try router.addSubscriber(subscriberId: id, streamId: streamId, audio: true, video: true, transport: transport)
        return (leg, try Self.client(for: leg, credentials: credentials, certificate: certificate))
    }
}

/// An RTP packet with payload type `payloadType`, the marker set (each packet a frame) and
/// `payload`.
func edgeRTP(sequence: UInt16, ssrc: UInt32, payloadType: UInt8, payload: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = [0x80, 0x80 | payloadType, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
    let timestamp = UInt32(sequence) &* 960
    bytes += [UInt8(timestamp >> 24), UInt8((timestamp >> 16) & 0xFF), UInt8((timestamp >> 8) & 0xFF), UInt8(timestamp & 0xFF)]
    bytes += [UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
    return bytes + payload
}

/// An audio payload that names its packet: a marker, the sequence number, then filler.
func edgeAudioPayload(_ sequence: UInt16) -> [UInt8] {
    [0xAB, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0x5A] + [UInt8](repeating: 0x11, count: 40)
}

/// Big-endian fields of a packet.
func edgeBE16(_ bytes: [UInt8], _ offset: Int) -> UInt16 { UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]) }
func edgeBE32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
}

extension EdgeClient {
    /// The plain RTP packets with `ssrc` received within `timeout` seconds of quiet.
    func drainRTP(ssrc: UInt32, quiet timeout: Double = 0.2) throws -> [[UInt8]] {
        var packets: [[UInt8]] = []
        while let (packet, isRTCP) = try receiveMedia(timeout: timeout) {
            if !isRTCP, packet.count >= 12, edgeBE32(packet, 8) == ssrc { packets.append(packet) }
        }
        return packets
    }
}

/// The payload of a plain RTP packet (after CSRCs and the header extension the router may
/// have added for transport-wide numbers).
func edgePayload(_ packet: [UInt8]) -> [UInt8] {
    var offset = 12 + 4 * Int(packet[0] & 0x0F)
    if packet[0] & 0x10 != 0, packet.count >= offset + 4 { offset += 4 + 4 * Int(edgeBE16(packet, offset + 2)) }
    return offset <= packet.count ? Array(packet[offset...]) : []
}
