import CBareDTLS
import Glibc
import OTMedia

/// `otbench e2ee`: OTKit's SFrame (RFC 9605, AES_128_GCM_SHA256_128) encrypt + decrypt
/// per frame against a bare OpenSSL AES-128-GCM loop over the same frames in the same
/// run (`CBareAESGCM`: the same cryptographic work — nonce = salt XOR counter, the SFrame
/// header as AAD, EVP seal and EVP open with the tag check on contexts keyed once — and
/// byte-identical output, checked before timing).
///
/// OTKit's side per frame: `SFrameSender.encrypt` (header, AAD, seal into a caller
/// buffer) then `SFrameReceiver.decrypt` (header parse, KID lookup, replay window, open).
/// Same key, salt and counters on both sides; the ratio is what OTKit's code adds around
/// the cipher.
///
/// Cases (sizes pinned, generated from a fixed seed, the same list for both sides):
/// - `vp8 mix`: 640x480 30 fps at about 600 kbps: a 16,000-byte keyframe every 60 frames
///   (2 s), deltas of 1,000–3,600 bytes. Goal: ratio ≤ 1.10, 0 allocations per frame.
/// - `opus 80B`: 20 ms Opus at 32 kbps, 80-byte frames: the worst case for fixed
///   per-frame costs (informational ratio; same 0-allocation goal).
/// Timed on the thread's CPU clock in blocks of `blockSize` frames; sides alternate block
/// by block and the first side flips every run; medians over runs.
enum E2EEScenario: Scenario {
    static let name = "e2ee"
    static let summary = "SFrame encrypt+decrypt per frame vs bare OpenSSL AES-128-GCM, and allocations per frame"

    static let defaultFrames = 3_000
    static let defaultRuns = 7
    static let blockSize = 60

    /// One case: a label and its frame sizes.
    struct Case {
        let label: String
        let sizes: [Int32]
        let goal: Double?
    }

    /// The VP8 mix: keyframe 16,000 B every 60th frame, deltas 1,000–3,600 B (LCG, seed 17).
    static func vp8Mix(count: Int) -> [Int32] {
        var state: UInt32 = 17
        return (0..<count).map { index in
            state = state &* 1_664_525 &+ 1_013_904_223
            return index % 60 == 0 ? 16_000 : 1_000 + Int32(state >> 8) % 2_601
        }
    }

    static func run(options: Options, log: ProgressLog) throws -> [BenchResult] {
        let frames = max(blockSize, (options.frames ?? defaultFrames) / blockSize * blockSize)
        let runs = options.runs ?? defaultRuns
        try AllocationCounter.verify()
        let cases = [
            Case(label: "sframe vp8 mix", sizes: vp8Mix(count: frames), goal: 1.10),
            Case(label: "sframe opus 80B", sizes: [Int32](repeating: 80, count: frames), goal: nil),
        ].filter { options.only.map($0.label.contains) ?? true }
        var results: [BenchResult] = []
        for benchCase in cases {
            results += try measure(benchCase, runs: runs, log: log)
        }
        return results
    }

    private static func measure(_ benchCase: Case, runs: Int, log: ProgressLog) throws -> [BenchResult] {
        let sizes = benchCase.sizes
        let largest = Int(sizes.max()!)
        let mean = Double(sizes.reduce(0) { $0 + Int($1) }) / Double(sizes.count)
        let source = UnsafeMutableRawBufferPointer.allocate(byteCount: largest, alignment: 16)
        let sealed = UnsafeMutableRawBufferPointer.allocate(byteCount: largest + SFrameSender.maxOverhead, alignment: 16)
        let opened = UnsafeMutableRawBufferPointer.allocate(byteCount: largest, alignment: 16)
        defer { source.deallocate(); sealed.deallocate(); opened.deallocate() }
        var seed: UInt32 = 5
        for index in 0..<largest {
            seed = seed &* 1_103_515_245 &+ 12_345
            source[index] = UInt8(truncatingIfNeeded: seed >> 16)
        }
        let baseKey = try SFrameBaseKey(bytes: (0..<32).map { UInt8($0) })
        let keyID: UInt64 = 77
        let schedule = try SFrameKeySchedule(baseKey: baseKey.bytes, keyID: keyID)
        guard let bare = schedule.key.withUnsafeBufferPointer({ k in schedule.salt.withUnsafeBufferPointer { s in bare_gcm_create(k.baseAddress, s.baseAddress) } }) else {
            throw ScenarioError("e2ee: the bare OpenSSL AES-GCM contexts could not be made")
        }
        defer { bare_gcm_destroy(bare) }
        let sender = try SFrameSender(baseKey: baseKey, keyID: keyID)
        let receiver = SFrameReceiver(baseKey: baseKey)
        var bareCounter: UInt64 = 0

        func otkitFrames(_ range: Range<Int>) throws -> Void {
            for index in range {
                let frame = UnsafeRawBufferPointer(rebasing: source[0..<Int(sizes[index])])
                let length = try sender.encrypt(frame, into: sealed)
                let result = try receiver.decrypt(UnsafeRawBufferPointer(rebasing: sealed[0..<length]), into: opened)
                guard result.length == frame.count else { throw ScenarioError("e2ee: OTKit decrypted \(result.length) of \(frame.count) bytes") }
            }
        }
        @discardableResult
        func bareFrames(_ range: Range<Int>) throws -> Int {
            let status = sizes.withUnsafeBufferPointer { lengths in
                bare_gcm_frames(bare, keyID, source.baseAddress!.assumingMemoryBound(to: UInt8.self), lengths.baseAddress! + range.lowerBound,
                                Int32(range.count), &bareCounter, sealed.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                opened.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            guard status > 0 else { throw ScenarioError("e2ee: the bare AES-GCM loop failed (\(status))") }
            return Int(status)
        }

        // Both sides work before anything is timed (the receiver learns the KID), give back
        // the frame, and seal the same frame at the same counter to the same bytes.
        try otkitFrames(0..<blockSize)
        guard memcmp(opened.baseAddress!, source.baseAddress!, Int(sizes[blockSize - 1])) == 0 else {
            throw ScenarioError("e2ee: OTKit's SFrame round trip changed the frame")
        }
        let checkSender = try SFrameSender(baseKey: baseKey, keyID: keyID, firstCounter: UInt64(blockSize - 1))
        let expected = try [UInt8](unsafeUninitializedCapacity: largest + SFrameSender.maxOverhead) { buffer, count in
            count = try checkSender.encrypt(UnsafeRawBufferPointer(rebasing: source[0..<Int(sizes[blockSize - 1])]),
                                            into: UnsafeMutableRawBufferPointer(buffer))
        }
        let bareLength = try bareFrames(0..<blockSize)
        guard memcmp(opened.baseAddress!, source.baseAddress!, Int(sizes[blockSize - 1])) == 0 else {
            throw ScenarioError("e2ee: the bare loop's round trip changed the frame")
        }
        guard bareLength == expected.count, memcmp(sealed.baseAddress!, expected, bareLength) == 0 else {
            throw ScenarioError("e2ee: OTKit and the bare loop seal the same frame differently")
        }
        log("\(benchCase.label): \(sizes.count) frames per run, mean \(TableReport.format(mean)) B; "
            + "both sides round-trip and seal a frame to identical bytes (\(bareLength) B)")

        var otkitNs: [Double] = [], bareNs: [Double] = [], otkitAllocs: [Double] = []
        for run in 0..<runs {
            var otkitTime: UInt64 = 0, bareTime: UInt64 = 0, allocations: UInt64 = 0
            for block in 0..<(sizes.count / blockSize) {
                let range = (block * blockSize)..<((block + 1) * blockSize)
                let otkitNow = (block % 2 == 0) == (run % 2 == 0)
                for side in 0..<2 {
                    if (side == 0) == otkitNow {
                        let before = AllocationCounter.count
                        let start = threadCPUNanoseconds()
                        try otkitFrames(range)
                        otkitTime += threadCPUNanoseconds() - start
                        allocations += AllocationCounter.count - before
                    } else {
                        let start = threadCPUNanoseconds()
                        try bareFrames(range)
                        bareTime += threadCPUNanoseconds() - start
                    }
                }
            }
            let count = Double(sizes.count)
            otkitNs.append(Double(otkitTime) / count)
            bareNs.append(Double(bareTime) / count)
            otkitAllocs.append(Double(allocations) / count)
            log("  \(benchCase.label) run \(run + 1)/\(runs): OTKit \(TableReport.format(otkitNs.last!)) bare \(TableReport.format(bareNs.last!)) ns/frame, "
                + "\(TableReport.format(otkitAllocs.last!)) allocs/frame")
        }
        let otkit = median(otkitNs.sorted()), baseline = median(bareNs.sorted())
        let name = "\(benchCase.label) (mean \(Int(mean.rounded())) B) encrypt+decrypt CPU"
        return [
            benchCase.goal.map { .compared(name, value: otkit, unit: "ns/frame", baseline: baseline, goal: $0) }
                ?? .info(name, value: otkit, unit: "ns/frame", baseline: baseline),
            .bounded("\(benchCase.label) allocations", value: otkitAllocs.max()!, unit: "allocs/frame", goal: 0),
        ]
    }
}
