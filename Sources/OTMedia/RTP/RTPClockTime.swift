/// Converts monotonic nanoseconds to RTP clock ticks (90 kHz video, 48 kHz Opus).
///
/// Splits seconds from the remainder so the multiplication cannot overflow however long
/// the machine has been up (a plain `ns × rate` traps after about 57 hours at 90 kHz).
/// Cost: a few integer operations.
enum RTPClockTime {
    /// Ticks of a `rate` Hz clock in `nanoseconds`, truncated.
    static func ticks(nanoseconds: UInt64, rate: Int) -> UInt64 {
        let rate = UInt64(rate)
        return nanoseconds / 1_000_000_000 * rate + nanoseconds % 1_000_000_000 * rate / 1_000_000_000
    }
}
