import OTMedia

/// The router's receiver half of transport-wide congestion control on a publisher leg:
/// it notes each RTP packet's transport-wide sequence number and arrival time, and every
/// `ForwardingHandler.feedbackInterval` turns what it noted into RTCP transport-wide
/// feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 3.1) for the publisher.
///
/// Records are kept in sequence order (a reordered packet is inserted where it belongs,
/// a duplicate or one older than the last feedback is ignored) in one array reserved at
/// `capacity`; past that the oldest records are given up (a publisher that gets no
/// feedback for seconds). Forwarding thread only. Cost: O(1) per in-order packet, no
/// allocation; a feedback walks its records once.
struct ArrivalRecorder {
    /// Records kept at most.
    static let capacity = 2048
    private(set) var records: [TWCCReceivedPacket] = []
    /// The number the next feedback must not go behind (the last one's end).
    private var reportedUpTo: UInt16?
    /// The feedback packet count of the next feedback.
    private(set) var feedbackCount: UInt8 = 0
    /// Packets recorded and feedbacks built, for the counters.
    private(set) var recorded: UInt64 = 0

    init() { records.reserveCapacity(Self.capacity) }

    /// Notes one packet's transport-wide sequence number and arrival time.
    mutating func record(_ sequence: UInt16, at now: UInt64) {
        if let done = reportedUpTo, Int16(bitPattern: sequence &- done) < 0 { return }
        recorded &+= 1
        guard let last = records.last else {
            records.append(TWCCReceivedPacket(sequenceNumber: sequence, arrivalNanoseconds: now))
            return
        }
        if records.count == Self.capacity { records.removeFirst(Self.capacity / 2) }
        let step = Int16(bitPattern: sequence &- last.sequenceNumber)
        if step > 0 {
            records.append(TWCCReceivedPacket(sequenceNumber: sequence, arrivalNanoseconds: now))
            return
        }
        // Reordered: insert in place (rare, a short walk back).
        var index = records.count - 1
        while index >= 0 {
            let back = Int16(bitPattern: sequence &- records[index].sequenceNumber)
            if back == 0 { return }
            if back > 0 { break }
            index -= 1
        }
        records.insert(TWCCReceivedPacket(sequenceNumber: sequence, arrivalNanoseconds: now), at: index + 1)
    }

    /// Builds one feedback over the records (as many as fit in 1200 bytes) with `write`,
    /// and forgets those records. Returns whether one was written.
    mutating func feedback(senderSSRC: UInt32, mediaSSRC: UInt32,
                           _ write: (TransportWideCCBuilder) -> Bool) -> Bool {
        guard !records.isEmpty else { return false }
        let built: (TransportWideCCBuilder, Int)? = records.withUnsafeBufferPointer { list in
            guard let builder = try? TransportWideCCBuilder(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                                                            feedbackPacketCount: feedbackCount, records: list) else { return nil }
            return write(builder) ? (builder, builder.consumed) : nil
        }
        guard let (_, consumed) = built else { return false }
        reportedUpTo = records[consumed - 1].sequenceNumber &+ 1
        records.removeFirst(consumed)
        feedbackCount &+= 1
        return true
    }
}
