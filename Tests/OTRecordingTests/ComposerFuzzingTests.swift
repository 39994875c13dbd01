import Foundation
import OTRecording
import OTTestSupport
import Testing

/// The composer's fuzz target body over its seeds and seeded random inputs: it must not
/// trap, and well-formed seeds must reach the code they aim at.
@Suite struct ComposerFuzzingTests {
    @Test func seedsAndRandomInputsRunCleanly() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/Composer").path
        let seeds = try FileManager.default.contentsOfDirectory(atPath: corpus).sorted()
        #expect(seeds.count >= 4)
        for name in seeds {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: corpus + "/" + name)))
            let result = bytes.withUnsafeBytes { ComposerFuzzing.run($0) }
            #expect(result >= 1, "\(name) reaches its code")
        }
        var random = SplitMix64(seed: 18)
        for round in 0..<300 {
            let count = Int(random.next() % 3_000)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if !bytes.isEmpty { bytes[0] = UInt8(round % 2) }
            _ = bytes.withUnsafeBytes { ComposerFuzzing.run($0) }
        }
    }
}
