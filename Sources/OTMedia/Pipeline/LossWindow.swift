/// The video loss fraction the publisher's audio fallback sees: packets the receiver
/// reported lost (RTCP receiver reports, cumulative) against packets sent, over windows
/// of about a second, timed by capture timestamps.
///
/// Approximate by design (reports lag the packets by up to a report interval); the
/// bandwidth estimate carries most of the loss signal already. Cost per call: a
/// comparison; once a second two relaxed atomic loads.
struct LossWindow {
    /// Window length, nanoseconds.
    static let window: UInt64 = 1_000_000_000
    private var start: UInt64?
    private var lost: Int64 = 0
    private var sent: UInt64 = 0
    /// The fraction from the last complete window.
    private(set) var fraction = 0.0

    /// The loss fraction (0…1) at capture time `now`, refreshed once per window.
    mutating func update(now: UInt64, counters: StreamCounters) -> Double {
        guard let begun = start else {
            start = now
            lost = counters.packetsLost.load(ordering: .relaxed)
            sent = counters.packets.load(ordering: .relaxed)
            return fraction
        }
        guard now &- begun >= Self.window else { return fraction }
        let lostNow = counters.packetsLost.load(ordering: .relaxed)
        let sentNow = counters.packets.load(ordering: .relaxed)
        let newlyLost = Double(max(0, lostNow - lost))
        let newlySent = Double(sentNow &- sent)
        fraction = newlySent + newlyLost > 0 ? min(1, newlyLost / (newlySent + newlyLost)) : 0
        start = now
        lost = lostNow
        sent = sentNow
        return fraction
    }
}
