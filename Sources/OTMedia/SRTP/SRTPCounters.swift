import Synchronization

/// What one `SRTPSession` did, readable from any thread while the session works.
///
/// Each figure is an `Atomic` updated with a relaxed add by the session's thread (a few
/// nanoseconds, no lock); readers see each counter exactly, though two counters read one
/// after the other may straddle a packet. RTP and RTCP packets count together.
public final class SRTPCounters: Sendable {
    private let protectedCount = Atomic<UInt64>(0)
    private let unprotectedCount = Atomic<UInt64>(0)
    private let authFailureCount = Atomic<UInt64>(0)
    private let replayCount = Atomic<UInt64>(0)
    private let otherErrorCount = Atomic<UInt64>(0)

    /// Creates zeroed counters.
    public init() {}

    /// Packets protected (RTP and RTCP).
    public var protected: UInt64 { protectedCount.load(ordering: .relaxed) }
    /// Packets unprotected and accepted (RTP and RTCP).
    public var unprotected: UInt64 { unprotectedCount.load(ordering: .relaxed) }
    /// Packets dropped because their tag did not verify.
    public var authFailures: UInt64 { authFailureCount.load(ordering: .relaxed) }
    /// Packets dropped as replays: repeated, or older than the replay window.
    public var replays: UInt64 { replayCount.load(ordering: .relaxed) }
    /// Every other failure: malformed packets, short buffers, wrong direction, library errors.
    public var otherErrors: UInt64 { otherErrorCount.load(ordering: .relaxed) }

    @inline(__always) func countProtected() { protectedCount.add(1, ordering: .relaxed) }
    @inline(__always) func countUnprotected() { unprotectedCount.add(1, ordering: .relaxed) }

    /// Counts a failure under its kind.
    func count(_ error: SRTPError) {
        switch error {
        case .authenticationFailed: authFailureCount.add(1, ordering: .relaxed)
        case .replayed, .tooOld: replayCount.add(1, ordering: .relaxed)
        default: otherErrorCount.add(1, ordering: .relaxed)
        }
    }
}
