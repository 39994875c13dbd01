// Test-only: the raw primitives (AES-128 block, AES-128-GCM, HMAC-SHA1) from OpenSSL's
// libcrypto, so the SRTP tests can compute SRTP packets with a second, independent
// implementation and compare them with libsrtp2's (which Debian builds on NSS).
// Functions, not macros: each wraps a few EVP calls Swift would need many lines for.
#ifndef CTESTCRYPTO_H
#define CTESTCRYPTO_H

#include <stddef.h>
#include <stdint.h>

/// Encrypts one 16-byte block with AES-128 (ECB, no padding). Returns 0 on success.
int test_aes128_block(const uint8_t key[16], const uint8_t in[16], uint8_t out[16]);

/// AES-128-GCM encryption with a 12-byte IV: `length` bytes of `plain` to `cipher`, the
/// 16-byte tag to `tag`, authenticating `aad`. Returns 0 on success.
int test_aes128_gcm_encrypt(const uint8_t key[16], const uint8_t iv[12], const uint8_t *aad, size_t aad_length,
                            const uint8_t *plain, size_t length, uint8_t *cipher, uint8_t tag[16]);

/// HMAC-SHA1 of `data` under `key`: 20 bytes to `out`. Returns 0 on success.
int test_hmac_sha1(const uint8_t *key, size_t key_length, const uint8_t *data, size_t length, uint8_t out[20]);

#endif
