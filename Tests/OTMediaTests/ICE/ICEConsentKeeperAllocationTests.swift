import OTTestSupport
import Testing
@testable import OTMedia

/// The consent path on a pipeline's network thread allocates nothing per packet: a DTLS
/// datagram classified and taken out before SRTP allocates nothing (the classifier's
/// range patterns allocated once per datagram in debug builds before), a STUN answer
/// checked by the keeper only what OpenSSL's one-shot HMAC allocates itself (measured in
/// the same run), and a timer turn with no check due nothing. Needs the malloc shim
/// (`AllocationCounter`).
@Suite(.enabled(if: AllocationCounter.shouldRun, "the allocation counter shim is not loaded"))
struct ICEConsentKeeperAllocationTests {
    @Test func demuxAndAnswersAllocateOnlyOpenSSLsHMAC() throws {
        let counter = try AllocationCounter.required()
        let pair = try ICEConsentKeeperTests.Pair()
        let counters = EdgeDatagramCounters()
        var due = pair.keeper.nextCheck(now: 0, socket: pair.client)
        due = pair.keeper.nextCheck(now: due, socket: pair.client)
        // One real answer to replay: after the first it is an unknown transaction, which
        // costs the same checks (parse, CRC-32, HMAC) and then the table walk.
        let check = try #require(try pair.receive(on: pair.router))
        var response = [UInt8](repeating: 0, count: STUNBinding.maximumResponseSize)
        let result = check.bytes.withUnsafeBytes { datagram in
            response.withUnsafeMutableBytes { pair.agent.handle(datagram, from: check.from, now: due, response: $0) }
        }
        guard case let .respond(count, _) = result else {
            Issue.record("the agent did not answer: \(result)")
            return
        }
        let answer = Array(response.prefix(count))
        let dtls: [UInt8] = [23, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 9, 0, 16] + Array(repeating: 1, count: 16)
        let key = Array(pair.routerCredentials.password.utf8)
        var digest = [UInt8](repeating: 0, count: 20)

        func allocations(_ body: () -> Void) -> UInt64 {
            body()
            let before = counter()
            for _ in 0 ..< 100 { body() }
            return counter() - before
        }
        let hmac = allocations {
            answer.withUnsafeBytes { message in
                key.withUnsafeBytes { key in
                    digest.withUnsafeMutableBytes { STUNIntegrity.hmacSHA1(key: key, message: message, into: $0) }
                }
            }
        }
        #expect(allocations {
            dtls.withUnsafeBytes { _ = counters.take(PacketClassifier.classify($0), $0, consent: pair.keeper, now: due) }
        } == 0)
        let stun = allocations {
            answer.withUnsafeBytes { _ = counters.take(PacketClassifier.classify($0), $0, consent: pair.keeper, now: due) }
        }
        print("consent answer: \(stun) allocations per 100, OpenSSL's HMAC alone \(hmac)")
        #expect(stun == hmac)
        #expect(allocations { _ = pair.keeper.nextCheck(now: due + 1, socket: pair.client) } == 0)
        #expect(pair.keeper.successes == 1 && counters.snapshot.stun == 101 && counters.snapshot.dtls == 101)
    }
}
