import Testing
import OTMedia


let adaptSecond: UInt64 = 1_000_000_000
let adaptTick: UInt64 = 100_000_000

/// The publisher's resolution/frame-rate ladder and the controller that walks it.
@Suite struct AdaptQualityLadderTests {
    @Test(arguments: [
        (1280, 720, 30.0, ["1280x720@30", "960x540@30", "640x360@30", "640x360@15", "640x360@7.5", "320x180@7.5"]),
        (640, 480, 30.0, ["640x480@30", "480x360@30", "480x360@15", "480x360@7.5", "240x180@7.5"]),
        (320, 240, 30.0, ["320x240@30", "320x240@15", "320x240@7.5", "240x180@7.5"]),
        (1280, 720, 15.0, ["1280x720@15", "960x540@15", "640x360@15", "640x360@7.5", "320x180@7.5"]),
        (1920, 1080, 30.0, ["1920x1080@30", "1280x720@30", "960x540@30", "640x360@30", "640x360@15", "640x360@7.5", "320x180@7.5"]),
        // 738 is within 10 % of 720: 720p is skipped as too small a step.
        (1312, 738, 30.0, ["1312x738@30", "960x540@30", "640x360@30", "640x360@15", "640x360@7.5", "320x180@7.5"]),
        (160, 120, 7.0, ["160x120@7"]),
        (352, 288, 1.0, ["352x288@1", "220x180@1"]),
    ] as [(Int, Int, Double, [String])])
    func rungsForCeiling(width: Int, height: Int, rate: Double, expected: [String]) {
        let ladder = QualityLadder(ceilingWidth: width, ceilingHeight: height, ceilingFrameRate: rate)
        #expect(ladder.rungs.map(\.description) == expected)
        for (upper, lower) in zip(ladder.rungs, ladder.rungs.dropFirst()) {
            #expect(lower.minBitrate < upper.minBitrate, "each rung is cheaper than the one above")
            #expect(lower.width * lower.height <= upper.width * upper.height && lower.frameRate <= upper.frameRate)
        }
        for rung in ladder.rungs {
            #expect(rung.width <= width && rung.height <= height && rung.frameRate <= rate, "never above the ceiling")
            #expect(rung.width % 2 == 0 && rung.height % 2 == 0)
            // Aspect kept to within the even rounding of the width.
            #expect(abs(Double(rung.width) / Double(rung.height) - Double(width) / Double(height)) * Double(rung.height) <= 2)
            #expect(abs(rung.maxBitrate - rung.minBitrate * 3) <= 2, "0.06 / 0.02 bits per pixel per frame")
        }
    }

    @Test func bitrateRangesOf720p() {
        let ladder = QualityLadder(ceilingWidth: 1280, ceilingHeight: 720, ceilingFrameRate: 30)
        // 0.02 / 0.06 bits per pixel per frame, ×sqrt(30/fps) below 30 fps.
        #expect(ladder.rungs.map(\.minBitrate) == [552_960, 311_040, 138_240, 97_750, 69_120, 17_280])
        #expect(ladder.rungs.map(\.maxBitrate) == [1_658_880, 933_120, 414_720, 293_251, 207_360, 51_840])
        #expect(ladder.highestRung(fitting: 2_000_000) == 0)
        #expect(ladder.highestRung(fitting: 300_000) == 2)
        #expect(ladder.highestRung(fitting: 1_000) == 5)
    }

    @Test func pivotZeroDropsEveryResolutionFirst() {
        var config = QualityLadder.Configuration()
        config.pivotHeight = 0
        let ladder = QualityLadder(ceilingWidth: 1280, ceilingHeight: 720, ceilingFrameRate: 30, configuration: config)
        #expect(ladder.rungs.map(\.description) == ["1280x720@30", "960x540@30", "640x360@30", "320x180@30", "320x180@15", "320x180@7.5"])
    }

    /// Runs a controller started at `startRung` (one update at its floor at t = 0), then feeds `target(t)` every 100 ms for `seconds`; returns the rung changes with times.
    static func run(startRung: Int, seconds: Int, configuration: QualityController.Configuration = .init(),
                    target: (UInt64) -> Int) -> (changes: [(ms: UInt64, rung: Int)], controller: QualityController) {
        let ladder = QualityLadder(ceilingWidth: 1280, ceilingHeight: 720, ceilingFrameRate: 30)
        var controller = QualityController(ladder: ladder, configuration: configuration, startRung: startRung)
        _ = controller.update(targetBitrate: ladder.rungs[startRung].minBitrate, now: 0)
        var changes: [(UInt64, Int)] = []
        var now: UInt64 = adaptSecond
        let end = now + UInt64(seconds) * adaptSecond
        var last = controller.rungIndex
        while now <= end {
            if let decision = controller.update(targetBitrate: target(now), now: now), decision.rungIndex != last {
                changes.append(((now - adaptSecond) / 1_000_000, decision.rungIndex))
                last = decision.rungIndex
            }
            now += adaptTick
        }
        return (changes.map { (ms: $0.0, rung: $0.1) }, controller)
    }

    @Test(arguments: [
        // (start rung, target, expected changes as (ms after the target starts, new rung))
        (0, 500_000, [(1000, 1)]),               // just below 553k: after 1 s, to 540p
        (0, 250_000, [(0, 2)]),                  // below half the floor: at once, to 360p30
        (0, 50_000, [(0, 5)]),                   // far below: at once to the bottom
        (2, 120_000, [(1000, 3)]),               // 360p30 → 360p15 (frame rate first at the pivot)
        (3, 80_000, [(1000, 4)]),                // 360p15 → 360p7.5
        (4, 60_000, [(1000, 5)]),                // 360p7.5 → 180p7.5
        (0, 552_960, []),                        // at the floor exactly: stays
        (5, 1_000, []),                          // nothing below the bottom
    ] as [(Int, Int, [(UInt64, Int)])])
    func stepDownTiming(start: Int, target: Int, expected: [(UInt64, Int)]) {
        let result = Self.run(startRung: start, seconds: 10) { _ in target }
        #expect(result.changes.map(\.ms) == expected.map(\.0))
        #expect(result.changes.map(\.rung) == expected.map(\.1))
    }

    @Test func shortDipDoesNotStepDown() {
        // 0.9 s below the floor, then back: the 1 s hold is never reached, however often.
        let result = Self.run(startRung: 0, seconds: 30) { now in
            (now / adaptTick) % 15 < 9 ? 500_000 : 600_000
        }
        #expect(result.changes.isEmpty)
    }

    @Test(arguments: [
        // (start rung, target, expected changes)
        (2, 404_352, [(5000, 1)]),               // exactly 1.3 × 540p's floor: up after 5 s
        (2, 404_000, []),                        // just under 1.3×: never
        (2, 2_000_000, [(5000, 0)]),             // room for the top: one step, straight there
        // From the bottom: 200k ≥ 1.3 × 138,240 = 179,712, so 640x360@30 qualifies (540p's
        // 404k does not) and the climb skips the 7.5 and 15 fps rungs in one step.
        (5, 200_000, [(5000, 2)]),
    ] as [(Int, Int, [(UInt64, Int)])])
    func stepUpHysteresis(start: Int, target: Int, expected: [(UInt64, Int)]) {
        let result = Self.run(startRung: start, seconds: 12) { _ in target }
        #expect(result.changes.map(\.ms) == expected.map(\.0))
        #expect(result.changes.map(\.rung) == expected.map(\.1))
    }

    @Test func upHoldRestartsWhenTheTargetDips() {
        // Above 1.3× for 4.9 s, one dip, then 5 s more: the step comes 5 s after the dip.
        let result = Self.run(startRung: 2, seconds: 15) { now in
            let ms = (now - adaptSecond) / 1_000_000
            return ms == 4900 ? 350_000 : 500_000
        }
        #expect(result.changes.map(\.ms) == [10_000])
        #expect(result.changes.map(\.rung) == [1])
    }

    /// A noisy target hovering ±15 % around a threshold for a simulated minute: the raw signal
    /// crosses the threshold hundreds of times, the controller changes rung at most once.
    @Test(arguments: [
        // (start rung, centre, seed, expected rung changes)
        (0, 525_312, UInt64(1), 1),   // centred 5 % under the top floor: one step down, never back
        (0, 525_312, UInt64(2), 1),
        (0, 580_608, UInt64(3), 0),   // centred 5 % over it: dips never last 1 s
        (1, 718_848, UInt64(4), 0),   // around 1.3 × the top floor: never steps up
        (1, 718_848, UInt64(5), 0),
        (2, 131_328, UInt64(6), 1),   // 5 % under 360p30's floor: to 360p15 once
    ] as [(Int, Int, UInt64, Int)])
    func noisyTargetDoesNotOscillate(start: Int, centre: Int, seed: UInt64, expectedChanges: Int) {
        var random = SplitMix64(seed: seed)
        var crossings = 0
        var previousAbove: Bool?
        let result = Self.run(startRung: start, seconds: 60) { _ in
            let value = Int(Double(centre) * (1 + 0.15 * random.symmetric()))
            let above = value >= centre
            if let p = previousAbove, p != above { crossings += 1 }
            previousAbove = above
            return value
        }
        #expect(crossings > 200, "the input really is noisy around the threshold")
        #expect(result.changes.count == expectedChanges)
        if let first = result.changes.first { #expect(first.rung == start + 1, "only ever down, by one") }
    }

    /// The control for the test above: the same noisy input through a controller with its
    /// hysteresis switched off (no holds, no headroom) changes rung dozens of times.
    @Test func withoutHysteresisTheSameInputOscillates() {
        var config = QualityController.Configuration()
        config.downHold = 0
        config.upHold = 0
        config.upHeadroom = 1
        var random = SplitMix64(seed: 1)
        let result = Self.run(startRung: 0, seconds: 60, configuration: config) { _ in
            Int(525_312 * (1 + 0.15 * random.symmetric()))
        }
        #expect(result.changes.count > 100)
    }

    @Test func encoderBitrateFollowsTheTargetWithADeadBand() {
        let ladder = QualityLadder(ceilingWidth: 640, ceilingHeight: 360, ceilingFrameRate: 30)
        var controller = QualityController(ladder: ladder)
        let first = controller.update(targetBitrate: 300_000, now: 0)
        #expect(first == QualityDecision(width: 640, height: 360, frameRate: 30, encoderBitrate: 300_000, rungIndex: 0, change: .initial))
        #expect(controller.update(targetBitrate: 310_000, now: adaptTick) == nil, "3 % is inside the dead band")
        #expect(controller.update(targetBitrate: 330_000, now: 2 * adaptTick)?.encoderBitrate == 330_000)
        // Capped at the rung's top (414,720 for 640x360@30).
        #expect(controller.update(targetBitrate: 5_000_000, now: 3 * adaptTick)?.encoderBitrate == 414_720)
        #expect(controller.update(targetBitrate: 6_000_000, now: 4 * adaptTick) == nil)
        #expect(controller.rungChanges == 0)
    }

    /// A closed loop over a deterministic bottleneck: a queue drained at the link rate, and a
    /// GCC-shaped estimator (draft-ietf-rmcat-gcc-02 §5.5: a growing queue over 10 ms is
    /// overuse → 0.85 × the received rate; a draining queue is underuse → hold; otherwise
    /// increase by 8 %/s, capped at 1.5 × the received rate). The link drops from 2 Mbps to 300 kbps at 20 s and recovers at 60 s.
    @Test func capAndLiftOverABottleneck() {
        let ladder = QualityLadder(ceilingWidth: 1280, ceilingHeight: 720, ceilingFrameRate: 30)
        var controller = QualityController(ladder: ladder)
        var estimate = 1_500_000.0
        var queueBits = 0.0
        var encoder = 0
        var fitsUnderCapAt: UInt64?, lowestRung = 0, backAtTopAt: UInt64?
        var changesWhileCapped = 0
        var trace: [(ms: UInt64, rung: Int)] = []
        var now: UInt64 = 0
        while now <= 100 * adaptSecond {
            let cap = (20 * adaptSecond..<60 * adaptSecond).contains(now) ? 300_000.0 : 2_000_000.0
            if let decision = controller.update(targetBitrate: Int(estimate), now: now) {
                encoder = decision.encoderBitrate
                if decision.change != .bitrate { trace.append((now / 1_000_000, decision.rungIndex)) }
                if decision.change != .bitrate && (25 * adaptSecond..<60 * adaptSecond).contains(now) { changesWhileCapped += 1 }
            }
            // The link for one tick: the queue gains what is sent and loses what the link carries.
            let before = queueBits
            let delivered = min(cap, before / 0.1 + Double(encoder))
            queueBits = max(0, before + Double(encoder) * 0.1 - cap * 0.1)
            if queueBits > before && queueBits / cap > 0.01 {
                estimate = 0.85 * delivered                   // overuse: decrease
            } else if queueBits < before {
                // underuse (the queue drains): hold
            } else {
                estimate = min(estimate * 1.0077, 1.5 * max(delivered, 1))   // normal: 1.08^(0.1 s)
            }
            if now >= 20 * adaptSecond && now < 60 * adaptSecond {
                lowestRung = max(lowestRung, controller.rungIndex)
                if fitsUnderCapAt == nil && encoder <= 300_000 { fitsUnderCapAt = now - 20 * adaptSecond }
            }
            if now >= 60 * adaptSecond && backAtTopAt == nil && controller.rungIndex == 0 { backAtTopAt = now - 60 * adaptSecond }
            now += adaptTick
        }
        let fit = try! #require(fitsUnderCapAt)
        #expect(fit <= 2 * adaptSecond, "the encoder fits under the cap within 2 s (\(fit / 1_000_000) ms)")
        #expect(lowestRung >= 2, "resolution or frame rate is lower under the cap")
        // One prompt step down to 640x360@30, two 5 s-held steps back up: no oscillation.
        #expect(trace.map(\.rung) == [0, 2, 1, 0])
        #expect(changesWhileCapped == 0, "no rung changes once settled under the cap: \(trace)")
        let back = try! #require(backAtTopAt)
        #expect(back <= 20 * adaptSecond, "back at the ceiling within 20 s of the lift (\(back / 1_000_000) ms)")
        print("capAndLift: fits under the cap after \(fit / 1_000_000) ms, lowest rung \(lowestRung), back at the top \(back / 1_000_000) ms after the lift; rung changes \(trace)")
    }
}
