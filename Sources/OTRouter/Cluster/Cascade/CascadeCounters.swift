import Synchronization

/// What one router's cascade legs did, kept apart from its subscriber and publisher
/// counters: egress legs (this router is the origin, sending a stream to another node)
/// and ingress legs (this router receives a stream from its origin), packets and bytes
/// each way, and refused control requests. Relaxed atomics, bumped by the forwarding
/// threads (once per send batch or per received datagram) and the control plane; read by
/// `/metrics` and tests through `snapshot`. Cost: a dozen words per router.
public final class CascadeCounters: Sendable {
    let egressLegs = Atomic<Int>(0)
    let ingressLegs = Atomic<Int>(0)
    let egressPackets = Atomic<UInt64>(0)
    let egressAudioPackets = Atomic<UInt64>(0)
    let egressBytes = Atomic<UInt64>(0)
    let ingressPackets = Atomic<UInt64>(0)
    let ingressBytes = Atomic<UInt64>(0)
    let egressOpened = Atomic<UInt64>(0)
    let ingressOpened = Atomic<UInt64>(0)
    let ingressEnded = Atomic<UInt64>(0)
    let requestsRefused = Atomic<UInt64>(0)
    let requestsUnknownStream = Atomic<UInt64>(0)
    let keyframeRequestsUpstream = Atomic<UInt64>(0)

    /// Counters at zero.
    public init() {}

    /// A batch an egress leg sent (`audio` of them audio RTP). Forwarding thread; two or
    /// three relaxed adds.
    @inline(__always)
    func sent(packets: Int, bytes: UInt64, audio: Int) {
        guard packets > 0 else { return }
        egressPackets.add(UInt64(packets), ordering: .relaxed)
        egressBytes.add(bytes, ordering: .relaxed)
        if audio > 0 { egressAudioPackets.add(UInt64(audio), ordering: .relaxed) }
    }

    /// One datagram an ingress leg received and authenticated. Forwarding thread.
    @inline(__always)
    func received(bytes: Int) {
        ingressPackets.add(1, ordering: .relaxed)
        ingressBytes.add(UInt64(bytes), ordering: .relaxed)
    }

    /// The figures now. A dozen relaxed loads.
    public var snapshot: CascadeStatistics {
        CascadeStatistics(egressLegs: egressLegs.load(ordering: .relaxed), ingressLegs: ingressLegs.load(ordering: .relaxed),
                          egressPackets: egressPackets.load(ordering: .relaxed), egressBytes: egressBytes.load(ordering: .relaxed),
                          egressAudioPackets: egressAudioPackets.load(ordering: .relaxed),
                          ingressPackets: ingressPackets.load(ordering: .relaxed),
                          ingressBytes: ingressBytes.load(ordering: .relaxed),
                          egressOpened: egressOpened.load(ordering: .relaxed), ingressOpened: ingressOpened.load(ordering: .relaxed),
                          ingressEnded: ingressEnded.load(ordering: .relaxed),
                          requestsRefused: requestsRefused.load(ordering: .relaxed),
                          requestsUnknownStream: requestsUnknownStream.load(ordering: .relaxed))
    }
}

/// A snapshot of `CascadeCounters` (see there). Plain values.
public struct CascadeStatistics: Sendable, Equatable {
    /// Cascade egress legs open now (one per stream and receiving node).
    public var egressLegs: Int
    /// Cascade ingress legs open now (one per stream received from another node).
    public var ingressLegs: Int
    /// Packets (RTP and RTCP) the egress legs sent.
    public var egressPackets: UInt64
    /// Their bytes (SRTP, as sent).
    public var egressBytes: UInt64
    /// Of the packets sent, the audio RTP ones (none while the stream is force-muted at the origin).
    public var egressAudioPackets: UInt64 = 0
    /// Datagrams the ingress legs received and authenticated.
    public var ingressPackets: UInt64
    /// Their bytes (SRTP, as received).
    public var ingressBytes: UInt64
    /// Egress legs opened since the start.
    public var egressOpened: UInt64
    /// Ingress legs opened since the start.
    public var ingressOpened: UInt64
    /// Ingress legs that ended since the start (linger, origin gone, consent lost).
    public var ingressEnded: UInt64
    /// Cascade control requests refused for their credentials (no or a wrong cluster secret).
    public var requestsRefused: UInt64
    /// Cascade control requests for a stream this router does not forward.
    public var requestsUnknownStream: UInt64
}
