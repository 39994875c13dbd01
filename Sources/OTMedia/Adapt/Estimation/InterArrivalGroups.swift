/// The difference between two consecutive packet groups: the measurement the delay-based
/// controller is built on (draft-ietf-rmcat-gcc-02 §5.1).
///
/// `d(i) = t(i) - t(i-1) - (T(i) - T(i-1))` is ``delayVariationNanoseconds``: zero when the
/// path is not queueing, positive when a queue grows, negative when it drains.
public struct InterGroupDelta: Sendable, Equatable {
    /// T(i) - T(i-1): departure of the last packet of the newer group minus that of the
    /// older one, on the sender's clock.
    public var sendDeltaNanoseconds: Int64
    /// t(i) - t(i-1): arrival of the last packet of the newer group minus that of the
    /// older one, on the receiver's clock.
    public var arrivalDeltaNanoseconds: Int64
    /// Bytes in the newer group minus bytes in the older one.
    public var sizeDelta: Int
    /// t(i): when the newer group's last packet arrived (receiver's clock).
    public var arrivalNanoseconds: UInt64
    /// T(i): when the newer group's last packet was sent (sender's clock).
    public var sendNanoseconds: UInt64

    /// Creates a delta; costs nothing beyond the copy.
    public init(sendDeltaNanoseconds: Int64, arrivalDeltaNanoseconds: Int64, sizeDelta: Int,
                arrivalNanoseconds: UInt64, sendNanoseconds: UInt64) {
        self.sendDeltaNanoseconds = sendDeltaNanoseconds
        self.arrivalDeltaNanoseconds = arrivalDeltaNanoseconds
        self.sizeDelta = sizeDelta
        self.arrivalNanoseconds = arrivalNanoseconds
        self.sendNanoseconds = sendNanoseconds
    }

    /// d(i) of draft-ietf-rmcat-gcc-02 §5.1: inter-arrival minus inter-departure time.
    public var delayVariationNanoseconds: Int64 { arrivalDeltaNanoseconds - sendDeltaNanoseconds }
}

/// Groups acknowledged packets into bursts and yields, per pair of consecutive groups, the
/// send-time, arrival-time and size deltas (draft-ietf-rmcat-gcc-02 §5.1 and §5.2).
///
/// Rules, in the order they are applied to each packet (in feedback order, which is
/// transport-wide sequence order):
/// - A lost packet (`arrivalNanoseconds == nil`) is ignored: it has no arrival time.
/// - A packet sent before the current group began is out of order and ignored (§5.1: "Any
///   packets received out of order are ignored by the arrival-time model").
/// - A packet sent within `burstTime` of the current group's first packet joins it (§5.2,
///   first condition; burst_time = 5 ms, §4 and Table 1 of §5.6).
/// - A packet that arrives less than `burstTime` after the group's last arrival with a
///   negative delay variation against the group joins it too: it was queued behind the group
///   (an outage released in a burst, §5.2 second condition). A burst may not stretch the
///   group's arrival span past ``maximumBurstSpanNanoseconds``, so a long run of
///   back-to-back arrivals still yields measurements.
/// - Otherwise the current group is complete. A complete group that arrived (its last
///   packet) before its predecessor was reordered as a whole; it is dropped and counted
///   (§5.1 again). A gap whose delay variation exceeds ``resetGapNanoseconds`` means the
///   receiver's clock jumped or the path was down for seconds: no delta is reported and the
///   measurement restarts from that group.
///
/// A group's time stamps are those of its last packet (§5.1: T(i) is "the departure
/// timestamp of the last packet", t(i) "the time at which the last packet of the group was
/// received"); with reordering inside a group, the latest arrival.
///
/// Cost: O(1) per packet, two small inline structs of state, no allocation.
public struct InterArrivalGroups: Sendable {
    /// burst_time of draft-ietf-rmcat-gcc-02 §4 and §5.6 Table 1: 5 ms.
    public static let burstTimeNanoseconds: UInt64 = 5_000_000
    /// Longest arrival span a burst-merged group may reach (our choice: 100 ms, a few
    /// frame intervals; beyond that a burst is a queue draining, which the trendline must
    /// see as separate groups).
    public static let maximumBurstSpanNanoseconds: UInt64 = 100_000_000
    /// Delay variation beyond which the measurement restarts (our choice: 3 s; no queue on a
    /// real-time path is that deep, so it is a clock step or an outage).
    public static let resetGapNanoseconds: Int64 = 3_000_000_000

    struct Group: Sendable {
        var firstSend: UInt64
        var lastSend: UInt64
        var firstArrival: UInt64
        var lastArrival: UInt64
        var size: Int

        init(send: UInt64, arrival: UInt64, size: Int) {
            firstSend = send; lastSend = send; firstArrival = arrival; lastArrival = arrival; self.size = size
        }

        mutating func add(send: UInt64, arrival: UInt64, size: Int) {
            lastSend = max(lastSend, send)
            lastArrival = max(lastArrival, arrival)
            self.size += size
        }
    }

    private var current: Group?
    private var previous: Group?
    /// Packets ignored because they were sent before the group being built (out of order).
    public private(set) var reorderedPackets = 0
    /// Whole groups dropped because they arrived before their predecessor.
    public private(set) var reorderedGroups = 0
    /// Times the measurement restarted after a gap beyond ``resetGapNanoseconds``.
    public private(set) var resets = 0
    /// Lost packets seen (and ignored).
    public private(set) var lostPackets = 0

    /// An empty grouper. Costs nothing.
    public init() {}

    /// Forgets both groups (counters stay). O(1).
    public mutating func reset() {
        current = nil
        previous = nil
    }

    /// Feeds one packet; returns the delta between the two groups that this packet proved
    /// complete, if any. O(1), no allocation.
    public mutating func add(_ packet: PacketResult) -> InterGroupDelta? {
        guard let arrival = packet.arrivalNanoseconds else {
            lostPackets += 1
            return nil
        }
        let send = packet.sendNanoseconds
        guard var group = current else {
            current = Group(send: send, arrival: arrival, size: packet.size)
            return nil
        }
        if send < group.firstSend {
            reorderedPackets += 1
            return nil
        }
        if Self.belongs(send: send, arrival: arrival, to: group) {
            group.add(send: send, arrival: arrival, size: packet.size)
            current = group
            return nil
        }
        // The packet opens a new group: the current one is complete.
        current = Group(send: send, arrival: arrival, size: packet.size)
        guard let before = previous else {
            previous = group
            return nil
        }
        if group.lastArrival < before.lastArrival {
            reorderedGroups += 1
            return nil
        }
        let sendDelta = Int64(bitPattern: group.lastSend &- before.lastSend)
        let arrivalDelta = Int64(bitPattern: group.lastArrival &- before.lastArrival)
        previous = group
        if abs(arrivalDelta - sendDelta) > Self.resetGapNanoseconds {
            resets += 1
            return nil
        }
        return InterGroupDelta(sendDeltaNanoseconds: sendDelta, arrivalDeltaNanoseconds: arrivalDelta,
                               sizeDelta: group.size - before.size,
                               arrivalNanoseconds: group.lastArrival, sendNanoseconds: group.lastSend)
    }

    /// §5.2: sent within burst_time of the group's start, or arrived in a burst behind it.
    static func belongs(send: UInt64, arrival: UInt64, to group: Group) -> Bool {
        if send - group.firstSend <= burstTimeNanoseconds { return true }
        let interArrival = Int64(bitPattern: arrival &- group.lastArrival)
        let interDeparture = Int64(bitPattern: send &- group.lastSend)
        let withinSpan = arrival >= group.firstArrival
            && arrival - group.firstArrival <= maximumBurstSpanNanoseconds
        return interArrival < Int64(burstTimeNanoseconds) && interArrival - interDeparture < 0 && withinSpan
    }
}
