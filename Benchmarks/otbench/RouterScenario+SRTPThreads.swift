import CBareSRTP
import CSRTPCipher
import OTMedia

/// `otbench router`, beside the edge scaling row: how the SRTP library itself scales from
/// one thread to two on this machine, with nothing else running. Each thread is pinned to
/// its own CPU (0 and 1, as the two workers are) with sessions of its own and seals and
/// opens packets of the edge rows' size (12-byte header + 1,200 bytes) as fast as it can:
/// libsrtp2 (one `srtp_protect` and one `srtp_unprotect` per pair, AEAD_AES_128_GCM as
/// the edge negotiates) twice: with Debian's own AES-GCM on NSS, then with the OpenSSL
/// AES-GCM OTKit installs in it (the router's SRTP); and, as the control, OpenSSL's
/// AES-128-GCM doing the same AEAD work with nothing of libsrtp around it. The router
/// does one unprotect and four protects per published packet at fan-out 4, so its two
/// workers cannot scale better than this library does on the same two cores. Runs
/// alternate which thread count goes first; medians are reported. Cost: about 6 × `runs` × `seconds` of both cores.
extension RouterScenario {
    static func measureSRTPThreadScaling(seconds: Double, runs runCount: Int, log: ProgressLog) throws -> [BenchResult] {
        let length = Int32(12 + payloadBytes)
        var rows: [BenchResult] = []
        let stock = bare_srtp_use_stock_aes_gcm_128()
        guard stock == 0 else { throw ScenarioError("libsrtp2 refused its own AES-128-GCM back (status \(stock))") }
        let engines: [(engine: Int, label: String, before: () throws -> Void)] = [
            (BARE_AEAD_LIBSRTP, "libsrtp2 with Debian's AES-GCM (NSS) protect + unprotect", {}),
            (BARE_AEAD_LIBSRTP, "libsrtp2 with OTKit's AES-GCM (OpenSSL EVP; the router's SRTP) protect + unprotect", {
                let status = otk_srtp_install_openssl_aes_gcm()
                guard status == 0 else { throw ScenarioError("libsrtp2 refused OTKit's AES-GCM (status \(status))") }
            }),
            (BARE_AEAD_OPENSSL, "OpenSSL EVP AES-128-GCM seal + open (the control)", {}),
        ]
        for (engine, label, before) in engines {
            try before()
            var rates: [[Double]] = [[], []], costs: [[Double]] = [[], []]
            for run in 0..<runCount {
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
                + "2 threads \(Int(two)) pairs/s (\(TableReport.format(median(costs[1]) / 1000)) µs CPU per pair), medians of \(runCount)")
            rows.append(.info("\(label), 1,212 B AEAD_AES_128_GCM packets: two threads on CPUs 0 and 1 vs one, pairs per wall-clock second",
                              value: two, unit: "pairs/s", baseline: one))
        }
        return rows
    }
}
