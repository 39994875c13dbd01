#include "CSRTPCipher.h"
#include "evp_cipher_state.h"

#include <limits.h>
#include <stdatomic.h>
#include <string.h>

#include <openssl/evp.h>
#include <srtp2/cipher.h>
#include <srtp2/srtp.h>

// AES-128 in SRTP's integer counter mode (RFC 3711 section 4.1.1) on OpenSSL's AES-CTR.
// libsrtp2 keys it with the 16-byte key and the 14-byte salt after it; the counter block
// of a packet is (salt || 0x0000) XOR the IV libsrtp passes. libsrtp's own ICM counts
// blocks in the low 16 bits only, OpenSSL's CTR carries into the bytes above: the two
// differ only past 65,536 blocks (1 MB) under one IV, far beyond any packet or KDF output.
enum { KEY_BYTES = 16, SALT_BYTES = 14, BLOCK = 16 };

typedef struct {
    EVP_CIPHER_CTX *ctx;          // first: see evp_cipher_state.h
    unsigned char offset[BLOCK];  // salt, last two bytes zero
} icm_state;

static atomic_ulong ciphers_allocated;
static const srtp_cipher_type_t icm_128_type;

static srtp_err_status_t icm_alloc(srtp_cipher_pointer_t *out, int key_len, int tag_len) {
    (void)tag_len;
    if (key_len != KEY_BYTES + SALT_BYTES) return srtp_err_status_bad_param;
    srtp_err_status_t status = otk_evp_cipher_alloc(out, &icm_128_type, key_len, sizeof(icm_state));
    if (status != srtp_err_status_ok) return status;
    atomic_fetch_add_explicit(&ciphers_allocated, 1, memory_order_relaxed);
    return srtp_err_status_ok;
}

static srtp_err_status_t icm_dealloc(srtp_cipher_pointer_t cipher) {
    return otk_evp_cipher_dealloc(cipher, sizeof(icm_state));
}

static srtp_err_status_t icm_init(void *opaque, const uint8_t *key) {
    icm_state *state = opaque;
    memset(state->offset, 0, sizeof state->offset);
    memcpy(state->offset, key + KEY_BYTES, SALT_BYTES);
    if (EVP_CipherInit_ex(state->ctx, EVP_aes_128_ctr(), NULL, key, NULL, 1) != 1) return srtp_err_status_init_fail;
    return srtp_err_status_ok;
}

// Counter mode is its own inverse: the direction does not matter.
static srtp_err_status_t icm_set_iv(void *opaque, uint8_t *iv, srtp_cipher_direction_t direction) {
    (void)direction;
    icm_state *state = opaque;
    unsigned char counter[BLOCK];
    for (int i = 0; i < BLOCK; i++) counter[i] = state->offset[i] ^ iv[i];
    if (EVP_CipherInit_ex(state->ctx, NULL, NULL, NULL, counter, 1) != 1) return srtp_err_status_cipher_fail;
    return srtp_err_status_ok;
}

// In place; successive calls under one IV continue the keystream.
static srtp_err_status_t icm_crypt(void *opaque, uint8_t *buffer, unsigned int *length) {
    icm_state *state = opaque;
    int written = 0;
    if (*length == 0) return srtp_err_status_ok;
    if (buffer == NULL || *length > INT_MAX) return srtp_err_status_bad_param;
    if (EVP_CipherUpdate(state->ctx, buffer, &written, buffer, (int)*length) != 1) return srtp_err_status_cipher_fail;
    return srtp_err_status_ok;
}

// RFC 3711 appendix B.2: the keystream of key 2B7E…4F3C and salt F0F1…FCFD at IV 0,
// as the encryption of 32 zero bytes.
static const uint8_t rfc3711_key[KEY_BYTES + SALT_BYTES] = {
    0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
    0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd,
};
static uint8_t rfc3711_iv[BLOCK];
static const uint8_t rfc3711_zeros[32];
static const uint8_t rfc3711_keystream[32] = {
    0xe0, 0x3e, 0xad, 0x09, 0x35, 0xc9, 0x5e, 0x80, 0xe1, 0x66, 0xb1, 0x6d, 0xd9, 0x2b, 0x4e, 0xb4,
    0xd2, 0x35, 0x13, 0x16, 0x2b, 0x02, 0xd0, 0xf7, 0x2a, 0x43, 0xa2, 0xfe, 0x4a, 0x5f, 0x97, 0xab,
};
static const srtp_cipher_test_case_t rfc3711_case = {
    KEY_BYTES + SALT_BYTES, rfc3711_key, rfc3711_iv, 32, rfc3711_zeros, 32, rfc3711_keystream, 0, NULL, 0, NULL,
};

static const srtp_cipher_type_t icm_128_type = {
    icm_alloc, icm_dealloc, icm_init, NULL, icm_crypt, icm_crypt, icm_set_iv, NULL,
    "AES-128 counter mode using OpenSSL EVP (OTKit)", &rfc3711_case, SRTP_AES_ICM_128,
};

int otk_srtp_install_openssl_aes_icm_128(void) {
    return (int)srtp_replace_cipher_type(&icm_128_type, SRTP_AES_ICM_128);
}

unsigned long otk_srtp_openssl_aes_icm_ciphers_allocated(void) {
    return atomic_load_explicit(&ciphers_allocated, memory_order_relaxed);
}
