// The bare libsrtp2 loops otbench measures OTKit's SRTPSession against: srtp_protect /
// srtp_unprotect called directly from C with the same policy OTKit builds (ssrc_any_*,
// replay window 1024, allow_repeat_tx 0, no MKI), and per packet exactly the work
// otbench's OTKit loop does around the call: one memcpy of the packet into the work
// buffer (plus a sequence-number bump before protect). Nothing else.
#ifndef CBARESRTP_H
#define CBARESRTP_H

#include <stdint.h>

/// An opaque libsrtp2 session for one direction.
typedef struct bare_srtp bare_srtp;

/// The profiles, numbered as otbench passes them.
enum {
    BARE_SRTP_AEAD_AES_128_GCM = 0,
    BARE_SRTP_AES_CM_128_HMAC_SHA1_80 = 1,
    BARE_SRTP_AES_CM_128_HMAC_SHA1_32 = 2,
};

/// Creates a session (srtp_init on first use). `key` is master key || salt (28 bytes
/// for GCM, 30 for AES-CM); `sender` 1 = ssrc_any_outbound, 0 = ssrc_any_inbound.
/// Returns NULL on failure.
bare_srtp *bare_srtp_create(int profile, const uint8_t *key, int sender);

/// Puts libsrtp2's own AES-128-GCM type back in this process's crypto kernel (OTKit
/// replaces it with an OpenSSL one when it initialises libsrtp2), so sessions created
/// from now on run Debian's NSS-backed GCM. Sessions that exist keep their cipher.
/// Returns 0 or the libsrtp status. Cost: libsrtp's self-test, once.
int bare_srtp_use_stock_aes_gcm_128(void);

/// Destroys the session (NULL is fine).
void bare_srtp_destroy(bare_srtp *session);

/// `count` times: copies the `length`-byte clear RTP packet into `work`, writes
/// `*sequence` (then increments it) into bytes 2-3, and protects `work` in place.
/// `work` needs length + 16 bytes. Returns the total SRTP bytes, or minus the libsrtp
/// status of the first failure.
long bare_srtp_protect_loop(bare_srtp *session, const uint8_t *clear, int length, uint8_t *work,
                            int count, uint16_t *sequence);

/// For packets first..first+count-1 of a ring (packet i at ring + i*stride, its length
/// in lengths[i]): copies the packet into `work` and unprotects it in place. Returns the
/// total RTP bytes, or minus the libsrtp status of the first failure.
long bare_srtp_unprotect_loop(bare_srtp *session, const uint8_t *ring, int stride, const int32_t *lengths,
                              int first, int count, uint8_t *work);

/// `count` times: copies the `length`-byte clear RTCP compound into `work` and protects
/// it in place with srtp_protect_rtcp (the SRTCP index advances by itself). `work`
/// needs length + 20 bytes. Returns the total SRTCP bytes, or minus the libsrtp status
/// of the first failure.
long bare_srtcp_protect_loop(bare_srtp *session, const uint8_t *clear, int length, uint8_t *work, int count);

/// The engines `bare_aead_thread_run` can measure.
enum {
    /// libsrtp2: srtp_protect with a sender session, then srtp_unprotect with a receiver's.
    BARE_AEAD_LIBSRTP = 0,
    /// OpenSSL's EVP AES-128-GCM doing the same AEAD work (header as AAD, 16-byte tag),
    /// contexts set up once: the control that shows what the cores themselves allow.
    BARE_AEAD_OPENSSL = 1,
};

/// Runs `threads` (1 or 2) threads for `seconds`, thread i pinned to CPU i with sessions
/// of its own, each sealing and opening `length`-byte RTP packets (12-byte header) as
/// fast as it can with `engine` (`profile` for libsrtp2). Writes the pairs (one protect,
/// one unprotect) per wall-clock second of all threads together, and the threads' CPU per
/// pair in ns. Returns 0, or -1 on a bad argument, a failed call or a CPU it cannot pin to.
int bare_aead_thread_run(int engine, int profile, int threads, int length, double seconds,
                         double *pairs_per_second, double *cpu_ns_per_pair);

#endif
