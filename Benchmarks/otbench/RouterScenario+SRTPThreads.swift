import CBareSRTP

/// `otbench router`, beside the edge scaling row: how the SRTP library itself scales from
/// one thread to two on this machine, with nothing else running. Each thread is pinned to
/// its own CPU (0 and 1, as the two workers are) with sessions of its own and seals and
/// opens packets of the edge rows' size (12-byte header + 1,200 bytes) as fast as it can:
/// libsrtp2 (the router's SRTP: one `srtp_protect` and one `srtp_unprotect` per pair,
/// AEAD_AES_128_GCM as the edge negotiates) and, as the control, OpenSSL's AES-128-GCM
/// doing the same AEAD work. The router does one unprotect and four protects per
/// published packet at fan-out 4, so its two workers cannot scale better than this
/// library does on the same two cores. Runs alternate which thread count goes first;
/// medians are reported. Cost: about 4 × `runs` × `seconds` of both cores.
extension RouterScenario {
    static func measureSRTPThreadScaling(seconds: Double, runs: Int, log: ProgressLog) throws -> [BenchResult] {
        let length = Int32(12 + payloadBytes)
        var rows: [BenchResult] = []
        for (engine, label) in [(BARE_AEAD_LIBSRTP, "libsrtp2 (Debian's, NSS crypto) protect + unprotect"),
                                (BARE_AEAD_OPENSSL, "OpenSSL EVP AES-128-GCM seal + open (the control)")] {
            var rates: [[Double]] = [[], []], costs: [[Double]] = [[], []]
            for run in 0..<runs {
                for threads in run % 2 == 0 ? [1, 2] : [2, 1] {
                    var rate = 0.0, cost = 0.0
                    guard bare_aead_thread_run(Int32(engine), Int32(BARE_SRTP_AEAD_AES_128_GCM), Int32(threads), length, seconds,
                                               &rate, &cost) == 0
                    else { throw ScenarioError("\(label): the \(threads)-thread run failed") }
                    rates[threads - 1].append(rate)
                    costs[threads - 1].append(cost)
                }
            }
            let one = median(rates[0]), two = median(rates[1])
            log("  \(label): 1 thread \(Int(one)) pairs/s (\(TableReport.format(median(costs[0]) / 1000)) µs CPU per pair), "
                + "2 threads \(Int(two)) pairs/s (\(TableReport.format(median(costs[1]) / 1000)) µs CPU per pair), medians of \(runs)")
            rows.append(.info("\(label), 1,212 B AEAD_AES_128_GCM packets: two threads on CPUs 0 and 1 vs one, pairs per wall-clock second",
                              value: two, unit: "pairs/s", baseline: one))
        }
        return rows
    }
}
