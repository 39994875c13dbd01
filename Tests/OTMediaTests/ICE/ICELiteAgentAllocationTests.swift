import OTTestSupport
import Testing
@testable import OTMedia

/// What `ICELiteAgent.handle` allocates: nothing for a datagram it drops before the HMAC
/// (malformed, unknown ufrag, bad fingerprint: what a flood of unauthenticated packets
/// costs), and for an answered check only what OpenSSL's two one-shot HMACs allocate
/// themselves, measured in the same run. Needs the malloc shim (`AllocationCounter`).
@Suite(.enabled(if: AllocationCounter.shouldRun, "the allocation counter shim is not loaded"))
struct ICELiteAgentAllocationTests {
    @Test func dropsAllocateNothingAndAnswersOnlyOpenSSLsHMAC() throws {
        let counter = try AllocationCounter.required()
        var agent = ICELiteAgentTests.agent()
        let valid = ICELiteAgentTests.check(nominate: true)
        let unknown = ICELiteAgentTests.check(username: "Nope:brws")
        let badFingerprint = ICELiteAgentTests.check { $0[$0.count - 1] ^= 1 }
        let truncated = Array(valid.prefix(40))
        var response = [UInt8](repeating: 0, count: STUNBinding.maximumResponseSize)
        let key = Array(ICELiteAgentTests.local.password.utf8)
        var digest = [UInt8](repeating: 0, count: 20)

        func allocations(_ body: () -> Void) -> UInt64 {
            body()   // warm up (first-use tables, OpenSSL's method cache)
            let before = counter()
            for _ in 0 ..< 100 { body() }
            return counter() - before
        }
        func handle(_ datagram: [UInt8]) {
            datagram.withUnsafeBytes { raw in
                response.withUnsafeMutableBytes { _ = agent.handle(raw, from: ICELiteAgentTests.first, now: 1, response: $0) }
            }
        }
        let hmacs = allocations {
            valid.withUnsafeBytes { message in
                key.withUnsafeBytes { key in
                    digest.withUnsafeMutableBytes { out in
                        STUNIntegrity.hmacSHA1(key: key, message: message, into: out)
                        STUNIntegrity.hmacSHA1(key: key, message: message, into: out)
                    }
                }
            }
        }
        #expect(allocations { handle(unknown) } == 0)
        #expect(allocations { handle(badFingerprint) } == 0)
        #expect(allocations { handle(truncated) } == 0)
        let answered = allocations { handle(valid) }
        print("ICE-lite handle: \(answered) allocations per 100 answered checks, OpenSSL's two HMACs alone \(hmacs)")
        #expect(answered == hmacs)
        #expect(agent.counters.responses == 101)
    }
}
