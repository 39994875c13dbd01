// OpenSSL's libcrypto for Swift: HMAC-SHA1/SHA256 (token signatures), RAND_bytes (nonces,
// session-id randomness), CRYPTO_memcmp (constant-time signature comparison). The functions
// used are plain C calls, so no wrappers are needed.
#ifndef COPENSSL_H
#define COPENSSL_H
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#endif
