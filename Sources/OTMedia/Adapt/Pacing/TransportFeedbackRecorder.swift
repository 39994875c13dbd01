/// The receiver half of transport-wide congestion control
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01): remembers when each packet with
/// a transport-wide sequence number arrived and writes RTCP transport-wide feedback
/// (PT 205, FMT 15) about every packet since the last feedback, about every 50 ms.
///
/// - Sequence numbers: the 16-bit wire value is unwrapped to the value nearest the
///   highest one seen (RFC 3550 appendix A.1's rule), so reordering across 65535 → 0
///   keeps its order.
/// - Storage: a fixed ring of `capacity` arrival slots indexed by the unwrapped number,
///   allocated once; `record` is O(1) with no allocation. A packet more than `capacity`
///   ahead of the last reported one pushes the oldest unreported ones out (counted
///   `overwrittenPackets`; they are then reported lost).
/// - Losses before a feedback's base: `TransportWideCCBuilder` starts a feedback at its
///   first record, so each feedback after the first starts again at the last packet the
///   previous one reported (received, its arrival kept): the gap after it comes out as
///   "not received" statuses, and the sender's `TransportFeedbackAdapter` skips the one
///   repeated status as a duplicate. A feedback never reports a number at or before the
///   last one reported; a packet arriving that late is counted (`latePackets`) and dropped.
/// - Size: one feedback holds at most `maxFeedbackSize` bytes; what does not fit stays
///   for the next one, and `isDue` is then true at once.
///
/// One thread owns it (the receive loop). Cost: `record` O(1); `buildFeedback` O(packets
/// since the last feedback), no allocation (the records array is reserved at init).
public struct TransportFeedbackRecorder: Sendable {
    /// Settings fixed at creation.
    public struct Configuration: Sendable, Equatable {
        /// Arrival slots (rounded up to a power of two): packets that may wait for one
        /// feedback. 2048 is ~100 ms at 20k packets/s, far above a client's rates.
        public var capacity: Int = 2048
        /// Time between feedbacks: 50 ms (the draft's examples send feedback per 50–100 ms;
        /// issue 5 agreed on ~50 ms).
        public var intervalNanoseconds: UInt64 = 50_000_000
        /// Largest feedback packet written (an RTCP packet inside one SRTCP datagram).
        public var maxFeedbackSize: Int = 1200
        /// Reordering tolerance: a feedback reports only through the last packet that
        /// arrived at least this long ago, so a packet overtaken by less than this is
        /// reported received rather than lost (a feedback cannot take a loss back, and
        /// the sender's loss-based control would count reordering as loss). 0: report
        /// through the highest packet at once.
        public var reorderHoldNanoseconds: UInt64 = 0

        /// The defaults above.
        public init() {}

        /// What the media receivers use: the defaults with a 40 ms reordering hold (a
        /// path's jitter of up to 40 ms reorders without looking like loss; congestion
        /// signals come up to 40 ms later).
        public static var reordering: Configuration {
            var c = Configuration()
            c.reorderHoldNanoseconds = 40_000_000
            return c
        }

        /// Explicit settings.
        public init(capacity: Int, intervalNanoseconds: UInt64, maxFeedbackSize: Int = 1200) {
            self.capacity = capacity
            self.intervalNanoseconds = intervalNanoseconds
            self.maxFeedbackSize = maxFeedbackSize
        }
    }

    /// Running totals, for stats and tests.
    public struct Counters: Sendable, Equatable {
        /// Packets recorded.
        public var recordedPackets: UInt64 = 0
        /// Packets that arrived at or before the last reported number (dropped).
        public var latePackets: UInt64 = 0
        /// Packets recorded twice before being reported (the second is ignored).
        public var duplicatePackets: UInt64 = 0
        /// Unreported arrivals pushed out of the ring by packets `capacity` ahead.
        public var overwrittenPackets: UInt64 = 0
        /// Feedback packets written.
        public var feedbackPackets: UInt64 = 0
        /// Statuses written (received and lost), including the one repeated per feedback.
        public var reportedStatuses: UInt64 = 0

        /// All zero.
        public init() {}
    }

    private struct Slot: Sendable {
        var sequenceNumber: UInt64 = .max
        var arrivalNanoseconds: UInt64 = 0
    }

    /// The settings.
    public let configuration: Configuration
    /// Totals so far.
    public private(set) var counters = Counters()

    private var slots: [Slot]
    private let mask: Int
    private var records: [TWCCReceivedPacket]
    /// Highest unwrapped number recorded, nil before the first packet.
    private var highest: UInt64?
    /// The last packet a feedback reported (received), repeated as the next one's first.
    private var lastReported: TWCCReceivedPacket?
    private var lastReportedUnwrapped: UInt64?
    private var lastFeedbackNanoseconds: UInt64?
    private var feedbackCount: UInt8 = 0
    /// The last feedback was full: the next is due at once.
    private var backlog = false

    /// An empty recorder. Allocates the ring and the records array once.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var size = 16
        while size < configuration.capacity { size <<= 1 }
        slots = Array(repeating: Slot(), count: size)
        mask = size - 1
        records = []
        records.reserveCapacity(size + 1)
    }

    /// Unwrapped numbers start here, so a packet behind the very first one still unwraps
    /// to a non-negative value.
    static let unwrapOrigin: UInt64 = 1 << 32

    /// Records one packet's arrival (`arrivalNanoseconds` on the receiver's monotonic
    /// clock). Cost: O(1), no allocation.
    public mutating func record(transportSequence wire: UInt16, arrivalNanoseconds: UInt64) {
        let sequence: UInt64
        if let highest {
            let step = Int64(Int16(bitPattern: wire &- UInt16(truncatingIfNeeded: highest)))
            sequence = UInt64(Int64(highest) + step)
            if step > 0 { self.highest = sequence }
        } else {
            sequence = Self.unwrapOrigin + UInt64(wire)
            highest = sequence
        }
        if let reported = lastReportedUnwrapped, sequence <= reported {
            counters.latePackets += 1
            return
        }
        let index = Int(truncatingIfNeeded: sequence) & mask
        let occupant = slots[index].sequenceNumber
        if occupant == sequence {
            counters.duplicatePackets += 1
            return
        }
        if occupant != .max, occupant > sequence {
            // A newer packet holds the slot: this one is over `capacity` behind.
            counters.latePackets += 1
            return
        }
        if occupant != .max, lastReportedUnwrapped.map({ occupant > $0 }) ?? true {
            counters.overwrittenPackets += 1
        }
        slots[index] = Slot(sequenceNumber: sequence, arrivalNanoseconds: arrivalNanoseconds)
        counters.recordedPackets += 1
    }

    /// Whether packets arrived since the last feedback.
    public var hasUnreported: Bool {
        guard let highest else { return false }
        return lastReportedUnwrapped.map { highest > $0 } ?? true
    }

    /// Whether a feedback should go out at `now`: something is unreported and the interval
    /// has passed since the last feedback (or the last one could not hold everything, in
    /// which case `buildFeedback` was left with more). Cost: O(1).
    public func isDue(now: UInt64) -> Bool {
        guard hasUnreported else { return false }
        guard let last = lastFeedbackNanoseconds, !backlog else { return true }
        return now >= last &+ configuration.intervalNanoseconds
    }

    /// When the next feedback is due if packets arrive (`now` when overdue), for the
    /// caller's sleep; nil before the first packet.
    public func nextFeedbackTime(now: UInt64) -> UInt64? {
        guard highest != nil else { return nil }
        guard let last = lastFeedbackNanoseconds, !backlog else { return now }
        return max(now, last &+ configuration.intervalNanoseconds)
    }

    /// Writes one transport-wide feedback packet about the packets since the last one at
    /// the start of `buffer` and returns its size; 0 when nothing is unreported or the
    /// buffer is too small for even one status (the packets stay for the next call).
    /// `now` is when it goes out (the cadence's clock). The feedback packet count
    /// increments per packet written. Cost: O(packets covered), no allocation.
    public mutating func buildFeedback(senderSSRC: UInt32, mediaSSRC: UInt32, now: UInt64,
                                       into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let highest, hasUnreported else { return 0 }
        records.removeAll(keepingCapacity: true)
        let windowStart = highest >= UInt64(slots.count) ? highest - UInt64(slots.count) + 1 : 0
        var start = windowStart
        if let reported = lastReportedUnwrapped, let last = lastReported, reported + 1 >= windowStart {
            start = reported + 1
            records.append(last)
        }
        let repeated = records.count
        var end = highest
        if configuration.reorderHoldNanoseconds > 0 {
            // Back to the newest packet old enough that nothing behind it is still on its way.
            while end >= start {
                let slot = slots[Int(truncatingIfNeeded: end) & mask]
                if slot.sequenceNumber == end, slot.arrivalNanoseconds &+ configuration.reorderHoldNanoseconds <= now { break }
                if end == 0 { break }
                end -= 1
            }
            guard end >= start, slots[Int(truncatingIfNeeded: end) & mask].sequenceNumber == end else {
                lastFeedbackNanoseconds = now  // nothing old enough: try again after an interval
                backlog = false
                return 0
            }
        }
        var sequence = start
        while sequence <= end {
            let slot = slots[Int(truncatingIfNeeded: sequence) & mask]
            if slot.sequenceNumber == sequence {
                records.append(TWCCReceivedPacket(sequenceNumber: UInt16(truncatingIfNeeded: sequence),
                                                  arrivalNanoseconds: slot.arrivalNanoseconds))
            }
            sequence += 1
        }
        guard records.count > repeated else { return 0 }
        let size = min(buffer.count, configuration.maxFeedbackSize)
        var written = write(from: 0, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, maxSize: size, into: buffer)
        if written.consumed <= repeated, repeated > 0 {
            // The repeated packet's delta to the next cannot be written (a pause of over
            // 8 s): start afresh at the first new packet; the gap goes unreported.
            written = write(from: repeated, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, maxSize: size,
                            into: buffer)
        }
        guard written.size > 0 else { return 0 }
        let last = records[written.lastIndex]
        lastReported = last
        lastReportedUnwrapped = end - UInt64(UInt16(truncatingIfNeeded: end) &- last.sequenceNumber)
        lastFeedbackNanoseconds = now
        backlog = written.lastIndex < records.count - 1
        feedbackCount &+= 1
        counters.feedbackPackets += 1
        counters.reportedStatuses += UInt64(written.statuses)
        return written.size
    }

    /// Builds from `records[first...]`; returns the size (0 on failure), records consumed
    /// from `first`, the index of the last record covered and the statuses written.
    private func write(from first: Int, senderSSRC: UInt32, mediaSSRC: UInt32, maxSize: Int,
                       into buffer: UnsafeMutableRawBufferPointer)
        -> (size: Int, consumed: Int, lastIndex: Int, statuses: Int) {
        let count = feedbackCount
        return records.withUnsafeBufferPointer { all in
            let slice = UnsafeBufferPointer(rebasing: all[first...])
            guard !slice.isEmpty,
                  let builder = try? TransportWideCCBuilder(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                                                            feedbackPacketCount: count, records: slice,
                                                            maxSize: maxSize),
                  let size = try? builder.write(into: buffer)
            else { return (0, 0, 0, 0) }
            return (size, builder.consumed, first + builder.consumed - 1, builder.packetStatusCount)
        }
    }
}
