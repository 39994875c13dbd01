/// What a sent packet carried, for the history and the pacer's queues.
public enum SentPacketKind: UInt8, Sendable {
    /// An audio packet (the pacer's first queue).
    case audio
    /// A video media packet.
    case video
    /// A retransmission (RFC 4588 RTX or a resent packet).
    case retransmission
    /// Padding-only, sent to probe for bandwidth.
    case padding
}

/// One packet the history remembers.
public struct SentPacket: Sendable, Equatable {
    /// Transport-wide sequence number, unwrapped.
    public var sequenceNumber: UInt64
    /// When it left, in nanoseconds of the sender's monotonic clock.
    public var sendNanoseconds: UInt64
    /// Bytes on the wire.
    public var size: Int
    /// What it carried.
    public var kind: SentPacketKind

    /// Builds a record.
    public init(sequenceNumber: UInt64, sendNanoseconds: UInt64, size: Int, kind: SentPacketKind) {
        self.sequenceNumber = sequenceNumber
        self.sendNanoseconds = sendNanoseconds
        self.size = size
        self.kind = kind
    }
}

/// The sender's memory of recently sent packets by transport-wide sequence number, so
/// TWCC feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1), which
/// names packets by sequence number and arrival time only, can be paired with their send
/// times and sizes.
///
/// A fixed ring indexed by the sequence number's low bits (capacity a power of two,
/// 4096 by default: at 1200-byte packets that is about 15 s at 2.5 Mbps, far longer than
/// feedback takes to come back). A new packet overwrites the one `capacity` numbers
/// before it; a packet older than `horizonNanoseconds` counts as gone. Each slot also
/// remembers what feedback already said about it, so duplicate feedback is recognized.
/// Cost: one preallocated array; `record` and `packet` are O(1) with no allocation.
public struct SentPacketHistory: Sendable {
    /// What feedback has said about a slot's packet.
    enum Report: UInt8, Sendable {
        case none, lost, received
    }

    struct Slot: Sendable {
        var packet: SentPacket
        var valid: Bool
        var report: Report
    }

    /// Default ring size.
    public static let defaultCapacity = 4096
    /// Default horizon: 10 s. No RFC fixes it; feedback comes back within a round trip
    /// plus the feedback interval (draft-holmer-rmcat-transport-wide-cc-extensions-01
    /// section 3 suggests sending feedback for every frame or so), so anything older
    /// than seconds is useless to the estimator.
    public static let defaultHorizonNanoseconds: UInt64 = 10_000_000_000

    private var slots: [Slot]
    private let mask: Int
    /// Packets older than this (send time before `now - horizon`) are gone.
    public let horizonNanoseconds: UInt64
    /// The highest sequence number recorded, or nil before the first.
    public private(set) var newestSequenceNumber: UInt64?
    /// Packets recorded since creation.
    public private(set) var recordedCount: UInt64 = 0

    /// An empty history with room for `capacity` packets (rounded up to a power of two,
    /// at least 16) and the given horizon. Allocates the ring once.
    public init(capacity: Int = SentPacketHistory.defaultCapacity,
                horizonNanoseconds: UInt64 = SentPacketHistory.defaultHorizonNanoseconds) {
        var size = 16
        while size < capacity { size <<= 1 }
        let empty = Slot(packet: SentPacket(sequenceNumber: 0, sendNanoseconds: 0, size: 0, kind: .video),
                         valid: false, report: .none)
        slots = Array(repeating: empty, count: size)
        mask = size - 1
        self.horizonNanoseconds = horizonNanoseconds
    }

    /// Slots in the ring.
    public var capacity: Int { slots.count }

    /// Remembers a sent packet, overwriting whatever held its slot. A number more than
    /// `capacity` behind the newest is ignored (its slot belongs to a newer packet).
    /// Cost: O(1), no allocation.
    public mutating func record(_ packet: SentPacket) {
        if let newest = newestSequenceNumber {
            if packet.sequenceNumber + UInt64(slots.count) <= newest { return }
            if packet.sequenceNumber > newest { newestSequenceNumber = packet.sequenceNumber }
        } else {
            newestSequenceNumber = packet.sequenceNumber
        }
        slots[index(packet.sequenceNumber)] = Slot(packet: packet, valid: true, report: .none)
        recordedCount += 1
    }

    /// Remembers a sent packet (see `record(_:)`).
    public mutating func record(sequenceNumber: UInt64, sendNanoseconds: UInt64, size: Int, kind: SentPacketKind) {
        record(SentPacket(sequenceNumber: sequenceNumber, sendNanoseconds: sendNanoseconds, size: size, kind: kind))
    }

    /// The packet sent with `sequenceNumber`, or nil when it was never recorded, was
    /// overwritten, or was sent before `now - horizonNanoseconds`. Cost: O(1).
    public func packet(_ sequenceNumber: UInt64, now: UInt64) -> SentPacket? {
        guard let slot = liveSlot(sequenceNumber, now: now) else { return nil }
        return slots[slot].packet
    }

    /// The unwrapped number of a 16-bit value from feedback: the latest recorded number
    /// with those low bits (see `TransportSequenceNumbers.unwrap`), or nil before the
    /// first record. Cost: a subtraction.
    public func unwrap(_ wire: UInt16) -> UInt64? {
        guard let newest = newestSequenceNumber else { return nil }
        return TransportSequenceNumbers.unwrap(wire, newest: newest, oldest: 0)
    }

    @inline(__always)
    private func index(_ sequenceNumber: UInt64) -> Int { Int(truncatingIfNeeded: sequenceNumber) & mask }

    private func liveSlot(_ sequenceNumber: UInt64, now: UInt64) -> Int? {
        let slot = index(sequenceNumber)
        let entry = slots[slot]
        guard entry.valid, entry.packet.sequenceNumber == sequenceNumber else { return nil }
        if now > entry.packet.sendNanoseconds, now - entry.packet.sendNanoseconds > horizonNanoseconds { return nil }
        return slot
    }

    /// Looks a packet up for feedback and records what feedback says about it. Returns
    /// the packet and what earlier feedback had said, or nil for an unknown packet.
    mutating func report(_ sequenceNumber: UInt64, received: Bool, now: UInt64) -> (SentPacket, Report)? {
        guard let slot = liveSlot(sequenceNumber, now: now) else { return nil }
        let previous = slots[slot].report
        if received {
            slots[slot].report = .received
        } else if previous == .none {
            slots[slot].report = .lost
        }
        return (slots[slot].packet, previous)
    }
}
