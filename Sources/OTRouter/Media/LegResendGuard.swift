/// Whether the router may resend one NACKed packet on a subscriber leg: each sequence
/// number at most once per round trip, and all resends within a byte budget tied to what
/// the leg carries. Without it, a subscriber that NACKs everything (it holds its own keys,
/// so its NACKs authenticate) turns the router into an amplifier: 20 NACK packets (6 KB)
/// brought 18,708 resends (22 MB).
///
/// - Duplicate: a packet resent less than `dedupInterval` ago is not sent again; its
///   answer cannot have arrived yet (libwebrtc's `RtpPacketHistory` applies the same
///   once-per-RTT rule). The interval is the leg's round trip measured from its receiver
///   reports, at least `minimumInterval` (10 ms: the OTKit receiver's shortest retry), at
///   most 1 s (the history's age); `defaultInterval` (100 ms, the round trip the
///   estimators assume) until one is measured.
/// - Budget: a token bucket in bytes, refilled at `share` (50 %) of the leg's forwarded
///   media rate, at least `floorBitsPerSecond` (100 kbps) so a low-rate leg can still
///   repair a lost keyframe of its smallest layer, and holding at most one second of that
///   rate (libwebrtc's retransmission limiter looks at a 1 s window too). 50 % matches the
///   publisher's own bound (`PublisherTransport.retransmissionShare`): a leg losing more
///   than a third of its packets is better served by a keyframe and a lower layer.
///
/// Storage: one `UInt64` per history slot, allocated once per leg; `decide` is O(1), no
/// allocation. Forwarding thread only.
struct LegResendGuard {
    /// What `decide` answers.
    enum Decision: Equatable {
        /// Send it (the bucket has been charged, the slot stamped).
        case resend
        /// Resent within the dedup interval: skip.
        case duplicate
        /// The budget is spent: skip.
        case overBudget
    }

    /// The budget's share of the leg's forwarded media rate.
    static let share = 0.5
    /// The budget's lowest refill rate, bits per second.
    static let floorBitsPerSecond = 100_000.0
    /// How many seconds of the refill rate the bucket holds.
    static let bucketSeconds = 1.0
    /// The dedup interval while the leg's round trip is unknown.
    static let defaultInterval: UInt64 = 100_000_000
    /// The shortest and longest dedup interval a measured round trip gives.
    static let minimumInterval: UInt64 = 10_000_000
    static let maximumInterval: UInt64 = 1_000_000_000

    /// When each history slot's packet was last resent (monotonic ns; 0 = not yet).
    private var resentAt: [UInt64]
    /// Bytes that may be resent now.
    private(set) var tokens: Double
    private var refilledAt: UInt64 = 0
    /// The leg's round trip from its receiver reports (ns; 0 = unknown).
    private(set) var roundTrip: UInt64 = 0

    /// A guard for a history of `slots` packets; the bucket starts full at the floor rate.
    init(slots: Int) {
        resentAt = [UInt64](repeating: 0, count: max(slots, 1))
        tokens = Self.floorBitsPerSecond / 8 * Self.bucketSeconds
    }

    /// The bytes per second the bucket refills at for a leg forwarding `sentBitsPerSecond`.
    static func refillBytesPerSecond(sentBitsPerSecond: Double) -> Double {
        let rate = sentBitsPerSecond.isFinite ? sentBitsPerSecond : 0
        return max(rate * share, floorBitsPerSecond) / 8
    }

    /// How long after a resend the same packet may go again.
    var dedupInterval: UInt64 {
        roundTrip == 0 ? Self.defaultInterval : min(max(roundTrip, Self.minimumInterval), Self.maximumInterval)
    }

    /// Takes a round-trip measurement (ns); 0 or anything above a second (a report that
    /// lies or refers to a stale SR) is ignored.
    mutating func noteRoundTrip(_ nanoseconds: UInt64) {
        guard nanoseconds > 0, nanoseconds <= Self.maximumInterval else { return }
        roundTrip = nanoseconds
    }

    /// A new packet took `slot` of the history: it has not been resent.
    @inline(__always)
    mutating func forget(slot: Int) { resentAt[slot] = 0 }

    /// Decides on resending `bytes` from history `slot` at `now`, with the leg forwarding
    /// `sentBitsPerSecond`; `.resend` charges the bucket and stamps the slot.
    mutating func decide(slot: Int, bytes: Int, sentBitsPerSecond: Double, now: UInt64) -> Decision {
        let last = resentAt[slot]
        if last != 0, now &- last < dedupInterval { return .duplicate }
        let rate = Self.refillBytesPerSecond(sentBitsPerSecond: sentBitsPerSecond)
        if refilledAt != 0, now > refilledAt {
            // A second is the most the bucket holds: longer gaps add nothing more.
            let elapsed = Double(min(now - refilledAt, 1_000_000_000)) / 1e9
            tokens = min(tokens + rate * elapsed, rate * Self.bucketSeconds)
        }
        if refilledAt == 0 || now > refilledAt { refilledAt = now }
        let cost = Double(bytes)
        guard tokens >= cost else { return .overBudget }
        tokens -= cost
        resentAt[slot] = now == 0 ? 1 : now
        return .resend
    }
}
