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

#endif
