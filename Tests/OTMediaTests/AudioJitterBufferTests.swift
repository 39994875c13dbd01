import Testing
@testable import OTMedia

@Suite struct AudioJitterBufferTests {
    let ms: UInt64 = 1_000_000

    @Test func playoutStartsAfterTheTargetDelayAndFollowsSequence() {
        let buffer = AudioJitterBuffer(targetDelayMilliseconds: 40)
        for n in 0..<5 {
            #expect(buffer.insert(sequence: UInt16(n), handle: n, now: UInt64(n) * 20 * ms) { _ in } == .stored)
        }
        #expect(buffer.pull(now: 39 * ms) == .waiting)
        #expect(buffer.pull(now: 40 * ms) == .decode(handle: 0))
        #expect(buffer.pull(now: 60 * ms) == .decode(handle: 1))
        #expect(buffer.bufferedCount == 3)
    }

    @Test func aLostPacketIsRecoveredFromTheNextOnesFECThenConcealedWhenBothAreGone() {
        let buffer = AudioJitterBuffer(targetDelayMilliseconds: 0)
        for n in [0, 2, 5] { _ = buffer.insert(sequence: UInt16(n), handle: n, now: 0) { _ in } }
        #expect(buffer.pull(now: 0) == .decode(handle: 0))
        #expect(buffer.pull(now: 0) == .recoverWithFEC(nextHandle: 2), "1 is lost, 2 carries its FEC")
        #expect(buffer.pull(now: 0) == .decode(handle: 2), "2 then plays normally")
        #expect(buffer.pull(now: 0) == .conceal, "3 is lost and 4 has not come")
        #expect(buffer.pull(now: 0) == .recoverWithFEC(nextHandle: 5))
        #expect(buffer.pull(now: 0) == .decode(handle: 5))
        #expect(buffer.statistics.decoded == 3 && buffer.statistics.recoveredWithFEC == 2 && buffer.statistics.concealed == 1)
    }

    @Test func reorderedPacketsPlayInOrderAndLateOnesAreRefused() {
        let buffer = AudioJitterBuffer(targetDelayMilliseconds: 0)
        for n in [0, 2, 1] { _ = buffer.insert(sequence: UInt16(n), handle: n, now: 0) { _ in } }
        #expect(buffer.pull(now: 0) == .decode(handle: 0))
        #expect(buffer.pull(now: 0) == .decode(handle: 1))
        #expect(buffer.insert(sequence: 0, handle: 99, now: 0) { _ in } == .refused)
        #expect(buffer.insert(sequence: 2, handle: 98, now: 0) { _ in } == .refused, "duplicate")
        #expect(buffer.statistics.packetsRefused == 2)
    }

    @Test func aReorderedFirstPacketIsNotLost() {
        let buffer = AudioJitterBuffer(targetDelayMilliseconds: 20)
        _ = buffer.insert(sequence: 11, handle: 11, now: 0) { _ in }
        _ = buffer.insert(sequence: 10, handle: 10, now: 1 * ms) { _ in }
        #expect(buffer.pull(now: 20 * ms) == .decode(handle: 10))
        #expect(buffer.pull(now: 40 * ms) == .decode(handle: 11))
    }

    @Test func tooMuchBacklogIsDroppedOldestFirstAndEveryHandleComesBack() {
        let buffer = AudioJitterBuffer(targetDelayMilliseconds: 0, maximumBuffered: 4)
        var discarded: [Int] = []
        _ = buffer.insert(sequence: 0, handle: 0, now: 0) { discarded.append($0) }
        #expect(buffer.pull(now: 0) == .decode(handle: 0))
        for n in 1...10 { _ = buffer.insert(sequence: UInt16(n), handle: n, now: 0) { discarded.append($0) } }
        #expect(discarded == [1, 2, 3, 4, 5, 6])
        #expect(buffer.bufferedCount == 4)
        #expect(buffer.pull(now: 0) == .decode(handle: 7))
        #expect(buffer.statistics.droppedToCatchUp == 6)
    }

    @Test func sequenceWrapKeepsOrder() {
        let buffer = AudioJitterBuffer(targetDelayMilliseconds: 0)
        for s: UInt16 in [65534, 65535, 0, 1] { _ = buffer.insert(sequence: s, handle: Int(s), now: 0) { _ in } }
        let played = (0..<4).map { _ in buffer.pull(now: 0) }
        #expect(played == [.decode(handle: 65534), .decode(handle: 65535), .decode(handle: 0), .decode(handle: 1)])
    }

    @Test func playoutThatOutranTheStreamStartsOverBehindItWithTheFullDelay() {
        let buffer = AudioJitterBuffer(targetDelayMilliseconds: 40)
        var discarded: [Int] = []
        for n in 0..<3 { _ = buffer.insert(sequence: UInt16(n), handle: n, now: UInt64(n) * 20 * ms) { discarded.append($0) } }
        // Playout runs on for 10 slots; the sender paused after packet 2.
        var played: [AudioJitterBuffer.Playout] = []
        for tick in 0..<12 { played.append(buffer.pull(now: 40 * ms + UInt64(tick) * 20 * ms)) }
        #expect(played.prefix(3) == [.decode(handle: 0), .decode(handle: 1), .decode(handle: 2)])
        // The sender resumes with packet 3: behind playout, nothing buffered. It must not
        // be refused for good: playout starts over behind it, after the target delay.
        let now: UInt64 = 300 * ms
        #expect(buffer.insert(sequence: 3, handle: 3, now: now) { discarded.append($0) } == .stored)
        #expect(buffer.statistics.resynchronizations == 1)
        #expect(buffer.pull(now: now + 39 * ms) == .waiting)
        #expect(buffer.pull(now: now + 40 * ms) == .decode(handle: 3))
        #expect(discarded.isEmpty)
    }
}
