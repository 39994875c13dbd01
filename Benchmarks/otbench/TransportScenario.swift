import OTMedia

/// `otbench transport`: the SRTP cost per packet through OTKit's `SRTPSession` against a
/// bare libsrtp2 loop in C doing exactly the same work, in the same run.
///
/// Cases: AEAD_AES_128_GCM and AES_CM_128_HMAC_SHA1_80, RTP packets of 1200 and 100
/// bytes (12-byte header included, tag excluded). Per case: protect and unprotect CPU
/// ns/packet (median over runs; goal OTKit ≤ 1.05 × bare) and allocations per packet in
/// steady state (goal: OTKit adds none). See `SRTPComparison` for the method.
enum TransportScenario: Scenario {
    static let name = "transport"
    static let summary = "SRTP protect/unprotect: OTKit vs bare libsrtp2 (CPU ratio, allocations)"

    /// Packets per side per run, and timed runs, when the command line does not say.
    static let defaultPackets = 32_768
    static let defaultRuns = 7

    static func run(options: Options, log: ProgressLog) throws -> [BenchResult] {
        try AllocationCounter.verify()
        let packets = options.frames ?? defaultPackets
        let runs = options.runs ?? defaultRuns
        guard packets >= SRTPComparison.ringSize else {
            throw ScenarioError("--frames (packets per run) must be at least the ring of \(SRTPComparison.ringSize) packets")
        }
        let timerCost = SideBySide.measureTimerCost()
        log("thread CPU clock: \(timerCost) ns per reading (subtracted from each timed block of \(SRTPComparison.blockSize) packets)")
        var results: [BenchResult] = []
        for profile in [SRTPProfile.aeadAES128GCM, .aesCM128HMACSHA1_80] {
            for size in [1200, 100] {
                let comparison = SRTPComparison(profile: profile, packetLength: size)
                guard options.only.map({ comparison.label.contains($0) }) ?? true else { continue }
                results += try comparison.run(packetsPerRun: packets, runs: runs, timerCost: timerCost, log: log)
            }
        }
        return results
    }
}
