import Testing
@testable import OTMedia

@Suite struct RetransmissionHistoryTests {
    @Test func nackedPacketsAreFoundAndResendsThrottled() {
        let history = RetransmissionHistory(capacity: 8, minimumResendIntervalNanoseconds: 10)
        for s: UInt16 in 0..<8 { #expect(history.remember(sequence: s, handle: Int(s) + 100, sentAt: 0) == nil) }
        #expect(history.packetToResend(sequence: 3, now: 100) == 103)
        #expect(history.packetToResend(sequence: 3, now: 105) == nil, "resent 5 ns ago")
        #expect(history.packetToResend(sequence: 3, now: 110) == 103)
        #expect(history.statistics.throttled == 1 && history.statistics.resent == 2)
    }

    @Test func oldPacketsAreEvictedAndReturned() {
        let history = RetransmissionHistory(capacity: 4)
        var evicted: [Int] = []
        for s: UInt16 in 65534...65535 { _ = history.remember(sequence: s, handle: Int(s), sentAt: 0) }
        for s: UInt16 in 0..<4 {
            if let old = history.remember(sequence: s, handle: Int(s), sentAt: 0) { evicted.append(old) }
        }
        #expect(evicted == [65534, 65535], "the ring wraps with the sequence numbers")
        #expect(history.packetToResend(sequence: 65534, now: 0) == nil)
        #expect(history.statistics.missing == 1)
        var released: [Int] = []
        history.removeAll { released.append($0) }
        #expect(released.sorted() == [0, 1, 2, 3])
    }
}
