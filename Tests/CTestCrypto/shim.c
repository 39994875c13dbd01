// See include/CTestCrypto.h.
#include "CTestCrypto.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

int test_aes128_block(const uint8_t key[16], const uint8_t in[16], uint8_t out[16]) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int length = 0, ok = ctx && EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), NULL, key, NULL) == 1
        && EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 && EVP_EncryptUpdate(ctx, out, &length, in, 16) == 1 && length == 16;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? 0 : -1;
}

int test_aes128_gcm_encrypt(const uint8_t key[16], const uint8_t iv[12], const uint8_t *aad, size_t aad_length,
                            const uint8_t *plain, size_t length, uint8_t *cipher, uint8_t tag[16]) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int out = 0, final = 0;
    int ok = ctx && EVP_EncryptInit_ex(ctx, EVP_aes_128_gcm(), NULL, NULL, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1
        && EVP_EncryptInit_ex(ctx, NULL, NULL, key, iv) == 1
        && EVP_EncryptUpdate(ctx, NULL, &out, aad, (int)aad_length) == 1
        && EVP_EncryptUpdate(ctx, cipher, &out, plain, (int)length) == 1
        && EVP_EncryptFinal_ex(ctx, cipher + out, &final) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? 0 : -1;
}

int test_hmac_sha1(const uint8_t *key, size_t key_length, const uint8_t *data, size_t length, uint8_t out[20]) {
    unsigned int out_length = 0;
    return HMAC(EVP_sha1(), key, (int)key_length, data, length, out, &out_length) && out_length == 20 ? 0 : -1;
}
