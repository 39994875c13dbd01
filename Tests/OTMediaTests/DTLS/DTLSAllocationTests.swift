import OTTestSupport
import Testing
@testable import OTMedia

/// What a connected transport does per datagram that OpenSSL never needs to see (not
/// DTLS, or epoch-0 records after the handshake) allocates nothing: the output storage
/// and counters are reused.
@Suite(.enabled(if: AllocationCounter.shouldRun, "the allocation counter shim is not loaded"))
struct DTLSAllocationTests {
    @Test func droppedDatagramsAllocateNothing() throws {
        let counter = try AllocationCounter.required()
        let (client, server) = try DTLSTest.pair()
        DTLSTest.handshake(client, server)
        #expect(server.state == .connected)
        let stun: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xA4, 0x42] + [UInt8](repeating: 7, count: 12)
        let epochZero: [UInt8] = [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 9, 0, 4, 1, 0, 0, 0]
        let now = DTLSTest.now()
        // Warm up once, then count.
        stun.withUnsafeBytes { _ = server.receive($0, now: now) }
        epochZero.withUnsafeBytes { _ = server.receive($0, now: now) }
        let before = counter()
        for _ in 0..<1_000 {
            stun.withUnsafeBytes { _ = server.receive($0, now: now) }
            epochZero.withUnsafeBytes { _ = server.receive($0, now: now) }
        }
        let allocations = counter() - before
        #expect(allocations == 0)
        #expect(server.counters.datagramsIgnored == 1_001)
        #expect(server.counters.recordsDiscarded == 1_001)
        #expect(server.state == .connected)
    }
}
