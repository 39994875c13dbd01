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
    /// Right after it, AES-GCM moves to OpenSSL (`CSRTPCipher`): Debian's libsrtp2 does
    /// AES-GCM on NSS, opening a PKCS#11 session per packet on a slot all threads share,
    /// which cost a third of the router's per-packet CPU and most of its two-worker
    /// scaling. libsrtp runs its known-answer tests on the replacement first; if it
    /// refused it, the stock cipher stays and `openSSLGCMStatus` says why.
    private static let initialized: Int32 = {
        _ = srtp_init()
        return otk_srtp_install_openssl_aes_gcm()
    }()

    /// Initialises libsrtp2 if this process has not yet.
    static func ensureInitialized() {
        _ = initialized
    }

    /// 0 when libsrtp2's AES-GCM runs on OpenSSL in this process, else the libsrtp status
    /// that refused the replacement (the stock cipher is then in use). Initialises
    /// libsrtp2 first if needed.
    public static var openSSLGCMStatus: Int32 { initialized }

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
