import CEpoll
import Glibc
import OTMedia
import OTSignaling

/// One leg of `otbench sfu`'s load, made by OTKit's own WebRTC client code: a loopback
/// UDP socket, ICE checks and a DTLS client handshake (`SFUICEConnector`, offering only
/// `profile`), then the exported SRTP keys. Cost: one P-256 handshake per leg.
struct SFUClientLeg {
    /// The leg's socket (connected to the SFU's address once ICE selected it).
    let socket: UDPSocket
    /// The DTLS-exported keys.
    let keys: SRTPLegKeys

    /// This side's identity before signaling: credentials, certificate, bound socket.
    struct Identity {
        let credentials: ICECredentials
        let certificate: DTLSCertificate
        let socket: UDPSocket

        /// A fresh identity on a new socket bound to `host` (1 MB receive buffer).
        init(host: String) throws {
            guard let address = SocketAddress(ipv4: host, port: 0) else { throw ScenarioError("bad client address \(host)") }
            credentials = ICECredentials.generate()
            certificate = try DTLSCertificate(commonName: "otbench-sfu")
            socket = try UDPSocket(bindingTo: address, receiveBufferBytes: 1 << 20)
            self.host = host
        }

        /// The address the socket is bound to.
        let host: String

        /// What the SDP builder (Janus) or the router child needs about this side.
        var local: SFUSDP.Local {
            SFUSDP.Local(ufrag: credentials.ufrag, password: credentials.password,
                         fingerprint: certificate.fingerprint.sdpValue, host: host, port: socket.localAddress.port)
        }
    }

    /// Runs ICE + DTLS against the SFU's `host`:`port` with its credentials and fingerprint.
    static func connect(_ identity: Identity, host: String, port: UInt16, ufrag: String, password: String,
                        fingerprint: String, profile: SRTPProfile) throws -> SFUClientLeg {
        guard let address = SocketAddress(ipv4: host, port: port) else { throw ScenarioError("bad SFU address \(host):\(port)") }
        let peer = ICEPeer(address: address, credentials: try ICECredentials(ufrag: ufrag, password: password),
                           fingerprint: try DTLSFingerprint(sdp: SDPFingerprint(sdpValue: Substring(fingerprint))))
        let connector = SFUICEConnector(socket: identity.socket, peer: peer, local: identity.credentials,
                                        context: try DTLSContext(certificate: identity.certificate, srtpProfiles: [profile]))
        let keys = try connector.connect(timeout: 30_000_000_000)
        try identity.socket.connect(to: address)
        return SFUClientLeg(socket: identity.socket, keys: keys)
    }
}

/// The load `otbench sfu` puts on an SFU, driven from one thread: one publisher sending
/// `ArchiveClip`'s VP8 + Opus packets (looped, sequence numbers and timestamps continued,
/// SSRCs set to the leg's) paced by their media time and SRTP-protected, and N subscribers
/// whose every datagram is SRTP/SRTCP-unprotected (authenticated) and counted: RTP
/// packets, audio and video packets, whole frames (video packets with the marker bit),
/// RTCP packets and authentication failures. Nothing here is in the SFU's CPU figures.
final class SFULoad {
    /// What one subscriber received.
    struct Counts {
        var packets: UInt64 = 0
        var audio: UInt64 = 0
        var video: UInt64 = 0
        var frames: UInt64 = 0
        var rtcp: UInt64 = 0
        var failures: UInt64 = 0
    }

    private struct Subscriber {
        let socket: UDPSocket
        let session: SRTPSession
        let videoPayloadType: UInt8
        var counts = Counts()
    }

    private let clip: ArchiveClip
    private let clipNanoseconds: UInt64
    private let publisher: UDPSocket
    private let protector: SRTPSession
    private let audioSSRC: UInt32, videoSSRC: UInt32
    private var subscribers: [Subscriber] = []
    private let pool = PacketBufferPool(initialCount: 33, maximumCount: 33, bufferSize: 2048, headroom: 0)
    private let sendBuffer: [PacketBuffer]
    private let receiveBuffers: [PacketBuffer]
    private let sendBatch = UDPMessageBatch(capacity: 1)
    private let receiveBatch = UDPMessageBatch(capacity: 32)
    // The sender's place: the clip index, the loop, the media time already sent.
    private var index = 0
    private var loop: UInt64 = 0
    private var audioSequence: UInt16 = 1, videoSequence: UInt16 = 1
    /// RTP packets (audio + video) the publisher sent.
    private(set) var sent: UInt64 = 0
    private var epollDescriptor: Int32 = -1
    private var registered = 0
    private var publisherRegistered = false
    private var readyKeys = [UInt64](repeating: 0, count: 256)
    private var readyEvents = [UInt32](repeating: 0, count: 256)

    deinit { if epollDescriptor >= 0 { close(epollDescriptor) } }

    /// A load on the publisher leg `publisher`, which sends with these SSRCs.
    init(clip: ArchiveClip, publisher: SFUClientLeg, audioSSRC: UInt32, videoSSRC: UInt32) throws {
        self.clip = clip
        clipNanoseconds = UInt64(clip.videoFrames) * 1_000_000_000 / UInt64(ArchiveClip.frameRate)
        self.publisher = publisher.socket
        protector = try SRTPSession(keys: publisher.keys.send, direction: .sender)
        self.audioSSRC = audioSSRC
        self.videoSSRC = videoSSRC
        let pool = self.pool
        sendBuffer = [pool.take()!]
        receiveBuffers = (0..<32).map { _ in pool.take()! }
    }

    /// Adds a subscriber leg whose video arrives with `videoPayloadType`.
    func addSubscriber(_ leg: SFUClientLeg, videoPayloadType: UInt8) throws {
        subscribers.append(Subscriber(socket: leg.socket, session: try SRTPSession(keys: leg.keys.receive, direction: .receiver),
                                      videoPayloadType: videoPayloadType))
    }

    /// Every subscriber's counts so far.
    var counts: [Counts] { subscribers.map(\.counts) }

    /// Sends (when `sending`) and receives for `nanoseconds`.
    func pump(nanoseconds: UInt64, sending: Bool) throws {
        let start = MonotonicClock.nanoseconds()
        try pump(sending: sending) { now in now - start < nanoseconds }
    }

    /// Sends (when `sending`) and receives until `condition` (given the time) is false or
    /// `limit` nanoseconds pass; returns whether the condition turned false.
    @discardableResult
    func pump(sending: Bool, limit: UInt64 = 60_000_000_000, until done: () -> Bool) throws -> Bool {
        let start = MonotonicClock.nanoseconds()
        var finished = false
        try pump(sending: sending) { now in
            if done() { finished = true; return false }
            return now - start < limit
        }
        return finished
    }

    /// Sends (when `sending`) and receives until `more(now)` is false; the sender's media
    /// time continues where the last pump left it. Readiness comes from one epoll set
    /// (key = subscriber index, the publisher last), so a wake-up costs the same at 400
    /// subscribers as at 1.
    private func pump(sending: Bool, more: (UInt64) -> Bool) throws {
        let epoll = try epollSet()
        let begin = MonotonicClock.nanoseconds()
        let mediaStart = loop * clipNanoseconds + (index < clip.packets.count ? clip.packets[index].mediaNanoseconds : 0)
        while true {
            let now = MonotonicClock.nanoseconds()
            guard more(now) else { break }
            var wait: UInt64 = 5_000_000
            if sending {
                let media = mediaStart + (now - begin)
                while true {
                    let due = loop * clipNanoseconds + clip.packets[index].mediaNanoseconds
                    if due > media { wait = min(wait, due - media); break }
                    try sendNext()
                }
            }
            let count = cepoll_wait(epoll, &readyKeys, &readyEvents, Int32(readyKeys.count), Int32((wait + 999_999) / 1_000_000))
            guard count > 0 else { continue }
            for ready in 0..<Int(count) {
                let slot = Int(readyKeys[ready])
                if slot == subscribers.count { try discardPublisherInput() } else { try receive(slot) }
            }
        }
    }

    /// The epoll set over every subscriber socket and the publisher's (level-triggered;
    /// subscribers added since the last pump are registered now).
    private func epollSet() throws -> Int32 {
        if epollDescriptor < 0 {
            epollDescriptor = cepoll_create()
            guard epollDescriptor >= 0 else { throw ScenarioError("epoll_create1: \(String(cString: strerror(errno)))") }
        }
        guard registered < subscribers.count || !publisherRegistered else { return epollDescriptor }
        if publisherRegistered {  // the publisher's key moves to the new end
            _ = cepoll_control(epollDescriptor, 2, publisher.fileDescriptor, 0, 0)
        }
        for slot in registered..<subscribers.count {
            guard cepoll_control(epollDescriptor, 1, subscribers[slot].socket.fileDescriptor, CEPOLL_IN, UInt64(slot)) == 0 else {
                throw ScenarioError("epoll_ctl: \(String(cString: strerror(errno)))")
            }
        }
        registered = subscribers.count
        guard cepoll_control(epollDescriptor, 1, publisher.fileDescriptor, CEPOLL_IN, UInt64(subscribers.count)) == 0 else {
            throw ScenarioError("epoll_ctl: \(String(cString: strerror(errno)))")
        }
        publisherRegistered = true
        return epollDescriptor
    }

    /// Protects and sends the clip's next RTP packet (sender reports are skipped).
    private func sendNext() throws {
        let packet = clip.packets[index]
        index += 1
        if index == clip.packets.count { index = 0; loop += 1 }
        guard !packet.bytes.isEmpty else { return }
        let buffer = sendBuffer[0]
        buffer.reset()
        packet.bytes.withUnsafeBytes { _ = buffer.assign($0) }
        let bytes = buffer.bytes
        let sequence: UInt16
        if packet.video { sequence = videoSequence; videoSequence &+= 1 } else { sequence = audioSequence; audioSequence &+= 1 }
        bytes.storeBytes(of: sequence.bigEndian, toByteOffset: 2, as: UInt16.self)
        let rate: UInt64 = packet.video ? 90_000 : 48_000
        let timestamp = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            &+ UInt32(truncatingIfNeeded: loop * clipNanoseconds * rate / 1_000_000_000)
        bytes.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        bytes.storeBytes(of: (packet.video ? videoSSRC : audioSSRC).bigEndian, toByteOffset: 8, as: UInt32.self)
        let length = try protector.protect(buffer.writableBytes, length: buffer.bytes.count)
        buffer.setLength(length)
        _ = try publisher.send(sendBuffer, batch: sendBatch)
        sent += 1
    }

    /// Reads and drops what the SFU sends the publisher (RTCP feedback).
    private func discardPublisherInput() throws {
        while try publisher.receive(into: receiveBuffers, batch: receiveBatch).count > 0 {}
    }

    /// Drains one subscriber's socket: unprotect and count every datagram.
    private func receive(_ slot: Int) throws {
        let socket = subscribers[slot].socket
        let session = subscribers[slot].session
        let videoPayloadType = subscribers[slot].videoPayloadType
        var counts = subscribers[slot].counts
        while true {
            let result = try socket.receive(into: receiveBuffers, batch: receiveBatch)
            guard result.count > 0 else { break }
            for buffer in receiveBuffers.prefix(result.count) {
                let bytes = buffer.bytes
                guard bytes.count >= 12, bytes[0] >> 6 == 2 else { continue }  // STUN or DTLS: not media
                let payloadType = bytes[1] & 0x7F
                if payloadType >= 64, payloadType <= 95 {  // RTCP (PT 192–223 with the marker bit)
                    do { _ = try session.unprotectRTCP(bytes, length: bytes.count); counts.rtcp += 1 } catch { counts.failures += 1 }
                    continue
                }
                do { _ = try session.unprotect(bytes, length: bytes.count) } catch { counts.failures += 1; continue }
                counts.packets += 1
                if payloadType == videoPayloadType {
                    counts.video += 1
                    if bytes[1] & 0x80 != 0 { counts.frames += 1 }
                } else {
                    counts.audio += 1
                }
            }
        }
        subscribers[slot].counts = counts
    }
}
