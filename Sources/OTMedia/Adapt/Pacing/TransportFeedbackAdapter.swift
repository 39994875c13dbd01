/// Turns parsed TWCC feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01
/// section 3.1) into per-packet results for the bandwidth estimator: each status is
/// paired with the packet in the `SentPacketHistory` (send time, size), and its arrival
/// time is rebuilt from the reference time and the receive deltas.
///
/// - Sequence numbers: the 16-bit base is unwrapped against the newest packet sent;
///   statuses follow it (base + i), so a feedback that spans 65535 → 0 stays in order.
/// - Arrival times: the 24-bit reference time (64 ms units, section 3.1) is unwrapped
///   across feedback packets, so arrivals keep increasing across its 12.4-day wrap. The
///   time base is the receiver's (only differences matter): `referenceTime × 64 ms + Σ
///   deltas × 250 µs` exactly, in nanoseconds. A pathological negative time clamps to 0,
///   and one past `maximumArrivalNanoseconds` (about 2^62 ns, 146 years: only a receiver that
///   steps its reference time forward on purpose gets there) clamps to it, so neither the
///   conversion here nor the estimators' differences of two arrivals can overflow.
/// - Lost packets (status "not received") come out with `arrivalNanoseconds == nil`.
/// - Duplicates: a packet already reported received, or reported lost twice, is skipped
///   (counted); a packet reported lost and later received (feedback that came back out
///   of order, or a receiver that reports late arrivals) is emitted again with its
///   arrival, so the delay estimator gets the sample (counted as `recovered`).
/// - Unknown packets (never sent, overwritten, or past the history's horizon) are skipped
///   and counted.
/// - The feedback packet count (8 bits, section 3.1) is tracked to count missing and
///   out-of-order feedback packets; both are still processed.
///
/// Results go into a caller-provided array, in the order the feedback lists them
/// (sequence order, not arrival order). Cost: O(statuses); no allocation as long as the
/// array's capacity covers a feedback's statuses (reserve, say, 1024 once).
public struct TransportFeedbackAdapter: Sendable {
    /// What the adapter has seen, for stats and tests.
    public struct Counters: Sendable, Equatable {
        /// Feedback packets adapted.
        public var feedbackPackets: UInt64 = 0
        /// Feedback packets skipped in the feedback-count sequence (lost on the way).
        public var missingFeedbackPackets: UInt64 = 0
        /// Feedback packets whose count was not ahead of the last one (late or repeated).
        public var outOfOrderFeedbackPackets: UInt64 = 0
        /// Statuses naming no packet in the history.
        public var unknownPackets: UInt64 = 0
        /// Statuses that repeated what earlier feedback said.
        public var duplicateReports: UInt64 = 0
        /// Packets reported lost that a later feedback reported received.
        public var recoveredPackets: UInt64 = 0
        /// Results emitted with an arrival time.
        public var receivedResults: UInt64 = 0
        /// Results emitted as lost.
        public var lostResults: UInt64 = 0

        /// All zero.
        public init() {}
    }

    /// 2^24: the reference time's modulus (24-bit field, section 3.1).
    static let referenceModulus: Int64 = 1 << 24
    /// Nanoseconds per receive-delta tick (250 µs, section 3.1.5).
    static let nanosecondsPerTick: Int64 = TransportWideCCFeedback.deltaTickMicroseconds * 1000
    /// Ticks per reference-time unit (64 ms / 250 µs).
    static let ticksPerReferenceUnit: Int64 =
        TransportWideCCFeedback.referenceTimeUnitMicroseconds / TransportWideCCFeedback.deltaTickMicroseconds

    /// The most ticks an arrival time is converted from: 2^62 ns, rounded down to a tick.
    static let maximumArrivalTicks: Int64 = (1 << 62) / nanosecondsPerTick
    /// The latest arrival time emitted (just under 2^62 ns, a whole tick): differences of
    /// two arrivals, and those minus a send-time difference, then stay inside `Int64`.
    public static let maximumArrivalNanoseconds = UInt64(maximumArrivalTicks * nanosecondsPerTick)

    private var lastReference: Int64?
    private var lastFeedbackCount: UInt8?
    /// Counts so far.
    public private(set) var counters = Counters()

    /// An adapter that has seen no feedback.
    public init() {}

    /// Adapts one feedback: clears `results` (keeping its capacity), appends one
    /// `PacketResult` per newly reported known packet, marks those packets reported in
    /// `history`, and returns how many results it wrote. `now` is the sender's clock,
    /// for the history's horizon. Cost: O(statuses), no allocation within capacity.
    @discardableResult
    public mutating func adapt(_ feedback: TransportWideCCFeedback, history: inout SentPacketHistory, now: UInt64,
                               into results: inout [PacketResult]) -> Int {
        results.removeAll(keepingCapacity: true)
        counters.feedbackPackets += 1
        countFeedback(feedback.feedbackPacketCount)
        let reference = unwrapReference(feedback.referenceTime)
        // Saturating: the reference unwraps by up to 2^23 per feedback, so a receiver can
        // push it anywhere given enough feedback packets.
        let (product, overflow) = (reference - Int64(feedback.referenceTime)).multipliedReportingOverflow(by: Self.ticksPerReferenceUnit)
        let tickOffset = overflow ? (reference < 0 ? Int64.min : Int64.max) : product

        guard let base = history.unwrap(feedback.baseSequenceNumber) else {
            counters.unknownPackets += UInt64(feedback.packetStatusCount)
            return 0
        }
        var offset: UInt64 = 0
        for status in feedback.packets {
            let sequenceNumber = base + offset
            offset += 1
            guard let (packet, previous) = history.report(sequenceNumber, received: status.isReceived, now: now) else {
                counters.unknownPackets += 1
                continue
            }
            var arrival: UInt64?
            switch (previous, status.isReceived) {
            case (.received, _), (.lost, false):
                counters.duplicateReports += 1
                continue
            case (.lost, true):
                counters.recoveredPackets += 1
                arrival = Self.nanoseconds(ticks: status.arrivalTicks, offset: tickOffset)
            case (.none, true):
                arrival = Self.nanoseconds(ticks: status.arrivalTicks, offset: tickOffset)
            case (.none, false):
                arrival = nil
            }
            if arrival == nil { counters.lostResults += 1 } else { counters.receivedResults += 1 }
            results.append(PacketResult(sequenceNumber: packet.sequenceNumber, sendNanoseconds: packet.sendNanoseconds,
                                        arrivalNanoseconds: arrival, size: packet.size))
        }
        return results.count
    }

    /// `ticks + offset` receive-delta ticks in nanoseconds, clamped to
    /// 0...`maximumArrivalNanoseconds` (both inputs come from the network). O(1).
    @inline(__always)
    static func nanoseconds(ticks: Int64, offset: Int64) -> UInt64 {
        let (sum, overflow) = ticks.addingReportingOverflow(offset)
        let total = overflow ? (offset < 0 ? Int64.min : Int64.max) : sum
        if total <= 0 { return 0 }
        return UInt64(min(total, maximumArrivalTicks)) * UInt64(nanosecondsPerTick)
    }

    /// Unwraps the 24-bit reference time to the value nearest the last one (the same
    /// rule RFC 3550 appendix A.1 applies to sequence numbers), so late feedback maps
    /// just behind instead of a whole cycle ahead.
    private mutating func unwrapReference(_ raw: UInt32) -> Int64 {
        let value = Int64(raw & 0xFF_FFFF)
        guard let last = lastReference else {
            lastReference = value
            return value
        }
        var step = (value - last) % Self.referenceModulus
        if step < 0 { step += Self.referenceModulus }
        if step >= Self.referenceModulus / 2 { step -= Self.referenceModulus }
        let unwrapped = last + step
        if step > 0 { lastReference = unwrapped }
        return unwrapped
    }

    private mutating func countFeedback(_ count: UInt8) {
        guard let last = lastFeedbackCount else {
            lastFeedbackCount = count
            return
        }
        let step = count &- last
        if step == 0 || step >= 128 {
            counters.outOfOrderFeedbackPackets += 1
            return
        }
        counters.missingFeedbackPackets += UInt64(step - 1)
        lastFeedbackCount = count
    }
}
