import Synchronization

/// The live counters of one published stream's forwarding group: relaxed atomics the
/// forwarding thread adds to (a few ns each, no lock) and any thread reads.
final class GroupCounters: Sendable {
    let packetsIn = Atomic<UInt64>(0)
    let bytesIn = Atomic<UInt64>(0)
    let packetsOut = Atomic<UInt64>(0)
    let bytesOut = Atomic<UInt64>(0)
    let mutedAudioDropped = Atomic<UInt64>(0)
    let packetsDropped = Atomic<UInt64>(0)
    let badPackets = Atomic<UInt64>(0)
    let retransmissions = Atomic<UInt64>(0)
    /// NACKed packets not resent: the leg's resend budget was spent / resent within a round trip.
    let retransmissionsOverBudget = Atomic<UInt64>(0)
    let retransmissionsDuplicate = Atomic<UInt64>(0)
    /// Leg address moves, and authenticated datagrams from a source still in probation.
    let addressMoves = Atomic<UInt64>(0)
    let addressDatagramsHeld = Atomic<UInt64>(0)
    /// Datagrams dropped before unprotecting: a sender SSRC past the leg's `LegSSRCGate`.
    let unknownSSRCRefused = Atomic<UInt64>(0)
    let upstreamNACKs = Atomic<UInt64>(0)
    let upstreamRepaired = Atomic<UInt64>(0)
    let keyframeRequests = Atomic<UInt64>(0)
    let unknownSSRCPackets = Atomic<UInt64>(0)
    let receiverReports = Atomic<UInt64>(0)
    let probesReceived = Atomic<UInt64>(0)
    let transportFeedbacksIn = Atomic<UInt64>(0)
    let transportFeedbacksOut = Atomic<UInt64>(0)

    /// Adds 1 to `counter`.
    @inline(__always)
    static func bump(_ counter: borrowing Atomic<UInt64>, by value: UInt64 = 1) {
        counter.add(value, ordering: .relaxed)
    }

    /// The counters as a value (each exact, two may straddle a packet).
    func snapshot() -> ForwardingCounters {
        var c = ForwardingCounters()
        c.packetsIn = packetsIn.load(ordering: .relaxed)
        c.bytesIn = bytesIn.load(ordering: .relaxed)
        c.packetsOut = packetsOut.load(ordering: .relaxed)
        c.bytesOut = bytesOut.load(ordering: .relaxed)
        c.mutedAudioDropped = mutedAudioDropped.load(ordering: .relaxed)
        c.packetsDropped = packetsDropped.load(ordering: .relaxed)
        c.badPackets = badPackets.load(ordering: .relaxed)
        c.retransmissions = retransmissions.load(ordering: .relaxed)
        c.retransmissionsOverBudget = retransmissionsOverBudget.load(ordering: .relaxed)
        c.retransmissionsDuplicate = retransmissionsDuplicate.load(ordering: .relaxed)
        c.addressMoves = addressMoves.load(ordering: .relaxed)
        c.unknownSSRCRefused = unknownSSRCRefused.load(ordering: .relaxed)
        c.addressDatagramsHeld = addressDatagramsHeld.load(ordering: .relaxed)
        c.upstreamNACKs = upstreamNACKs.load(ordering: .relaxed)
        c.upstreamRepaired = upstreamRepaired.load(ordering: .relaxed)
        c.keyframeRequests = keyframeRequests.load(ordering: .relaxed)
        c.unknownSSRCPackets = unknownSSRCPackets.load(ordering: .relaxed)
        c.receiverReports = receiverReports.load(ordering: .relaxed)
        c.probesReceived = probesReceived.load(ordering: .relaxed)
        c.transportFeedbacksIn = transportFeedbacksIn.load(ordering: .relaxed)
        c.transportFeedbacksOut = transportFeedbacksOut.load(ordering: .relaxed)
        return c
    }
}

extension ForwardingCounters {
    /// Field-by-field sum (jitter: the larger), for totals over groups.
    static func + (lhs: ForwardingCounters, rhs: ForwardingCounters) -> ForwardingCounters {
        var c = ForwardingCounters()
        c.packetsIn = lhs.packetsIn + rhs.packetsIn
        c.bytesIn = lhs.bytesIn + rhs.bytesIn
        c.packetsOut = lhs.packetsOut + rhs.packetsOut
        c.bytesOut = lhs.bytesOut + rhs.bytesOut
        c.mutedAudioDropped = lhs.mutedAudioDropped + rhs.mutedAudioDropped
        c.packetsDropped = lhs.packetsDropped + rhs.packetsDropped
        c.badPackets = lhs.badPackets + rhs.badPackets
        c.retransmissions = lhs.retransmissions + rhs.retransmissions
        c.retransmissionsOverBudget = lhs.retransmissionsOverBudget + rhs.retransmissionsOverBudget
        c.retransmissionsDuplicate = lhs.retransmissionsDuplicate + rhs.retransmissionsDuplicate
        c.addressMoves = lhs.addressMoves + rhs.addressMoves
        c.unknownSSRCRefused = lhs.unknownSSRCRefused + rhs.unknownSSRCRefused
        c.addressDatagramsHeld = lhs.addressDatagramsHeld + rhs.addressDatagramsHeld
        c.upstreamNACKs = lhs.upstreamNACKs + rhs.upstreamNACKs
        c.upstreamRepaired = lhs.upstreamRepaired + rhs.upstreamRepaired
        c.keyframeRequests = lhs.keyframeRequests + rhs.keyframeRequests
        c.unknownSSRCPackets = lhs.unknownSSRCPackets + rhs.unknownSSRCPackets
        c.receiverReports = lhs.receiverReports + rhs.receiverReports
        c.probesReceived = lhs.probesReceived + rhs.probesReceived
        c.transportFeedbacksIn = lhs.transportFeedbacksIn + rhs.transportFeedbacksIn
        c.transportFeedbacksOut = lhs.transportFeedbacksOut + rhs.transportFeedbacksOut
        c.reportedPacketsLost = lhs.reportedPacketsLost + rhs.reportedPacketsLost
        c.reportedJitterMicroseconds = max(lhs.reportedJitterMicroseconds, rhs.reportedJitterMicroseconds)
        c.forwardingCPUNanoseconds = lhs.forwardingCPUNanoseconds + rhs.forwardingCPUNanoseconds
        return c
    }
}
