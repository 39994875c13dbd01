@testable import OTRouter
import Testing

/// `LegHistory` on a synthetic clock: what is kept is found byte for byte, expires with
/// age, gives way to newer packets when the slots or the arena run out, and a steady
/// stream reuses the arena's low pages, so what a leg touches follows its rate.
@Suite struct LegHistoryTests {
    static let ms: UInt64 = 1_000_000

    /// A packet whose bytes name its sequence number (bytes 2–3, as RTP) and fill.
    static func packet(_ sequence: UInt16, length: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: sequence &* 7 &+ 3), count: length)
        bytes[2] = UInt8(sequence >> 8)
        bytes[3] = UInt8(sequence & 0xFF)
        return bytes
    }

    static func remember(_ history: LegHistory, _ sequence: UInt16, length: Int, at now: UInt64) -> Bool {
        packet(sequence, length: length).withUnsafeBytes { history.remember($0, sequence: sequence, now: now) }
    }

    static func kept(_ history: LegHistory, _ sequence: UInt16, at now: UInt64) -> [UInt8]? {
        history.kept(sequence, now: now).map { Array($0) }
    }

    @Test func keptPacketsComeBackByteForByteUntilTheyAreTooOld() throws {
        let history = try LegHistory(slots: 64, arenaBytes: 64 << 10, ageNanoseconds: 1_000 * Self.ms)
        for sequence in UInt16(100)..<120 {
            #expect(Self.remember(history, sequence, length: 900 + Int(sequence), at: UInt64(sequence) * Self.ms))
        }
        for sequence in UInt16(100)..<120 {
            #expect(Self.kept(history, sequence, at: 200 * Self.ms) == Self.packet(sequence, length: 900 + Int(sequence)))
        }
        #expect(Self.kept(history, 99, at: 200 * Self.ms) == nil)
        #expect(Self.kept(history, 120, at: 200 * Self.ms) == nil)
        // 1 s after it went, a packet is still found; a nanosecond later it is not.
        #expect(Self.kept(history, 100, at: 1_100 * Self.ms) != nil)
        #expect(Self.kept(history, 100, at: 1_100 * Self.ms + 1) == nil)
    }

    @Test func aFullFIFODropsTheOldestAndASlotAnswersOnlyItsOwnSequence() throws {
        let history = try LegHistory(slots: 16, arenaBytes: 64 << 10, ageNanoseconds: 1_000 * Self.ms)
        for sequence in UInt16(0)..<40 { #expect(Self.remember(history, sequence, length: 100, at: Self.ms)) }
        #expect(history.keptCount == 16)
        for sequence in UInt16(0)..<24 { #expect(Self.kept(history, sequence, at: Self.ms) == nil, "\(sequence)") }
        for sequence in UInt16(24)..<40 {
            #expect(Self.kept(history, sequence, at: Self.ms) == Self.packet(sequence, length: 100), "\(sequence)")
        }
        // Sequence 65,535 + 1 wraps: the new packet, not an old one in the same slot, answers.
        for sequence in UInt16(65_530)...UInt16(65_535) { _ = Self.remember(history, sequence, length: 80, at: 2 * Self.ms) }
        _ = Self.remember(history, 0, length: 81, at: 2 * Self.ms)
        #expect(Self.kept(history, 0, at: 2 * Self.ms) == Self.packet(0, length: 81))
        #expect(Self.kept(history, 65_534, at: 2 * Self.ms) == Self.packet(65_534, length: 80))
    }

    @Test func aStreamFasterThanTheArenaKeepsTheNewestThatFit() throws {
        let history = try LegHistory(slots: 512, arenaBytes: 10_000, ageNanoseconds: 1_000 * Self.ms)
        for sequence in UInt16(0)..<100 {
            #expect(Self.remember(history, sequence, length: 1_000 + Int(sequence % 7), at: Self.ms))
            #expect(Self.kept(history, sequence, at: Self.ms) == Self.packet(sequence, length: 1_000 + Int(sequence % 7)))
        }
        #expect(history.highWater <= 10_000)
        #expect(history.keptCount >= 5 && history.keptCount <= 10)  // wrapping leaves a quarter spare
        for sequence in UInt16(0)..<90 { #expect(Self.kept(history, sequence, at: Self.ms) == nil, "\(sequence)") }
        #expect(Self.kept(history, 99, at: Self.ms) != nil)
        // Too big for the arena: refused, nothing lost.
        #expect(!Self.remember(history, 100, length: 6_000, at: Self.ms))
        #expect(Self.kept(history, 99, at: Self.ms) != nil)
    }

    /// 100 packets of 1,000 bytes per second for 60 s with a 1 s age: at most ~1.25 s of
    /// bytes (125 kB) plus a packet is ever written, in a 2 MiB arena; every packet of
    /// the last second stays findable.
    @Test func aSteadyStreamTouchesAboutOneAgeOfItsBytes() throws {
        let history = try LegHistory(slots: 512, arenaBytes: 2 << 20, ageNanoseconds: 1_000 * Self.ms)
        var sequence: UInt16 = 60_000
        for step in 0..<6_000 {
            let now = UInt64(step) * 10 * Self.ms
            #expect(Self.remember(history, sequence, length: 1_000, at: now))
            if step % 250 == 0, step >= 100 {
                for back in 0..<100 {
                    let old = sequence &- UInt16(back)
                    #expect(Self.kept(history, old, at: now) == Self.packet(old, length: 1_000), "\(old) at step \(step)")
                }
            }
            sequence &+= 1
        }
        print("LegHistory steady 100 kB/s: high water \(history.highWater) bytes, \(history.keptCount) kept")
        #expect(history.highWater <= 130_000)
        #expect(history.keptCount >= 100 && history.keptCount <= 101)
    }

    @Test func removeAllForgetsEverything() throws {
        let history = try LegHistory(slots: 32, arenaBytes: 8 << 10, ageNanoseconds: 1_000 * Self.ms)
        for sequence in UInt16(0)..<10 { _ = Self.remember(history, sequence, length: 200, at: Self.ms) }
        history.removeAll()
        #expect(history.keptCount == 0)
        for sequence in UInt16(0)..<10 { #expect(Self.kept(history, sequence, at: Self.ms) == nil) }
        #expect(Self.remember(history, 5, length: 300, at: 2 * Self.ms))
        #expect(Self.kept(history, 5, at: 2 * Self.ms) == Self.packet(5, length: 300))
    }

    /// A steady stream with a burst of twice its rate for 300 ms every 2 s (keyframes):
    /// every packet younger than the age stays findable (no young packet is evicted).
    @Test func keyframeBurstsOnAWrappedArenaKeepTheWholeAge() throws {
        let history = try LegHistory(slots: 512, arenaBytes: 2 << 20, ageNanoseconds: 1_000 * Self.ms)
        var sequence: UInt16 = 0
        var sent: [(sequence: UInt16, at: UInt64)] = []
        for step in 0..<2_000 {
            let now = UInt64(step) * 10 * Self.ms
            let burst = step % 200 < 30
            for _ in 0..<(burst ? 2 : 1) {
                #expect(Self.remember(history, sequence, length: 1_000, at: now))
                sent.append((sequence, now))
                sequence &+= 1
            }
            if step % 50 == 49 {
                for packet in sent.suffix(400) where now - packet.at <= 900 * Self.ms {
                    #expect(Self.kept(history, packet.sequence, at: now) != nil, "\(packet.sequence) at step \(step)")
                }
            }
        }
        print("LegHistory with bursts: high water \(history.highWater) bytes")
        #expect(history.highWater <= 200_000)
    }
}
