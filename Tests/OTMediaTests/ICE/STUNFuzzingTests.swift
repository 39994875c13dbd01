import Foundation
import Testing
@testable import OTMedia

/// The STUN fuzz target's body and seeds: the seeds are the RFC 5769 vectors byte for
/// byte plus a check the target's agent answers (so the fuzzer starts on the answer path).
@Suite struct STUNFuzzingTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/STUN")

    static func seed(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: corpus.appendingPathComponent(name)))
    }

    @Test func seedsAreTheVectorsAndAnAnsweredCheck() throws {
        #expect(try Self.seed("rfc5769-2.1-request") == STUNTestVectors.request)
        #expect(try Self.seed("rfc5769-2.2-ipv4-response") == STUNTestVectors.ipv4Response)
        #expect(try Self.seed("rfc5769-2.3-ipv6-response") == STUNTestVectors.ipv6Response)
        // The sample request claims ICE-CONTROLLED: the agent refuses it (role conflict).
        #expect(withRaw(STUNTestVectors.request) { STUNFuzzing.run($0) } == 0)
        #expect(try withRaw(Self.seed("ice-check-nominating")) { STUNFuzzing.run($0) } == 1)
    }

    /// Every prefix and every single-byte change of the answered seed runs through the
    /// target body without trapping; none of the changed ones is answered.
    @Test func truncationsAndByteChangesOfTheSeedNeverTrap() throws {
        let seed = try Self.seed("ice-check-nominating")
        for length in 0 ..< seed.count { _ = withRaw(Array(seed.prefix(length))) { STUNFuzzing.run($0) } }
        var answered = 0
        for index in seed.indices {
            for value: UInt8 in [0x00, 0xFF, seed[index] ^ 0x01] where value != seed[index] {
                var bytes = seed
                bytes[index] = value
                answered += withRaw(bytes) { STUNFuzzing.run($0) }
            }
        }
        #expect(answered == 0)
    }
}
