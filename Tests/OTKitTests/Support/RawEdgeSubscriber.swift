import Foundation
import OTMedia
import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// A subscriber written straight on the wire, with nothing of OTKit's: signaling
/// `subscribe` with its own ICE credentials and certificate fingerprint, then an
/// `EdgeClient` (ICE, DTLS, SRTP keys from the exporter) on the router's edge. What it
/// collects is exactly what the router forwards to a subscriber, after SRTP: the RTP
/// payloads per kind, VP8 frames reassembled with OTMedia's public depacketizer, and the
/// Opus packets. It asks for a keyframe once connected so the video starts decodable.
final class RawEdgeSubscriber {
    /// What arrived during `collect`.
    struct Received {
        /// Every VP8 RTP payload (descriptor included), in arrival order.
        var videoPayloads: [[UInt8]] = []
        /// Every Opus RTP payload, in arrival order.
        var audioPayloads: [[UInt8]] = []
        /// The VP8 frames reassembled from the payloads, in order, with their keyframe bit.
        var videoFrames: [(bytes: [UInt8], keyframe: Bool)] = []
    }

    /// A step of joining that failed.
    struct Failure: Error {
        let what: String
        init(_ what: String) { self.what = what }
    }

    private let raw: RawSignalingClient
    private let client: EdgeClient
    private let leg: WireMediaLeg

    /// Connects to `sessionId` on `router` with a subscriber token and subscribes to `streamId`.
    init(router: Router, kit: SessionTestKit, sessionId: String, streamId: String) throws {
        raw = try RawSignalingClient(url: router.signalingURL(sessionId: sessionId))
        let token = try kit.token(sessionId, .subscriber)
        guard case .connected? = raw.request(.connect(ConnectRequest(apiKey: kit.project.apiKey, token: token))) else {
            raw.close()
            throw Failure("the raw subscriber could not connect")
        }
        let credentials = ICECredentials.generate()
        let certificate = try DTLSCertificate(commonName: "raw subscriber")
        var request = SubscribeRequest(streamId: streamId)
        request.transport = WireTransport(iceUfrag: credentials.ufrag, icePassword: credentials.password,
                                          fingerprint: certificate.fingerprint.sdpValue)
        guard case .subscribed(let reply)? = raw.request(.subscribe(request)), let leg = reply.media,
              let transport = leg.transport, let address = SocketAddress(ipv4: leg.host, port: UInt16(leg.port)) else {
            raw.close()
            throw Failure("the raw subscriber got no edge leg")
        }
        self.leg = leg
        let edge = EdgeClient.EdgeOffer(address: address,
                                        credentials: try ICECredentials(ufrag: transport.iceUfrag, password: transport.icePassword),
                                        fingerprint: try DTLSFingerprint(sdp: SDPFingerprint(sdpValue: Substring(transport.fingerprint))))
        client = try EdgeClient(edge: edge, credentials: credentials, certificate: certificate)
        do { try client.connect() } catch {
            raw.close()
            throw error
        }
    }

    /// Receives for `seconds`, asking for a keyframe (RTCP PLI for the leg's video SSRC)
    /// every half second until one arrives: the router's own request for this new leg may
    /// have been answered before the handshake finished.
    func collect(seconds: Double) throws -> Received {
        var received = Received()
        let depacketizer = VP8Depacketizer()
        let deadline = Date().addingTimeInterval(seconds)
        var nextRequest = Date()
        while Date() < deadline {
            if let video = leg.videoSSRC, Date() >= nextRequest, !received.videoFrames.contains(where: \.keyframe) {
                try client.sendRTCP([0x81, 206, 0, 2, 0, 0, 0, 1] + withUnsafeBytes(of: video.bigEndian) { Array($0) })
                nextRequest = Date().addingTimeInterval(0.5)
            }
            guard let (packet, isRTCP) = try client.receiveMedia(timeout: 0.1), !isRTCP else { continue }
            packet.withUnsafeBytes { bytes in
                guard let rtp = try? RTPPacket(parsing: bytes) else { return }
                switch rtp.payloadType {
                case 96:
                    received.videoPayloads.append(Array(rtp.payload))
                    depacketizer.push(rtp) { event in
                        if case .frame(let frame) = event { received.videoFrames.append((Array(frame.data), frame.isKeyframe)) }
                    }
                case 111:
                    received.audioPayloads.append(Array(rtp.payload))
                default:
                    break
                }
            }
        }
        return received
    }

    /// Leaves the session.
    func close() {
        _ = raw.request(.disconnect, seconds: 2)
        raw.close()
    }
}
