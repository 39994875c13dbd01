import Testing
@testable import OTMedia

/// The 128-counter replay window on its own, including jumps across the 64-bit word
/// boundary and very large counters.
struct SFrameReplayWindowTests {
    @Test func windowEdges() {
        var window = SFrameReplayWindow()
        #expect(window.check(0) == .fresh)
        #expect(window.check(.max) == .fresh)
        window.accept(1000)
        #expect(window.check(1000) == .replayed)
        #expect(window.check(1001) == .fresh)
        #expect(window.check(873) == .fresh)       // 127 behind
        #expect(window.check(872) == .tooOld)      // 128 behind
        window.accept(936)                          // 64 behind: the high word
        #expect(window.check(936) == .replayed)
        #expect(window.check(937) == .fresh)
        window.accept(1064)                         // shift by 64: 1000 moves to the high word
        #expect(window.check(1000) == .replayed)
        #expect(window.check(937) == .fresh)        // 127 behind, never accepted
        #expect(window.check(936) == .tooOld)       // 128 behind now
        window.accept(1070)                         // shift by 6 across the word boundary
        #expect(window.check(1000) == .replayed)
        #expect(window.check(1064) == .replayed)
        #expect(window.check(1001) == .fresh)
        window.accept(5000)                         // beyond the window: all forgotten
        #expect(window.check(1070) == .tooOld)
        #expect(window.check(4999) == .fresh)
        window.accept(.max)
        #expect(window.check(.max) == .replayed)
        #expect(window.check(.max - 127) == .fresh)
        #expect(window.check(.max - 128) == .tooOld)
    }

    /// Against a set of every accepted counter: in-window verdicts agree on a random walk.
    @Test func agreesWithAReferenceSet() {
        var generator = SystemRandomNumberGenerator()
        var window = SFrameReplayWindow()
        var accepted = Set<UInt64>()
        var newest: UInt64 = 0
        for _ in 0..<20_000 {
            let counter = newest + UInt64.random(in: 0...20, using: &generator) &- UInt64.random(in: 0...150, using: &generator)
            guard counter < UInt64.max / 2 else { continue }
            let expected: SFrameReplayWindow.Verdict =
                accepted.isEmpty || counter > newest ? .fresh
                : newest - counter >= 128 ? .tooOld
                : accepted.contains(counter) ? .replayed : .fresh
            #expect(window.check(counter) == expected)
            if expected == .fresh {
                window.accept(counter)
                accepted.insert(counter)
                newest = max(newest, counter)
            }
        }
    }
}
