import OTMedia

/// Where the edge hands one leg's traffic when the router forwards that leg itself (its
/// `MediaRouter` edge legs), instead of the edge-wide `EdgeReceiveHandler` and `send`.
///
/// Registered with the leg (`MediaEdge.register(_:_:sink:)`), so a worker reaches it from
/// the leg it already found: no global lookup per packet. Every method is called on an
/// edge worker thread with no edge lock held; it must not block and must not call back
/// into the edge (a sink may take short locks of its own, never across I/O).
public protocol EdgeLegSink: AnyObject, Sendable {
    /// One unprotected RTP or RTCP packet from the leg's peer; the bytes are valid only
    /// during the call (copy what must outlive it). `receivedAt`: the kernel's arrival
    /// time of its datagram (monotonic ns, as `PacketBuffer.receiveTimestamp`; 0 unknown),
    /// for transport-wide feedback.
    func edgeReceived(_ packet: UnsafeRawBufferPointer, isRTCP: Bool, receivedAt: UInt64)
    /// The worker finished the receive batch in which it handed this sink packets: the
    /// moment to wake whoever consumes them (once per batch, not per packet).
    func edgeBatchEnded()
    /// The handshake connected: `sender` protects what goes to the peer. The sink owns it
    /// from now on and the edge keeps none for this leg (`MediaEdge.send` then refuses it
    /// with `.notConnected`), so exactly one party protects with these keys.
    func edgeKeyed(sender: SRTPSession)
    /// The peer nominated `address` (its first, or a move): where its media goes now.
    func edgeSelected(_ address: SocketAddress)
    /// The edge ended the leg's handshake (the leg stays registered).
    func edgeEnded(_ ending: EdgeLegEnding)
    /// The leg's ICE consent lapsed (`false`: send nothing to it from now on) or a valid
    /// check restored it (`true`: sending may resume, to the same address and keys).
    func edgeConsent(_ granted: Bool)
}
