#include "CSRTPCipher.h"
#include "evp_cipher_state.h"

#include <limits.h>
#include <stdatomic.h>
#include <string.h>

#include <openssl/evp.h>
#include <srtp2/cipher.h>
#include <srtp2/srtp.h>

// libsrtp2 2.x's key lengths: master key plus the 12-byte salt, which the cipher ignores
// (libsrtp builds the IV from it before set_iv).
enum { SALT_BYTES = 12, KEY_128 = 16, KEY_256 = 32, FULL_TAG = 16, SHORT_TAG = 8, IV_BYTES = 12 };

/// One cipher: an EVP context whose key schedule is set once in `init`; each packet
/// only resets the IV, feeds AAD, transforms in place and takes or checks the tag.
typedef struct {
    EVP_CIPHER_CTX *ctx;  // first: see evp_cipher_state.h
    int key_bytes;
    int tag_bytes;
    srtp_cipher_direction_t direction;
    unsigned char tag[FULL_TAG];
} gcm_state;

static atomic_ulong ciphers_allocated;

static const srtp_cipher_type_t gcm_128_type;
static const srtp_cipher_type_t gcm_256_type;

static srtp_err_status_t gcm_alloc(srtp_cipher_pointer_t *out, int key_len, int tag_len) {
    const srtp_cipher_type_t *type;
    int key_bytes;
    if (key_len == KEY_128 + SALT_BYTES) {
        type = &gcm_128_type;
        key_bytes = KEY_128;
    } else if (key_len == KEY_256 + SALT_BYTES) {
        type = &gcm_256_type;
        key_bytes = KEY_256;
    } else {
        return srtp_err_status_bad_param;
    }
    if (tag_len != FULL_TAG && tag_len != SHORT_TAG) return srtp_err_status_bad_param;

    srtp_err_status_t status = otk_evp_cipher_alloc(out, type, key_len, sizeof(gcm_state));
    if (status != srtp_err_status_ok) return status;
    gcm_state *state = (*out)->state;
    state->key_bytes = key_bytes;
    state->tag_bytes = tag_len;
    state->direction = srtp_direction_any;
    atomic_fetch_add_explicit(&ciphers_allocated, 1, memory_order_relaxed);
    return srtp_err_status_ok;
}

static srtp_err_status_t gcm_dealloc(srtp_cipher_pointer_t cipher) {
    return otk_evp_cipher_dealloc(cipher, sizeof(gcm_state));
}

static srtp_err_status_t gcm_init(void *opaque, const uint8_t *key) {
    gcm_state *state = opaque;
    const EVP_CIPHER *aes = state->key_bytes == KEY_128 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
    state->direction = srtp_direction_any;
    // Encrypt direction for now; set_iv picks the packet's direction and keeps the key.
    if (EVP_CipherInit_ex(state->ctx, aes, NULL, key, NULL, 1) != 1) return srtp_err_status_init_fail;
    return srtp_err_status_ok;
}

static srtp_err_status_t gcm_set_iv(void *opaque, uint8_t *iv, srtp_cipher_direction_t direction) {
    gcm_state *state = opaque;
    if (direction != srtp_direction_encrypt && direction != srtp_direction_decrypt) return srtp_err_status_bad_param;
    state->direction = direction;
    // No cipher and no key: OpenSSL keeps the key schedule and only restarts GCM at this IV
    // (12 bytes, GCM's default length) in the given direction.
    if (EVP_CipherInit_ex(state->ctx, NULL, NULL, NULL, iv, direction == srtp_direction_encrypt) != 1) {
        return srtp_err_status_cipher_fail;
    }
    return srtp_err_status_ok;
}

// libsrtp sets the IV first, then the AAD (in one or two pieces: header, then SRTCP index).
static srtp_err_status_t gcm_set_aad(void *opaque, const uint8_t *aad, uint32_t aad_len) {
    gcm_state *state = opaque;
    int written = 0;
    if (aad_len > INT_MAX) return srtp_err_status_bad_param;
    if (aad_len == 0) return srtp_err_status_ok;
    if (EVP_CipherUpdate(state->ctx, NULL, &written, aad, (int)aad_len) != 1) return srtp_err_status_cipher_fail;
    return srtp_err_status_ok;
}

// In place; the tag is kept for get_tag, which libsrtp calls next. A NULL buffer with
// length 0 is SRTCP without encryption: the tag then covers the AAD only.
static srtp_err_status_t gcm_encrypt(void *opaque, uint8_t *buffer, unsigned int *length) {
    gcm_state *state = opaque;
    int written = 0;
    unsigned char nothing[1];
    if (state->direction != srtp_direction_encrypt) return srtp_err_status_bad_param;
    if (*length > INT_MAX || (buffer == NULL && *length != 0)) return srtp_err_status_bad_param;
    if (*length > 0 && EVP_CipherUpdate(state->ctx, buffer, &written, buffer, (int)*length) != 1) {
        return srtp_err_status_cipher_fail;
    }
    if (EVP_CipherFinal_ex(state->ctx, nothing, &written) != 1) return srtp_err_status_cipher_fail;
    if (EVP_CIPHER_CTX_ctrl(state->ctx, EVP_CTRL_AEAD_GET_TAG, state->tag_bytes, state->tag) != 1) {
        return srtp_err_status_cipher_fail;
    }
    return srtp_err_status_ok;
}

static srtp_err_status_t gcm_get_tag(void *opaque, uint8_t *tag, uint32_t *length) {
    gcm_state *state = opaque;
    memcpy(tag, state->tag, (size_t)state->tag_bytes);
    *length = (uint32_t)state->tag_bytes;
    return srtp_err_status_ok;
}

// In place; `*length` counts the ciphertext and the tag after it, and becomes the
// plaintext's length. A wrong tag is auth_fail, as libsrtp's own GCM reports it.
static srtp_err_status_t gcm_decrypt(void *opaque, uint8_t *buffer, unsigned int *length) {
    gcm_state *state = opaque;
    int written = 0;
    unsigned char nothing[1];
    if (state->direction != srtp_direction_decrypt) return srtp_err_status_bad_param;
    if (buffer == NULL || *length > INT_MAX || *length < (unsigned int)state->tag_bytes) return srtp_err_status_bad_param;
    int sealed = (int)*length - state->tag_bytes;
    if (EVP_CIPHER_CTX_ctrl(state->ctx, EVP_CTRL_AEAD_SET_TAG, state->tag_bytes, buffer + sealed) != 1) {
        return srtp_err_status_cipher_fail;
    }
    if (sealed > 0 && EVP_CipherUpdate(state->ctx, buffer, &written, buffer, sealed) != 1) {
        return srtp_err_status_cipher_fail;
    }
    if (EVP_CipherFinal_ex(state->ctx, nothing, &written) != 1) return srtp_err_status_auth_fail;
    *length = (unsigned int)sealed;
    return srtp_err_status_ok;
}

// Known answers from the GCM specification (McGrew and Viega, "The Galois/Counter Mode
// of Operation", test case 4 for AES-128 and test case 16 for AES-256): the key, IV,
// AAD and plaintext are shared; libsrtp's key length adds 12 salt bytes, unused here.
static const uint8_t spec_key_128[KEY_128 + SALT_BYTES] = {
    0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c, 0x6d, 0x6a, 0x8f, 0x94, 0x67, 0x30, 0x83, 0x08,
};
static const uint8_t spec_key_256[KEY_256 + SALT_BYTES] = {
    0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c, 0x6d, 0x6a, 0x8f, 0x94, 0x67, 0x30, 0x83, 0x08,
    0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c, 0x6d, 0x6a, 0x8f, 0x94, 0x67, 0x30, 0x83, 0x08,
};
static uint8_t spec_iv[IV_BYTES] = {0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88};
static const uint8_t spec_aad[20] = {
    0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef, 0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef,
    0xab, 0xad, 0xda, 0xd2,
};
static const uint8_t spec_plaintext[60] = {
    0xd9, 0x31, 0x32, 0x25, 0xf8, 0x84, 0x06, 0xe5, 0xa5, 0x59, 0x09, 0xc5, 0xaf, 0xf5, 0x26, 0x9a,
    0x86, 0xa7, 0xa9, 0x53, 0x15, 0x34, 0xf7, 0xda, 0x2e, 0x4c, 0x30, 0x3d, 0x8a, 0x31, 0x8a, 0x72,
    0x1c, 0x3c, 0x0c, 0x95, 0x95, 0x68, 0x09, 0x53, 0x2f, 0xcf, 0x0e, 0x24, 0x49, 0xa6, 0xb5, 0x25,
    0xb1, 0x6a, 0xed, 0xf5, 0xaa, 0x0d, 0xe6, 0x57, 0xba, 0x63, 0x7b, 0x39,
};
static const uint8_t spec_sealed_128[60 + FULL_TAG] = {
    0x42, 0x83, 0x1e, 0xc2, 0x21, 0x77, 0x74, 0x24, 0x4b, 0x72, 0x21, 0xb7, 0x84, 0xd0, 0xd4, 0x9c,
    0xe3, 0xaa, 0x21, 0x2f, 0x2c, 0x02, 0xa4, 0xe0, 0x35, 0xc1, 0x7e, 0x23, 0x29, 0xac, 0xa1, 0x2e,
    0x21, 0xd5, 0x14, 0xb2, 0x54, 0x66, 0x93, 0x1c, 0x7d, 0x8f, 0x6a, 0x5a, 0xac, 0x84, 0xaa, 0x05,
    0x1b, 0xa3, 0x0b, 0x39, 0x6a, 0x0a, 0xac, 0x97, 0x3d, 0x58, 0xe0, 0x91,
    0x5b, 0xc9, 0x4f, 0xbc, 0x32, 0x21, 0xa5, 0xdb, 0x94, 0xfa, 0xe9, 0x5a, 0xe7, 0x12, 0x1a, 0x47,
};
static const uint8_t spec_sealed_256[60 + FULL_TAG] = {
    0x52, 0x2d, 0xc1, 0xf0, 0x99, 0x56, 0x7d, 0x07, 0xf4, 0x7f, 0x37, 0xa3, 0x2a, 0x84, 0x42, 0x7d,
    0x64, 0x3a, 0x8c, 0xdc, 0xbf, 0xe5, 0xc0, 0xc9, 0x75, 0x98, 0xa2, 0xbd, 0x25, 0x55, 0xd1, 0xaa,
    0x8c, 0xb0, 0x8e, 0x48, 0x59, 0x0d, 0xbb, 0x3d, 0xa7, 0xb0, 0x8b, 0x10, 0x56, 0x82, 0x88, 0x38,
    0xc5, 0xf6, 0x1e, 0x63, 0x93, 0xba, 0x7a, 0x0a, 0xbc, 0xc9, 0xf6, 0x62,
    0x76, 0xfc, 0x6e, 0xce, 0x0f, 0x4e, 0x17, 0x68, 0xcd, 0xdf, 0x88, 0x53, 0xbb, 0x2d, 0x55, 0x1b,
};

static const srtp_cipher_test_case_t spec_case_128 = {
    KEY_128 + SALT_BYTES, spec_key_128, spec_iv, 60, spec_plaintext, 60 + FULL_TAG, spec_sealed_128,
    20, spec_aad, FULL_TAG, NULL,
};
static const srtp_cipher_test_case_t spec_case_256 = {
    KEY_256 + SALT_BYTES, spec_key_256, spec_iv, 60, spec_plaintext, 60 + FULL_TAG, spec_sealed_256,
    20, spec_aad, FULL_TAG, NULL,
};

static const srtp_cipher_type_t gcm_128_type = {
    gcm_alloc, gcm_dealloc, gcm_init, gcm_set_aad, gcm_encrypt, gcm_decrypt, gcm_set_iv, gcm_get_tag,
    "AES-128 GCM using OpenSSL EVP (OTKit)", &spec_case_128, SRTP_AES_GCM_128,
};
static const srtp_cipher_type_t gcm_256_type = {
    gcm_alloc, gcm_dealloc, gcm_init, gcm_set_aad, gcm_encrypt, gcm_decrypt, gcm_set_iv, gcm_get_tag,
    "AES-256 GCM using OpenSSL EVP (OTKit)", &spec_case_256, SRTP_AES_GCM_256,
};

int otk_srtp_install_openssl_aes_gcm(void) {
    srtp_err_status_t status = srtp_replace_cipher_type(&gcm_128_type, SRTP_AES_GCM_128);
    if (status != srtp_err_status_ok) return (int)status;
    return (int)srtp_replace_cipher_type(&gcm_256_type, SRTP_AES_GCM_256);
}

unsigned long otk_srtp_openssl_aes_gcm_ciphers_allocated(void) {
    return atomic_load_explicit(&ciphers_allocated, memory_order_relaxed);
}
