import OTMedia
import Synchronization

/// One leg on the edge: its ICE agent, DTLS transport and SRTP sessions. Shared by the
/// workers (the kernel may deliver a leg's packets to any of them after an address move)
/// and by `MediaEdge.send`, so its state sits behind two short locks: `state` (ICE, DTLS,
/// the receiving SRTP session; held while one datagram is processed, never across I/O)
/// and `sender` (the sending SRTP session, the selected address and a one-packet
/// scratch buffer; held by `send` across its one `sendmmsg`). Lock order: state, then
/// sender. Cost: an ICE agent, a 1.6 KB buffer and, once the handshake starts, an SSL
/// object; after it, two libsrtp contexts.
final class EdgeLeg: Sendable {
    let id: EdgeLegID
    let description: EdgeLegDescription
    let state: Mutex<EdgeLegState>
    let sender: Mutex<EdgeLegSender>
    /// Where this leg's traffic goes when the router forwards it itself (nil: the edge's
    /// receive handler and `send`).
    let sink: (any EdgeLegSink)?

    init(id: EdgeLegID, description: EdgeLegDescription, agent: ICELiteAgent, packetBytes: Int, sink: (any EdgeLegSink)? = nil) {
        self.id = id
        self.description = description
        self.sink = sink
        state = Mutex(EdgeLegState(agent: agent))
        sender = Mutex(EdgeLegSender(packetBytes: packetBytes))
    }
}

/// What `EdgeLeg.state` guards.
struct EdgeLegState: @unchecked Sendable {
    /// Answers this leg's checks; holds its selected address and consent clock.
    var agent: ICELiteAgent
    /// The handshake or association, from the first admitted ClientHello; nil before, and
    /// after a failure (freed).
    var dtls: DTLSTransport?
    /// The source whose handshake holds an admission slot, until it ends.
    var admittedFrom: SocketAddress?
    /// True once a handshake failed or timed out: later DTLS for the leg is garbage.
    var dtlsEnded = false
    /// Unprotects what the peer sends, once keyed.
    var receiver: SRTPSession?
}

/// What `EdgeLeg.sender` guards.
struct EdgeLegSender: @unchecked Sendable {
    /// Protects what the edge sends to the peer, once keyed (never for a leg with a sink:
    /// the sink got the session).
    var session: SRTPSession?
    /// True once the handshake gave keys (to `session` or to the leg's sink).
    var keyed = false
    /// Where the peer's media goes: its ICE-selected address.
    var address: SocketAddress?
    /// True while the leg's ICE consent is lapsed: `send` refuses it (mirrors the agent's
    /// state, set by the timer, cleared by the check that restores consent).
    var lapsed = false
    /// One buffer (packet + SRTP trailer room) and the batch `send` uses to send it.
    let buffers: [PacketBuffer]
    let batch: UDPMessageBatch

    init(packetBytes: Int) {
        let pool = PacketBufferPool(initialCount: 1, maximumCount: 1, bufferSize: packetBytes + SRTPProfile.maxTrailer + 64,
                                    headroom: 0)
        buffers = [pool.take()!]
        batch = UDPMessageBatch(capacity: 1)
    }
}
