import Synchronization

/// A snapshot of what a `MediaEdge` has seen since it started: packets per RFC 7983 class,
/// what was dropped and why, handshakes and legs. Copying it is free; taking one costs a
/// relaxed load per field.
public struct EdgeCounters: Sendable, Equatable {
    /// Datagrams received whose first byte says STUN (0–3).
    public var stunPackets = 0
    /// Datagrams received whose first byte says DTLS (20–63).
    public var dtlsPackets = 0
    /// Datagrams received that classify as RTP.
    public var rtpPackets = 0
    /// Datagrams received that classify as RTCP.
    public var rtcpPackets = 0
    /// Datagrams of any other first byte (or empty, or truncated by the kernel, or longer
    /// than `maximumPacketBytes`): dropped.
    public var unknownPackets = 0
    /// Datagrams that arrived inside coalesced messages (UDP GRO, two or more to a message),
    /// summed from the worker sockets' own counts; each also counts in its kind above.
    public var coalescedDatagrams = 0
    /// STUN checks answered.
    public var stunAnswered = 0
    /// STUN dropped because its USERNAME names no registered leg (or is missing).
    public var stunUnknownUfrag = 0
    /// STUN dropped for a missing or wrong MESSAGE-INTEGRITY or FINGERPRINT.
    public var stunBadSignature = 0
    /// STUN dropped as unreadable (truncated or oversized attributes, not a Binding
    /// request, an unknown required attribute, a role conflict).
    public var stunMalformed = 0
    /// DTLS datagrams that were not a usable record for a known leg: from an address no
    /// leg selected, not a ClientHello where one was needed, or garbage the leg's DTLS
    /// transport discarded.
    public var dtlsGarbage = 0
    /// DTLS handshakes admitted (a transport created for a ClientHello).
    public var handshakesStarted = 0
    /// Handshakes that ended with keys.
    public var handshakesCompleted = 0
    /// Handshakes that failed (wrong fingerprint, no common profile, protocol error).
    public var handshakesFailed = 0
    /// Handshakes freed because they did not finish within the bound.
    public var handshakesTimedOut = 0
    /// ClientHellos refused by the per-host or total cap on handshakes in flight.
    public var handshakesRefused = 0
    /// SRTP or SRTCP that failed to unprotect (authentication, replay, malformed).
    public var srtpAuthFailures = 0
    /// RTP or RTCP from an address no leg selected, or for a leg without keys yet.
    public var mediaWithoutLeg = 0
    /// RTP and RTCP packets unprotected and handed to the receive handler.
    public var mediaDelivered = 0
    /// RTP and RTCP packets protected and sent by `send`.
    public var mediaSent = 0
    /// Times a leg's ICE consent lapsed (RFC 7675: no valid check for `consentTimeout`).
    /// The leg stays registered; nothing is sent to it until consent returns.
    public var consentLapses = 0
    /// Times a valid check restored a lapsed leg's consent (sending resumed).
    public var consentRestored = 0
    /// Packets `send` refused because the leg's consent had lapsed (`.consentLapsed`).
    public var mediaWithheld = 0

    /// All zero.
    public init() {}
}

/// The live counters behind `EdgeCounters`: one relaxed atomic per field, bumped by the
/// workers and `send` without a lock.
final class EdgeCounterSet: Sendable {
    let stunPackets = Atomic<Int>(0), dtlsPackets = Atomic<Int>(0), rtpPackets = Atomic<Int>(0)
    let rtcpPackets = Atomic<Int>(0), unknownPackets = Atomic<Int>(0)
    let stunAnswered = Atomic<Int>(0), stunUnknownUfrag = Atomic<Int>(0), stunBadSignature = Atomic<Int>(0)
    let stunMalformed = Atomic<Int>(0), dtlsGarbage = Atomic<Int>(0)
    let handshakesStarted = Atomic<Int>(0), handshakesCompleted = Atomic<Int>(0), handshakesFailed = Atomic<Int>(0)
    let handshakesTimedOut = Atomic<Int>(0), handshakesRefused = Atomic<Int>(0)
    let srtpAuthFailures = Atomic<Int>(0), mediaWithoutLeg = Atomic<Int>(0), mediaDelivered = Atomic<Int>(0)
    let mediaSent = Atomic<Int>(0), consentLapses = Atomic<Int>(0), consentRestored = Atomic<Int>(0)
    let mediaWithheld = Atomic<Int>(0)

    /// Every field, read one by one (relaxed: a snapshot, not a transaction).
    var snapshot: EdgeCounters {
        var c = EdgeCounters()
        c.stunPackets = stunPackets.load(ordering: .relaxed)
        c.dtlsPackets = dtlsPackets.load(ordering: .relaxed)
        c.rtpPackets = rtpPackets.load(ordering: .relaxed)
        c.rtcpPackets = rtcpPackets.load(ordering: .relaxed)
        c.unknownPackets = unknownPackets.load(ordering: .relaxed)
        c.stunAnswered = stunAnswered.load(ordering: .relaxed)
        c.stunUnknownUfrag = stunUnknownUfrag.load(ordering: .relaxed)
        c.stunBadSignature = stunBadSignature.load(ordering: .relaxed)
        c.stunMalformed = stunMalformed.load(ordering: .relaxed)
        c.dtlsGarbage = dtlsGarbage.load(ordering: .relaxed)
        c.handshakesStarted = handshakesStarted.load(ordering: .relaxed)
        c.handshakesCompleted = handshakesCompleted.load(ordering: .relaxed)
        c.handshakesFailed = handshakesFailed.load(ordering: .relaxed)
        c.handshakesTimedOut = handshakesTimedOut.load(ordering: .relaxed)
        c.handshakesRefused = handshakesRefused.load(ordering: .relaxed)
        c.srtpAuthFailures = srtpAuthFailures.load(ordering: .relaxed)
        c.mediaWithoutLeg = mediaWithoutLeg.load(ordering: .relaxed)
        c.mediaDelivered = mediaDelivered.load(ordering: .relaxed)
        c.mediaSent = mediaSent.load(ordering: .relaxed)
        c.consentLapses = consentLapses.load(ordering: .relaxed)
        c.consentRestored = consentRestored.load(ordering: .relaxed)
        c.mediaWithheld = mediaWithheld.load(ordering: .relaxed)
        return c
    }
}
