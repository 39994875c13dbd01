// OpenSSL 3 deprecates the low-level SHA-1 calls; they are what lets a per-packet HMAC
// copy a precomputed state instead of allocating a digest context (EVP_MAC's re-init
// duplicates its digest context on every packet in OpenSSL 3.0).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "CSRTPCipher.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <srtp2/auth.h>
#include <srtp2/srtp.h>

// HMAC-SHA1 (RFC 2104) for SRTP's authentication (RFC 3711 section 4.2.1). The key's
// inner and outer pad states are hashed once in init; each packet starts from a copy of
// the inner state, and the tag is the outer hash of the inner digest, cut to the
// profile's length (80 or 32 bits). No allocation per packet.
enum { DIGEST = SHA_DIGEST_LENGTH, PAD = SHA_CBLOCK };

typedef struct {
    SHA_CTX inner_start, outer_start;  // after the key's ipad / opad block
    SHA_CTX running;                    // this packet's inner hash
} hmac_state;

static atomic_ulong functions_allocated;
static const srtp_auth_type_t hmac_type;

static srtp_err_status_t hmac_alloc(srtp_auth_pointer_t *out, int key_len, int out_len) {
    if (out_len < 0 || out_len > DIGEST || key_len < 0 || key_len > PAD) return srtp_err_status_bad_param;
    srtp_auth_t *auth = calloc(1, sizeof *auth);
    hmac_state *state = calloc(1, sizeof *state);
    if (auth == NULL || state == NULL) {
        free(state);
        free(auth);
        return srtp_err_status_alloc_fail;
    }
    auth->type = &hmac_type;
    auth->state = state;
    auth->out_len = out_len;
    auth->key_len = key_len;
    auth->prefix_len = 0;
    *out = auth;
    atomic_fetch_add_explicit(&functions_allocated, 1, memory_order_relaxed);
    return srtp_err_status_ok;
}

static srtp_err_status_t hmac_dealloc(srtp_auth_pointer_t auth) {
    if (auth == NULL) return srtp_err_status_ok;
    if (auth->state != NULL) {
        OPENSSL_cleanse(auth->state, sizeof(hmac_state));
        free(auth->state);
    }
    free(auth);
    return srtp_err_status_ok;
}

// SRTP's keys are 20 bytes, under SHA-1's 64-byte block, so they are padded, never hashed.
static srtp_err_status_t hmac_init(void *opaque, const uint8_t *key, int key_len) {
    hmac_state *state = opaque;
    unsigned char inner[PAD], outer[PAD];
    if (key_len < 0 || key_len > PAD) return srtp_err_status_bad_param;
    memset(inner, 0x36, sizeof inner);
    memset(outer, 0x5c, sizeof outer);
    for (int i = 0; i < key_len; i++) {
        inner[i] ^= key[i];
        outer[i] ^= key[i];
    }
    int ok = SHA1_Init(&state->inner_start) && SHA1_Update(&state->inner_start, inner, PAD)
        && SHA1_Init(&state->outer_start) && SHA1_Update(&state->outer_start, outer, PAD);
    OPENSSL_cleanse(inner, sizeof inner);
    OPENSSL_cleanse(outer, sizeof outer);
    state->running = state->inner_start;
    return ok ? srtp_err_status_ok : srtp_err_status_init_fail;
}

static srtp_err_status_t hmac_start(void *opaque) {
    hmac_state *state = opaque;
    state->running = state->inner_start;
    return srtp_err_status_ok;
}

static srtp_err_status_t hmac_update(void *opaque, const uint8_t *message, int length) {
    hmac_state *state = opaque;
    if (length < 0) return srtp_err_status_bad_param;
    if (length > 0 && !SHA1_Update(&state->running, message, (size_t)length)) return srtp_err_status_auth_fail;
    return srtp_err_status_ok;
}

// The last piece of the message (libsrtp passes the ROC here), then the tag.
static srtp_err_status_t hmac_compute(void *opaque, const uint8_t *message, int length, int tag_len, uint8_t *tag) {
    hmac_state *state = opaque;
    unsigned char digest[DIGEST];
    if (tag_len < 0 || tag_len > DIGEST) return srtp_err_status_bad_param;
    srtp_err_status_t status = hmac_update(opaque, message, length);
    if (status != srtp_err_status_ok) return status;
    SHA_CTX outer = state->outer_start;
    if (!SHA1_Final(digest, &state->running) || !SHA1_Update(&outer, digest, DIGEST) || !SHA1_Final(digest, &outer)) {
        return srtp_err_status_auth_fail;
    }
    memcpy(tag, digest, (size_t)tag_len);
    OPENSSL_cleanse(&outer, sizeof outer);
    return srtp_err_status_ok;
}

// RFC 2202 section 3, test case 1: key 0x0b × 20, data "Hi There".
static const uint8_t rfc2202_key[20] = {
    0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b,
};
static const uint8_t rfc2202_data[8] = {'H', 'i', ' ', 'T', 'h', 'e', 'r', 'e'};
static const uint8_t rfc2202_tag[20] = {
    0xb6, 0x17, 0x31, 0x86, 0x55, 0x05, 0x72, 0x64, 0xe2, 0x8b, 0xc0, 0xb6, 0xfb, 0x37, 0x8c, 0x8e, 0xf1, 0x46, 0xbe, 0x00,
};
static const srtp_auth_test_case_t rfc2202_case = {20, rfc2202_key, 8, rfc2202_data, 20, rfc2202_tag, NULL};

static const srtp_auth_type_t hmac_type = {
    hmac_alloc, hmac_dealloc, hmac_init, hmac_compute, hmac_update, hmac_start,
    "HMAC-SHA1 using OpenSSL's SHA-1 (OTKit)", &rfc2202_case, SRTP_HMAC_SHA1,
};

int otk_srtp_install_openssl_hmac_sha1(void) {
    return (int)srtp_replace_auth_type(&hmac_type, SRTP_HMAC_SHA1);
}

unsigned long otk_srtp_openssl_hmac_sha1_allocated(void) {
    return atomic_load_explicit(&functions_allocated, memory_order_relaxed);
}
