import CSRTP
import CSRTPCipher

/// libsrtp2's process-wide state: `srtp_init` runs once, on first use, from whichever
/// thread gets there first (a Swift static is initialised exactly once, thread-safely).
public enum SRTPLibrary {
    /// The one `srtp_init` call. Its status is deliberately not fatal: when another
    /// library in the process (GStreamer's srtp plugin, a benchmark's C loop) initialised
    /// libsrtp first, a second `srtp_init` returns `bad_param` (its debug module is
    /// already registered) while the library works; a libsrtp that truly cannot work
    /// fails in `srtp_create`, which `SRTPSession.init` reports.
    ///
    /// Right after it, libsrtp2's primitives move to OpenSSL (`CSRTPCipher`): AES-GCM,
    /// AES-128 counter mode and HMAC-SHA1. Debian's libsrtp2 runs them on NSS, which per
    /// packet opens a PKCS#11 session or context on a slot all threads share and
    /// allocates: a third of the router's per-packet CPU, most of what two workers lost
    /// on two cores, and 5 (GCM) or 14 (AES-CM) allocations per packet. libsrtp runs
    /// its known-answer tests on each replacement first; one it refused leaves the stock
    /// primitive in place, and `openSSLCryptoStatus` says why.
    private static let initialized: Int32 = {
        _ = srtp_init()
        let statuses = [otk_srtp_install_openssl_aes_gcm(), otk_srtp_install_openssl_aes_icm_128(),
                        otk_srtp_install_openssl_hmac_sha1()]
        return statuses.first { $0 != 0 } ?? 0
    }()

    /// Initialises libsrtp2 if this process has not yet.
    static func ensureInitialized() {
        _ = initialized
    }

    /// 0 when libsrtp2's AES-GCM, AES-CM and HMAC-SHA1 run on OpenSSL in this process,
    /// else the libsrtp status of the first replacement it refused (that primitive is
    /// then the stock one). Initialises libsrtp2 first if needed.
    public static var openSSLCryptoStatus: Int32 { initialized }

    /// The error for a libsrtp status other than ok.
    static func error(_ status: srtp_err_status_t) -> SRTPError {
        switch status {
        case srtp_err_status_auth_fail: .authenticationFailed
        case srtp_err_status_replay_fail: .replayed
        case srtp_err_status_replay_old: .tooOld
        case srtp_err_status_bad_param: .badParameter
        default: .libraryFailure(code: Int(status.rawValue))
        }
    }

    /// Fills the RTP and RTCP crypto policies of `policy` for `profile`.
    static func setCryptoPolicy(_ policy: inout srtp_policy_t, for profile: SRTPProfile) {
        switch profile {
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        case .aesCM128HMACSHA1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aesCM128HMACSHA1_32:
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp) // SRTCP keeps the 80-bit tag
        }
    }
}
