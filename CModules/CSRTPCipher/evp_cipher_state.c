#include "evp_cipher_state.h"

#include <stdlib.h>
#include <openssl/crypto.h>

srtp_err_status_t otk_evp_cipher_alloc(srtp_cipher_pointer_t *out, const srtp_cipher_type_t *type, int key_len,
                                       size_t state_bytes) {
    srtp_cipher_t *cipher = calloc(1, sizeof *cipher);
    EVP_CIPHER_CTX **state = calloc(1, state_bytes);  // the state's first member
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (cipher == NULL || state == NULL || ctx == NULL) {
        EVP_CIPHER_CTX_free(ctx);
        free(state);
        free(cipher);
        return srtp_err_status_alloc_fail;
    }
    *state = ctx;
    cipher->type = type;
    cipher->state = state;
    cipher->key_len = key_len;
    cipher->algorithm = type->id;
    *out = cipher;
    return srtp_err_status_ok;
}

srtp_err_status_t otk_evp_cipher_dealloc(srtp_cipher_pointer_t cipher, size_t state_bytes) {
    if (cipher == NULL) return srtp_err_status_ok;
    EVP_CIPHER_CTX **state = cipher->state;
    if (state != NULL) {
        EVP_CIPHER_CTX_free(*state);  // clears the key schedule
        OPENSSL_cleanse(state, state_bytes);
        free(state);
    }
    free(cipher);
    return srtp_err_status_ok;
}
