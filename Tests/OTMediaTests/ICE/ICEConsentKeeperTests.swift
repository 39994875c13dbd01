import Synchronization
import Testing
@testable import OTMedia

/// RFC 7675 consent from the client's side, against the router's own `ICELiteAgent` over
/// loopback sockets, on made-up times (no waiting): checks every 4-6 s, answers verified,
/// consent lost after 30 s without one, and the agent's consent refreshed by the checks.
@Suite struct ICEConsentKeeperTests {
    static let seconds: UInt64 = 1_000_000_000

    /// A client socket with a keeper, and a "router" socket whose agent answers.
    final class Pair {
        let client: UDPSocket
        let router: UDPSocket
        let routerCredentials = ICECredentials.generate()
        let clientCredentials = ICECredentials.generate()
        var agent = ICELiteAgent(consentTimeoutNanoseconds: 30 * ICEConsentKeeperTests.seconds)
        let keeper: ICEConsentKeeper
        let lost = LostCount()
        let restored = LostCount()
        let buffer: PacketBuffer
        let batch = UDPMessageBatch(capacity: 1)

        final class LostCount: Sendable {
            let value = Atomic<Int>(0)
        }

        init() throws {
            client = try UDPSocket(bindingTo: .ipv4Loopback())
            router = try UDPSocket(bindingTo: .ipv4Loopback())
            try agent.register(ICELegID(1), local: routerCredentials, remoteUfrag: clientCredentials.ufrag, now: 0)
            let peer = ICEPeer(address: router.localAddress, credentials: routerCredentials,
                               fingerprint: DTLSFingerprint(sha256: Array(repeating: 0, count: 32))!)
            let lost = self.lost, restored = self.restored
            keeper = ICEConsentKeeper(peer: peer, local: clientCredentials, onConsentLost: { lost.value.add(1, ordering: .relaxed) },
                                      onConsentRestored: { restored.value.add(1, ordering: .relaxed) })
            buffer = PacketBufferPool(initialCount: 1, maximumCount: 1, bufferSize: 2_048, headroom: 0).take()!
        }

        /// The next datagram on `socket` (waits up to 2 s), copied.
        func receive(on socket: UDPSocket) throws -> (bytes: [UInt8], from: SocketAddress)? {
            guard try socket.waitUntilReadable(timeoutNanoseconds: 2 * ICEConsentKeeperTests.seconds),
                  try socket.receive(into: [buffer], batch: batch).count == 1, let from = buffer.peer else { return nil }
            return (Array(buffer.bytes), from)
        }

        /// The router reads one check, its agent answers at `now`, the answer goes back and the
        /// keeper takes it. Returns what the agent said and what the keeper said.
        func answerOneCheck(now: UInt64, signWith password: String? = nil) throws -> (ICEResult, Bool) {
            let check = try #require(try receive(on: router))
            var response = [UInt8](repeating: 0, count: STUNBinding.maximumResponseSize)
            let result = check.bytes.withUnsafeBytes { datagram in
                response.withUnsafeMutableBytes { agent.handle(datagram, from: check.from, now: now, response: $0) }
            }
            guard case let .respond(count, _) = result else { return (result, false) }
            var answer = Array(response.prefix(count))
            if let password {
                // Re-sign the same answer with another key: a forgery.
                let parsed = try answer.withUnsafeBytes { try STUNMessage(parsing: $0) }
                var out = [UInt8](repeating: 0, count: 200)
                let size = out.withUnsafeMutableBytes { buffer in
                    var writer = try! STUNWriter(into: buffer, type: .bindingSuccess, transactionID: parsed.transactionID)
                    try! Array(password.utf8).withUnsafeBytes { try writer.appendMessageIntegrity(key: $0) }
                    try! writer.appendFingerprint()
                    return writer.count
                }
                answer = Array(out.prefix(size))
            }
            buffer.reset()
            answer.withUnsafeBytes { _ = buffer.assign($0) }
            buffer.peer = client.localAddress
            _ = try router.send([buffer], batch: batch)
            let back = try #require(try receive(on: client))
            let taken = back.bytes.withUnsafeBytes { keeper.receive($0, now: now) }
            return (result, taken)
        }
    }

    @Test func checksGoEveryFourToSixSecondsAndTheAgentAnswersThem() throws {
        let pair = try Pair()
        var now: UInt64 = 1_000 * Self.seconds
        var due = pair.keeper.nextCheck(now: now, socket: pair.client)  // starts the clocks, sends nothing
        #expect(pair.keeper.checksSent == 0)
        var gaps: [UInt64] = []
        for _ in 0 ..< 20 {
            gaps.append(due - now)
            now = due
            due = pair.keeper.nextCheck(now: now, socket: pair.client)
            let (result, taken) = try pair.answerOneCheck(now: now)
            guard case let .respond(_, event) = result else {
                Issue.record("the agent dropped a consent check: \(result)")
                return
            }
            #expect(event.change == .checked)  // consent checks do not nominate
            #expect(taken)
        }
        #expect(gaps.allSatisfy { $0 >= 4 * Self.seconds && $0 <= 6 * Self.seconds })
        #expect(Set(gaps).count > 1, "randomised, not a fixed period")
        #expect(pair.keeper.checksSent == 20 && pair.keeper.successes == 20 && !pair.keeper.isConsentLost)
        // The checks refreshed the router's consent: nothing lapses 29 s after the last.
        #expect(pair.agent.lapse(now: now + 29 * Self.seconds).isEmpty)
        #expect(pair.agent.hasConsent(ICELegID(1)))
        #expect(pair.agent.lapse(now: now + 31 * Self.seconds) == [ICELegID(1)])
        #expect(!pair.agent.hasConsent(ICELegID(1)))
    }

    @Test func consentIsLostThirtySecondsAfterTheLastSuccessOnce() throws {
        let pair = try Pair()
        let start: UInt64 = 50 * Self.seconds
        let due = pair.keeper.nextCheck(now: start, socket: pair.client)
        _ = pair.keeper.nextCheck(now: due, socket: pair.client)
        let (_, taken) = try pair.answerOneCheck(now: start + 5 * Self.seconds)
        #expect(taken)
        let last = start + 5 * Self.seconds
        // Nothing answered from now on: checks keep going, consent holds until 30 s.
        _ = pair.keeper.nextCheck(now: last + 29 * Self.seconds, socket: pair.client)
        #expect(!pair.keeper.isConsentLost)
        _ = pair.keeper.nextCheck(now: last + 30 * Self.seconds, socket: pair.client)
        #expect(pair.keeper.isConsentLost)
        _ = pair.keeper.nextCheck(now: last + 40 * Self.seconds, socket: pair.client)
        #expect(pair.lost.value.load(ordering: .relaxed) == 1)
    }

    @Test func answersNotSignedWithTheRoutersPasswordOrForUnknownChecksDoNotCount() throws {
        let pair = try Pair()
        var due = pair.keeper.nextCheck(now: 0, socket: pair.client)
        due = pair.keeper.nextCheck(now: due, socket: pair.client)
        let (_, forged) = try pair.answerOneCheck(now: due, signWith: "notTheRoutersPasswordAtAll")
        #expect(!forged)
        #expect(pair.keeper.successes == 0 && pair.keeper.ignoredMessages == 1)
        // A success for a transaction it never sent, correctly signed: ignored too.
        var out = [UInt8](repeating: 0, count: 200)
        let size = try out.withUnsafeMutableBytes { buffer in
            try Array(pair.routerCredentials.password.utf8).withUnsafeBytes { key in
                try STUNBinding.writeSuccessResponse(into: buffer, transactionID: .random(), mapped: pair.client.localAddress,
                                                     integrityKey: key)
            }
        }
        #expect(!Array(out.prefix(size)).withUnsafeBytes { pair.keeper.receive($0, now: due) })
        #expect(pair.keeper.successes == 0 && pair.keeper.ignoredMessages == 2)
    }

    /// A success after consent was lost restores it (reported once), and a later silence
    /// loses it again: the owner hears each interruption and each return.
    @Test func aSuccessAfterTheLossRestoresConsentAndALaterSilenceLosesItAgain() throws {
        let pair = try Pair()
        let start: UInt64 = 10 * Self.seconds
        _ = pair.keeper.nextCheck(now: start, socket: pair.client)
        _ = pair.keeper.nextCheck(now: start + 30 * Self.seconds, socket: pair.client)
        #expect(pair.keeper.isConsentLost && pair.lost.value.load(ordering: .relaxed) == 1)
        #expect(pair.restored.value.load(ordering: .relaxed) == 0)
        // The checks went on while consent was lost; one is answered now.
        let back = start + 36 * Self.seconds
        _ = pair.keeper.nextCheck(now: back, socket: pair.client)
        let (_, taken) = try pair.answerOneCheck(now: back)
        #expect(taken && !pair.keeper.isConsentLost)
        #expect(pair.restored.value.load(ordering: .relaxed) == 1)
        let (_, again) = try pair.answerOneCheck(now: back)  // the next check answered too: no second report
        #expect(again && pair.restored.value.load(ordering: .relaxed) == 1)
        _ = pair.keeper.nextCheck(now: back + 29 * Self.seconds, socket: pair.client)
        #expect(!pair.keeper.isConsentLost)
        _ = pair.keeper.nextCheck(now: back + 30 * Self.seconds, socket: pair.client)
        #expect(pair.keeper.isConsentLost && pair.lost.value.load(ordering: .relaxed) == 2)
    }
}
