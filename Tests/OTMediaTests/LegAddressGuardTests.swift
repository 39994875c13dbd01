import OTMedia
import Testing

/// `LegAddressGuard` on a synthetic clock: the first source is taken, a new one only after
/// 3 datagrams over 1 s with the old path silent, at most one move per 5 s.
@Suite struct LegAddressGuardTests {
    static let ms: UInt64 = 1_000_000
    static let first = SocketAddress.ipv4Loopback(port: 40_001)
    static let second = SocketAddress.ipv4Loopback(port: 40_002)
    static let third = SocketAddress.ipv4Loopback(port: 40_003)

    /// One datagram of a table: its source, its arrival (ms) and what the guard must say.
    struct Step: Sendable {
        var source: SocketAddress?
        var atMilliseconds: UInt64
        var expected: LegAddressGuard.Outcome
        var note: String
    }

    /// A named list of steps, run in order on one guard.
    struct Table: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [Step]
        var testDescription: String { name }
    }

    static let nat = Table(name: "a NAT rebinding, then a second move within 5 s", steps: [
        Step(source: nil, atMilliseconds: 0, expected: .unchanged, note: "no source: nothing learned"),
        Step(source: first, atMilliseconds: 10, expected: .learned, note: "the first authenticated datagram sets it"),
        Step(source: first, atMilliseconds: 20, expected: .unchanged, note: "same path"),
        Step(source: second, atMilliseconds: 100, expected: .held, note: "one spoofed datagram moves nothing"),
        Step(source: second, atMilliseconds: 200, expected: .held, note: "2 of 3"),
        Step(source: second, atMilliseconds: 300, expected: .held, note: "3 datagrams, but 200 ms"),
        Step(source: second, atMilliseconds: 1_099, expected: .held, note: "999 ms"),
        Step(source: second, atMilliseconds: 1_100, expected: .moved(from: first), note: "3+ datagrams over 1 s: a rebinding"),
        Step(source: first, atMilliseconds: 1_200, expected: .held, note: "the old path is now the new source"),
        Step(source: third, atMilliseconds: 1_300, expected: .held, note: "a third source starts over"),
        Step(source: third, atMilliseconds: 2_000, expected: .held, note: "2 of 3"),
        Step(source: third, atMilliseconds: 2_400, expected: .held, note: "probation done, but within 5 s of the move"),
        Step(source: third, atMilliseconds: 6_099, expected: .held, note: "4.999 s after the move"),
        Step(source: third, atMilliseconds: 6_100, expected: .moved(from: second), note: "5 s after the move"),
    ])

    static let interleaved = Table(name: "a spoofer while the client still reports", steps: [
        Step(source: first, atMilliseconds: 0, expected: .learned, note: "learned"),
        Step(source: second, atMilliseconds: 100, expected: .held, note: "a spoofer"),
        Step(source: second, atMilliseconds: 600, expected: .held, note: "2 of 3"),
        Step(source: first, atMilliseconds: 700, expected: .unchanged, note: "the client is still on its path: probation ends"),
        Step(source: second, atMilliseconds: 1_200, expected: .held, note: "starts over: 1 of 3"),
        Step(source: second, atMilliseconds: 1_300, expected: .held, note: "2 of 3"),
        Step(source: second, atMilliseconds: 1_400, expected: .held, note: "3 datagrams, 200 ms"),
        Step(source: second, atMilliseconds: 2_200, expected: .moved(from: first), note: "1 s after it started over"),
    ])

    @Test(arguments: [nat, interleaved])
    func aNewSourceMovesTheLegOnlyAfterItsProbationAndAtMostOncePerFiveSeconds(_ table: Table) {
        var guardian = LegAddressGuard()
        for step in table.steps {
            let outcome = guardian.observe(step.source, now: step.atMilliseconds * Self.ms)
            #expect(outcome == step.expected, "\(step.note)")
        }
    }

    @Test func sendsStayOnTheOldAddressDuringTheProbation() {
        var guardian = LegAddressGuard()
        #expect(guardian.address == nil)
        _ = guardian.observe(Self.first, now: 0)
        for index in 0..<10 { _ = guardian.observe(Self.second, now: UInt64(index) * 10 * Self.ms) }
        #expect(guardian.address == Self.first, "held: sends stay on the first path")
        _ = guardian.observe(Self.second, now: 1_000 * Self.ms)
        #expect(guardian.address == Self.second)
    }
}
