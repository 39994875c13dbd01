/// Turns the driver's 32-bit frame sequence numbers into a 64-bit count and the number
/// of frames skipped (a gap means the driver dropped frames because no buffer was free).
/// Internal to `V4L2Camera`; a value type, arithmetic only.
struct V4L2SequenceTracker {
    private var last: UInt32?
    private var wraps: UInt64 = 0

    /// Records the next dequeued `sequence`; returns the 64-bit sequence and the frames
    /// missing since the previous one (0 for the first, and for a backwards jump, which
    /// only a driver restart causes).
    mutating func record(_ sequence: UInt32) -> (sequence: UInt64, gap: UInt64) {
        defer { last = sequence }
        guard let last else { return (UInt64(sequence), 0) }
        let gap = sequence &- last &- 1
        if sequence < last && gap < 1 << 31 { wraps += 1 }
        return (wraps << 32 | UInt64(sequence), gap < 1 << 31 ? UInt64(gap) : 0)
    }
}
