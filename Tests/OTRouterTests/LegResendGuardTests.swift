@testable import OTRouter
import Testing

/// `LegResendGuard` on a synthetic clock: once per round trip per packet, and a byte
/// budget of 50 % of the leg's media rate (at least 100 kbps) holding one second.
@Suite struct LegResendGuardTests {
    static let ms: UInt64 = 1_000_000

    /// One step of a table: a NACKed packet's slot and size, the leg's rate, the time, and
    /// what the guard must answer.
    struct Step: Sendable {
        var slot: Int
        var bytes: Int
        var rate: Double
        var at: UInt64
        var expected: LegResendGuard.Decision
        var note: String
    }

    /// A named list of steps, run in order on one guard.
    struct Table: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [Step]
        var testDescription: String { name }
    }

    /// The bucket starts with one second of the floor (12,500 bytes), refills at
    /// max(rate / 2, 100 kbps) / 8 bytes per second, and never holds more than a second.
    static let budgetTable = Table(name: "floor, refill and bucket", steps: [
        Step(slot: 0, bytes: 12_000, rate: 0, at: 1 * ms, expected: .resend, note: "the first second of the floor"),
        Step(slot: 1, bytes: 1_000, rate: 0, at: 1 * ms, expected: .overBudget, note: "500 bytes left"),
        Step(slot: 1, bytes: 990, rate: 0, at: 41 * ms, expected: .resend, note: "40 ms at 12.5 kB/s refilled 500 bytes"),
        Step(slot: 2, bytes: 1_000, rate: 0, at: 41 * ms, expected: .overBudget, note: "spent again"),
        Step(slot: 2, bytes: 990, rate: 800_000, at: 61 * ms, expected: .resend,
             note: "20 ms at half of 800 kbps (50 kB/s) refilled 1,000 bytes"),
        Step(slot: 3, bytes: 60_000, rate: 800_000, at: 5_000 * ms, expected: .overBudget,
             note: "the bucket holds one second (50 kB) however long the pause"),
        Step(slot: 3, bytes: 50_000, rate: 800_000, at: 5_000 * ms, expected: .resend, note: "exactly one second's worth"),
    ])

    @Test(arguments: [budgetTable])
    func theBudgetFollowsHalfTheLegRateWithAFloorAndAOneSecondBucket(_ table: Table) {
        var guardian = LegResendGuard(slots: 8)
        for step in table.steps {
            let decision = guardian.decide(slot: step.slot, bytes: step.bytes, sentBitsPerSecond: step.rate, now: step.at)
            #expect(decision == step.expected, "\(step.note)")
        }
    }

    /// Each packet once per dedup interval: 100 ms until a round trip is known, then the
    /// round trip within 10 ms...1 s. Refusals for the budget do not stamp the slot.
    @Test func aPacketIsResentAtMostOncePerRoundTrip() {
        var guardian = LegResendGuard(slots: 8)
        let rate = 10_000_000.0  // a large budget: only the dedup decides
        #expect(guardian.dedupInterval == 100 * Self.ms, "the default while no RTT is known")
        #expect(guardian.decide(slot: 5, bytes: 1_000, sentBitsPerSecond: rate, now: 10 * Self.ms) == .resend)
        for asked in 1..<10 {
            #expect(guardian.decide(slot: 5, bytes: 1_000, sentBitsPerSecond: rate, now: 10 * Self.ms + UInt64(asked) * Self.ms)
                    == .duplicate, "asked again \(asked) ms later")
        }
        #expect(guardian.decide(slot: 6, bytes: 1_000, sentBitsPerSecond: rate, now: 11 * Self.ms) == .resend, "another packet")
        #expect(guardian.decide(slot: 5, bytes: 1_000, sentBitsPerSecond: rate, now: 110 * Self.ms) == .resend, "100 ms later")

        guardian.noteRoundTrip(30 * Self.ms)
        #expect(guardian.dedupInterval == 30 * Self.ms)
        #expect(guardian.decide(slot: 5, bytes: 1_000, sentBitsPerSecond: rate, now: 139 * Self.ms) == .duplicate)
        #expect(guardian.decide(slot: 5, bytes: 1_000, sentBitsPerSecond: rate, now: 140 * Self.ms) == .resend, "one RTT later")

        guardian.noteRoundTrip(200_000)  // loopback: 0.2 ms
        #expect(guardian.dedupInterval == LegResendGuard.minimumInterval)
        guardian.noteRoundTrip(5_000 * Self.ms)  // a lying report: ignored
        #expect(guardian.dedupInterval == LegResendGuard.minimumInterval)
        guardian.noteRoundTrip(0)
        #expect(guardian.roundTrip == 200_000)

        // A new packet in the slot has not been resent, whatever the old one did.
        #expect(guardian.decide(slot: 7, bytes: 1_000, sentBitsPerSecond: rate, now: 200 * Self.ms) == .resend)
        guardian.forget(slot: 7)
        #expect(guardian.decide(slot: 7, bytes: 1_000, sentBitsPerSecond: rate, now: 201 * Self.ms) == .resend)
    }

    @Test func aRefusalForTheBudgetLeavesThePacketFreeToGoLater() {
        var guardian = LegResendGuard(slots: 4)
        #expect(guardian.decide(slot: 0, bytes: 12_500, sentBitsPerSecond: 0, now: Self.ms) == .resend)
        #expect(guardian.decide(slot: 1, bytes: 1_200, sentBitsPerSecond: 0, now: Self.ms) == .overBudget)
        #expect(guardian.decide(slot: 1, bytes: 1_200, sentBitsPerSecond: 0, now: 101 * Self.ms) == .resend,
                "not a duplicate: it never went")
    }

    @Test func oddRatesFallBackToTheFloor() {
        let floor = LegResendGuard.floorBitsPerSecond / 8
        #expect(LegResendGuard.refillBytesPerSecond(sentBitsPerSecond: .nan) == floor)
        #expect(LegResendGuard.refillBytesPerSecond(sentBitsPerSecond: .infinity) == floor)
        #expect(LegResendGuard.refillBytesPerSecond(sentBitsPerSecond: -5) == floor)
        #expect(LegResendGuard.refillBytesPerSecond(sentBitsPerSecond: 2_000_000) == 125_000)
    }
}
