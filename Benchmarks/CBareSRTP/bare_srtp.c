// See include/CBareSRTP.h. Written like the plain C a libsrtp user would write.
#include "CBareSRTP.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <srtp2/cipher.h>
#include <srtp2/srtp.h>

// libsrtp2's own AES-128-GCM type (Debian's: on NSS). libsrtp2.so exports it, though
// no installed header declares it.
extern const srtp_cipher_type_t srtp_aes_gcm_128;

struct bare_srtp {
    srtp_t ctx;
};

// srtp_init once. Its status is ignored: if OTKit initialised libsrtp first, a second
// srtp_init returns bad_param (duplicate debug module) yet the library works; a real
// failure shows up in srtp_create.
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init_library(void) { (void)srtp_init(); }

bare_srtp *bare_srtp_create(int profile, const uint8_t *key, int sender) {
    pthread_once(&init_once, init_library);
    srtp_policy_t policy;
    memset(&policy, 0, sizeof policy);
    switch (profile) {
    case BARE_SRTP_AEAD_AES_128_GCM:
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp);
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp);
        break;
    case BARE_SRTP_AES_CM_128_HMAC_SHA1_80:
        srtp_crypto_policy_set_rtp_default(&policy.rtp);
        srtp_crypto_policy_set_rtcp_default(&policy.rtcp);
        break;
    case BARE_SRTP_AES_CM_128_HMAC_SHA1_32:
        srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&policy.rtp);
        srtp_crypto_policy_set_rtcp_default(&policy.rtcp);
        break;
    default:
        return NULL;
    }
    policy.ssrc.type = sender ? ssrc_any_outbound : ssrc_any_inbound;
    policy.key = (unsigned char *)key;
    policy.window_size = 1024;
    policy.allow_repeat_tx = 0;
    policy.next = NULL;
    bare_srtp *session = malloc(sizeof *session);
    if (!session) return NULL;
    if (srtp_create(&session->ctx, &policy) != srtp_err_status_ok) {
        free(session);
        return NULL;
    }
    return session;
}

void bare_srtp_destroy(bare_srtp *session) {
    if (!session) return;
    srtp_dealloc(session->ctx);
    free(session);
}

long bare_srtp_protect_loop(bare_srtp *session, const uint8_t *clear, int length, uint8_t *work,
                            int count, uint16_t *sequence) {
    long total = 0;
    for (int i = 0; i < count; i++) {
        memcpy(work, clear, (size_t)length);
        uint16_t seq = (*sequence)++;
        work[2] = (uint8_t)(seq >> 8);
        work[3] = (uint8_t)seq;
        int len = length;
        srtp_err_status_t status = srtp_protect(session->ctx, work, &len);
        if (status != srtp_err_status_ok) return -(long)status;
        total += len;
    }
    return total;
}

long bare_srtp_unprotect_loop(bare_srtp *session, const uint8_t *ring, int stride, const int32_t *lengths,
                              int first, int count, uint8_t *work) {
    long total = 0;
    for (int i = first; i < first + count; i++) {
        int len = lengths[i];
        memcpy(work, ring + (size_t)i * (size_t)stride, (size_t)len);
        srtp_err_status_t status = srtp_unprotect(session->ctx, work, &len);
        if (status != srtp_err_status_ok) return -(long)status;
        total += len;
    }
    return total;
}

long bare_srtcp_protect_loop(bare_srtp *session, const uint8_t *clear, int length, uint8_t *work, int count) {
    long total = 0;
    for (int i = 0; i < count; i++) {
        memcpy(work, clear, (size_t)length);
        int len = length;
        srtp_err_status_t status = srtp_protect_rtcp(session->ctx, work, &len);
        if (status != srtp_err_status_ok) return -(long)status;
        total += len;
    }
    return total;
}

int bare_srtp_use_stock_aes_gcm_128(void) {
    pthread_once(&init_once, init_library);
    return (int)srtp_replace_cipher_type(&srtp_aes_gcm_128, SRTP_AES_GCM_128);
}
