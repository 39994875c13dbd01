/// The receiver's anti-replay state for one KID (RFC 9605 §7.5 leaves it to the
/// application; this is RFC 3711 §3.3.2's sliding window over CTR): the newest counter
/// accepted and which of the 127 before it were accepted too.
///
/// A counter newer than the newest is fresh; one inside the window is fresh once; one
/// more than `width − 1` behind the newest is too old. Only authenticated frames move
/// the window (`accept` after the tag verified), so forged frames cannot push genuine
/// ones out. Frames are whole encoded frames (the jitter buffer reorders packets before
/// this), so 128 frames of reorder — 4 s of 30 fps video — is far more than arrives.
/// Cost: a few shifts; no allocation.
public struct SFrameReplayWindow: Sendable, Equatable {
    /// Counters the window spans, the newest included.
    public static let width: UInt64 = 128

    /// What the window says of a counter.
    public enum Verdict: Sendable, Equatable {
        /// Not seen, within reach: decrypt it.
        case fresh
        /// Already accepted.
        case replayed
        /// Behind the window: whether it was seen is no longer known, so it is refused.
        case tooOld
    }

    private var newest: UInt64 = 0
    /// Bit i of (high, low) set: counter `newest − i` accepted (low holds i < 64).
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// An empty window: every counter is fresh.
    public init() {}

    /// Whether `counter` may be decrypted. Does not change the window.
    @inline(__always)
    public func check(_ counter: UInt64) -> Verdict {
        guard low != 0 else { return .fresh }
        if counter > newest { return .fresh }
        let behind = newest - counter
        guard behind < Self.width else { return .tooOld }
        let seen = behind < 64 ? low >> behind & 1 : high >> (behind - 64) & 1
        return seen == 1 ? .replayed : .fresh
    }

    /// Records `counter` as accepted (call only after its frame authenticated and
    /// `check` said `.fresh`).
    @inline(__always)
    public mutating func accept(_ counter: UInt64) {
        if low == 0 || counter > newest {
            let shift = low == 0 ? Self.width : counter - newest
            if shift >= 128 {
                high = 0
                low = 0
            } else if shift >= 64 {
                high = low << (shift - 64)
                low = 0
            } else if shift > 0 {
                high = high << shift | low >> (64 - shift)
                low <<= shift
            }
            newest = counter
            low |= 1
            return
        }
        let behind = newest - counter
        guard behind < Self.width else { return }
        if behind < 64 { low |= 1 << behind } else { high |= 1 << (behind - 64) }
    }
}
