/// Where a media leg sends, and when it may move (a router's leg, or a relayed
/// publisher's receiver). The first authenticated datagram sets
/// the address. After that a datagram from another source does not move the leg: a
/// client holds its own keys, so one source-spoofed authenticated datagram would otherwise
/// point the leg — its media and every resend it NACKs — at a third party. The new source
/// must pass a probation instead: at least `probationDatagrams` (3) authenticated
/// datagrams over at least `probationNanoseconds` (1 s), none from the current address in
/// between (a client still heard on its path has not moved). Moves are at most one per
/// `moveInterval` (5 s) per leg. Meanwhile everything keeps going to the current address.
///
/// Why these numbers: a genuine NAT rebinding stops the old path, and OTKit clients send
/// authenticated RTCP often (a subscriber's transport-wide feedback every 50–100 ms and a
/// receiver report every second; a publisher its media), so a real move completes about a
/// second after the new path's first datagram, well within the few seconds a user
/// tolerates. A 1 s probation outlasts a single spoofed or replayed datagram; it is not
/// consent (the WebRTC edge's ICE consent freshness, RFC 7675, will be), but with the
/// rate limit a leg can be pointed away at most once per 5 s.
///
/// Cost: a few compares of 128-byte addresses per datagram; no allocation. Used by one
/// thread at a time (the leg's forwarding thread).
public struct LegAddressGuard: Sendable {
    /// What one authenticated datagram did to the leg's address.
    public enum Outcome: Equatable, Sendable {
        /// From the current address (or no source known): nothing changes.
        case unchanged
        /// The leg's first address.
        case learned
        /// The leg moved to the datagram's source; `from` was the address before.
        case moved(from: SocketAddress)
        /// From another source still in probation (or held by the rate limit).
        case held
    }

    /// Authenticated datagrams a new source must send before the leg moves to it.
    public static let probationDatagrams = 3
    /// How long, from its first datagram, a new source must keep sending.
    public static let probationNanoseconds: UInt64 = 1_000_000_000
    /// The least time between two moves of one leg.
    public static let moveInterval: UInt64 = 5_000_000_000

    /// The address the leg sends to (nil until a datagram authenticated).
    public private(set) var address: SocketAddress?
    private var candidate: SocketAddress?
    private var candidateDatagrams = 0
    private var candidateSince: UInt64 = 0
    private var lastMove: UInt64?

    /// A guard with no address yet.
    public init() {}

    /// Notes the source of an authenticated datagram received at `now` (monotonic ns).
    public mutating func observe(_ source: SocketAddress?, now: UInt64) -> Outcome {
        guard let source else { return .unchanged }
        guard let current = address else {
            address = source
            return .learned
        }
        if source == current {
            candidate = nil
            return .unchanged
        }
        if candidate == source {
            candidateDatagrams = min(candidateDatagrams + 1, Self.probationDatagrams)
        } else {
            candidate = source
            candidateDatagrams = 1
            candidateSince = now
        }
        guard candidateDatagrams >= Self.probationDatagrams, now &- candidateSince >= Self.probationNanoseconds,
              lastMove.map({ now &- $0 >= Self.moveInterval }) ?? true
        else { return .held }
        address = source
        candidate = nil
        lastMove = now
        return .moved(from: current)
    }
}
