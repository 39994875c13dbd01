// What the EVP-backed cipher types share: allocating and freeing a libsrtp cipher whose
// state starts with its EVP context. Internal to CSRTPCipher.
#ifndef OTK_EVP_CIPHER_STATE_H
#define OTK_EVP_CIPHER_STATE_H

#include <stddef.h>
#include <openssl/evp.h>
#include <srtp2/cipher.h>

/// Allocates a libsrtp cipher of `type` with a zeroed state of `state_bytes` whose first
/// member is an `EVP_CIPHER_CTX *`, set to a new context. Returns alloc_fail if any part
/// could not be made (nothing is left allocated then).
srtp_err_status_t otk_evp_cipher_alloc(srtp_cipher_pointer_t *out, const srtp_cipher_type_t *type, int key_len,
                                       size_t state_bytes);

/// Frees what `otk_evp_cipher_alloc` made: the context, the state (wiped first) and the
/// cipher. NULL is fine.
srtp_err_status_t otk_evp_cipher_dealloc(srtp_cipher_pointer_t cipher, size_t state_bytes);

#endif
