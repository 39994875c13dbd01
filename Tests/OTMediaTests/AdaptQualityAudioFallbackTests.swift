import Glibc
import Testing
import OTMedia

/// Audio fallback on both sides: exact event sequences and times, probing, the setting.
@Suite struct AdaptQualityAudioFallbackTests {
    struct Trace: Equatable {
        var events: [String] = []
        var probing: [UInt64] = []       // ms at which probing started
    }

    /// Feeds `input(ms)` → (video bitrate, loss) every 100 ms from 0 to `seconds`; returns the
    /// events as "ms name" strings and the probe start times.
    static func run(_ config: AudioFallbackConfiguration = .subscriber, seconds: UInt64,
                    input: (UInt64) -> (Int, Double)) -> (trace: Trace, controller: AudioFallbackController) {
        var controller = AudioFallbackController(configuration: config)
        var trace = Trace()
        var ms: UInt64 = 0
        var wasProbing = false
        while ms <= seconds * 1000 {
            let (bitrate, loss) = input(ms)
            if let event = controller.update(videoBitrate: bitrate, lossFraction: loss, now: ms * 1_000_000) {
                trace.events.append("\(ms) \(event.delegateName(on: config.side))")
            }
            if controller.isProbing && !wasProbing { trace.probing.append(ms) }
            wasProbing = controller.isProbing
            ms += 100
        }
        return (trace, controller)
    }

    /// Piecewise-constant input: each (from ms, video bitrate, loss) holds until the next.
    static func piecewise(_ segments: [(UInt64, Int, Double)]) -> (UInt64) -> (Int, Double) {
        { ms in
            let segment = segments.last { $0.0 <= ms } ?? segments[0]
            return (segment.1, segment.2)
        }
    }

    @Test(arguments: [
        // A subscriber downlink capped to 60 kbps at 1 s (28 kbps left for video after 32 kbps
        // of Opus), lifted at 30 s: warning after 3 s, disabled 4 s later, probes every 10 s,
        // enabled 5 s after the lift.
        ("cap then lift", [(0, 800_000, 0), (1000, 28_000, 0.02), (30_000, 400_000, 0)],
         ["4000 subscriberVideoDisableWarning", "8000 subscriberVideoDisabled", "35000 subscriberVideoEnabled"],
         [18_000, 28_000]),
        // A dip to 80 kbps for 5 s: warned, never disabled, lifted 3 s after recovery.
        ("dip", [(0, 500_000, 0), (1000, 80_000, 0), (6000, 500_000, 0)],
         ["4000 subscriberVideoDisableWarning", "9000 subscriberVideoDisableWarningLifted"], []),
        // 2.9 s under the warning threshold: nothing.
        ("short dip", [(0, 500_000, 0), (1000, 20_000, 0), (3900, 500_000, 0)], [], []),
        // 15 % loss for 10 s at a good bitrate: warning (loss > 10 %), never disabled (loss
        // alone does not disable), lifted 3 s after the loss ends.
        ("loss only", [(0, 500_000, 0), (1000, 500_000, 0.15), (11_000, 500_000, 0)],
         ["4000 subscriberVideoDisableWarning", "14000 subscriberVideoDisableWarningLifted"], []),
        // Below 50 kbps from 1 s to 6 s only: the disable hold (4 s after the warning at 4 s)
        // is not reached; 110 kbps afterwards is above the warning threshold but under the
        // lift threshold (120 kbps), so the warning stays until 130 kbps at 20 s: lifted at 23 s.
        ("hover between warn and lift", [(0, 500_000, 0), (1000, 30_000, 0), (6000, 110_000, 0), (20_000, 130_000, 0)],
         ["4000 subscriberVideoDisableWarning", "23000 subscriberVideoDisableWarningLifted"], []),
        // Recovery interrupted: 160 kbps from 30 s, one dip to 140 kbps at 33 s restarts the
        // 5 s recovery hold: enabled at 38.1 s.
        ("interrupted recovery", [(0, 500_000, 0), (1000, 10_000, 0), (30_000, 160_000, 0), (33_000, 140_000, 0), (33_100, 160_000, 0)],
         ["4000 subscriberVideoDisableWarning", "8000 subscriberVideoDisabled", "38100 subscriberVideoEnabled"],
         [18_000, 28_000]),
        // Under 50 kbps from 1 s on: the disable hold counts from the warning (4 s), not from
        // the start of the condition (1 s), so disabled at 8 s; then a probe every 10 s.
        ("disable counts from the warning", [(0, 500_000, 0), (1000, 40_000, 0)],
         ["4000 subscriberVideoDisableWarning", "8000 subscriberVideoDisabled"],
         [18_000, 28_000, 38_000, 48_000, 58_000]),
    ] as [(String, [(UInt64, Int, Double)], [String], [UInt64])])
    func eventSequences(name: String, segments: [(UInt64, Int, Double)], events: [String], probes: [UInt64]) {
        let result = Self.run(seconds: 60, input: Self.piecewise(segments))
        #expect(result.trace.events == events, "\(name)")
        #expect(result.trace.probing == probes, "\(name)")
    }

    @Test func publisherSideNamesItsOwnEvents() {
        let result = Self.run(.publisher, seconds: 40) { ms in
            ms < 1000 ? (800_000, 0) : ms < 30_000 ? (28_000, 0) : (400_000, 0)
        }
        #expect(result.trace.events == ["4000 publisherVideoDisableWarning", "8000 publisherVideoDisabled",
                                        "35000 publisherVideoEnabled"])
    }

    @Test func disabledSettingNeverFallsBack() {
        let result = Self.run(AudioFallbackConfiguration(side: .subscriber, enabled: false), seconds: 60) { _ in (10_000, 0.3) }
        #expect(result.trace.events.isEmpty)
        #expect(result.controller.state == .normal && result.controller.sendsVideo)
    }

    @Test(arguments: [
        (UInt64(5_000), AudioFallbackState.warning, AudioFallbackEvent?.some(.warningLifted)),
        (UInt64(9_000), .videoDisabled, .some(.videoEnabled(reason: .qualityChanged))),
        (UInt64(2_000), .normal, nil),
    ])
    func turningTheSettingOffUndoesTheFallback(atMs: UInt64, stateBefore: AudioFallbackState, event: AudioFallbackEvent?) {
        var controller = AudioFallbackController(configuration: .subscriber)
        var ms: UInt64 = 0
        while ms <= atMs {
            _ = controller.update(videoBitrate: ms < 1000 ? 500_000 : 20_000, lossFraction: 0, now: ms * 1_000_000)
            ms += 100
        }
        #expect(controller.state == stateBefore)
        #expect(controller.setEnabled(false, now: ms * 1_000_000) == event)
        #expect(controller.state == .normal)
        #expect(controller.update(videoBitrate: 0, lossFraction: 1, now: (ms + 60_000) * 1_000_000) == nil)
    }

    @Test func probeEndsEarlyWhenItCausesLoss() {
        // Disabled at 8 s; the probe at 18 s meets 20 % loss at 19 s and stops at once.
        var states: [UInt64: AudioFallbackState] = [:]
        var controller = AudioFallbackController(configuration: .publisher)
        var ms: UInt64 = 0
        while ms <= 30_000 {
            let loss = ms >= 19_000 && ms < 19_500 ? 0.2 : 0
            _ = controller.update(videoBitrate: ms < 1000 ? 500_000 : 20_000, lossFraction: loss, now: ms * 1_000_000)
            states[ms] = controller.state
            ms += 100
        }
        #expect(states[17_900] == .videoDisabled && !(states[17_900] == .probing))
        #expect(states[18_000] == .probing && states[18_900] == .probing)
        #expect(states[19_000] == .videoDisabled)
        #expect(states[27_900] == .videoDisabled && states[28_000] == .probing, "next probe 10 s after the last one's start")
    }

    /// A video bitrate swinging around the warning threshold (a sine of the given amplitude
    /// and period around 100 kbps, plus ±5 kbps of seeded noise) for a minute. Short swings
    /// give one warning and no lift (time above 120 kbps is shorter than the lift hold); wide
    /// slow swings toggle warning and lift once per period, never disabling (time under
    /// 50 kbps is shorter than the disable hold).
    @Test(arguments: [
        (30_000.0, 8.0, UInt64(7), 1, 0),     // (amplitude, period s, seed, warnings, lifts)
        (30_000.0, 8.0, UInt64(8), 1, 0),
        (60_000.0, 16.0, UInt64(9), 4, 3),   // the 4th warning comes too late to be lifted by 60 s
        (10_000.0, 4.0, UInt64(10), 0, 0),    // dips last 2 s < the 3 s warning hold
    ] as [(Double, Double, UInt64, Int, Int)])
    func swingingBitrateAroundTheWarningThreshold(amplitude: Double, period: Double, seed: UInt64, warnings: Int, lifts: Int) {
        var random = SplitMix64(seed: seed)
        let result = Self.run(seconds: 60) { ms in
            let phase = 2 * Double.pi * Double(ms) / 1000 / period
            return (Int(100_000 + amplitude * Glibc.sin(phase) + 5_000 * random.symmetric()), 0)
        }
        let names = result.trace.events.map { String($0.split(separator: " ")[1]) }
        #expect(!names.contains("subscriberVideoDisabled"))
        #expect(names.filter { $0 == "subscriberVideoDisableWarning" }.count == warnings, "\(result.trace.events)")
        #expect(names.filter { $0 == "subscriberVideoDisableWarningLifted" }.count == lifts, "\(result.trace.events)")
        for (index, name) in names.enumerated() {
            #expect(name == (index % 2 == 0 ? "subscriberVideoDisableWarning" : "subscriberVideoDisableWarningLifted"),
                    "warnings and lifts alternate, starting with a warning")
        }
    }
}
