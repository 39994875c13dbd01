import Synchronization

/// What a pipeline's receive path took out before SRTP on a leg of a router's one-port
/// edge (RFC 7983 demultiplexing): STUN (consent answers for the `ICEConsentKeeper`) and
/// DTLS (a late handshake retransmission, an alert) never reach libsrtp or the RTP
/// parser. Relaxed atomics written by the network thread, readable from any thread.
/// Cost: one relaxed atomic add per such datagram.
public final class EdgeDatagramCounters: Sendable {
    /// STUN datagrams received (each handed to the consent keeper when there is one).
    let stun = Atomic<UInt64>(0)
    /// DTLS datagrams received and dropped (the handshake was over before the pipeline ran).
    let dtls = Atomic<UInt64>(0)

    /// Zero counters.
    public init() {}

    /// STUN datagrams and DTLS datagrams taken out so far. Cost: two relaxed loads.
    public var snapshot: (stun: UInt64, dtls: UInt64) { (stun.load(ordering: .relaxed), dtls.load(ordering: .relaxed)) }

    /// Counts `kind` if it is STUN or DTLS and, for STUN, hands the datagram to `consent`;
    /// true when the datagram was taken (the caller drops it), false for anything else.
    func take(_ kind: PacketClass, _ datagram: UnsafeRawBufferPointer, consent: ICEConsentKeeper?, now: UInt64) -> Bool {
        switch kind {
        case .stun:
            stun.add(1, ordering: .relaxed)
            consent?.receive(datagram, now: now)
            return true
        case .dtls:
            dtls.add(1, ordering: .relaxed)
            return true
        default:
            return false
        }
    }
}
