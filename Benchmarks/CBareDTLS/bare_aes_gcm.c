#include "CBareAESGCM.h"

#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

struct bare_gcm {
    EVP_CIPHER_CTX *seal;
    EVP_CIPHER_CTX *open;
    unsigned char salt[12];
};

bare_gcm *bare_gcm_create(const unsigned char *key, const unsigned char *salt) {
    bare_gcm *bench = calloc(1, sizeof *bench);
    if (bench == NULL) return NULL;
    bench->seal = EVP_CIPHER_CTX_new();
    bench->open = EVP_CIPHER_CTX_new();
    memcpy(bench->salt, salt, 12);
    if (bench->seal == NULL || bench->open == NULL ||
        EVP_CipherInit_ex(bench->seal, EVP_aes_128_gcm(), NULL, key, NULL, 1) != 1 ||
        EVP_CipherInit_ex(bench->open, EVP_aes_128_gcm(), NULL, key, NULL, 0) != 1 ||
        EVP_CIPHER_CTX_ctrl(bench->seal, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) != 1 ||
        EVP_CIPHER_CTX_ctrl(bench->open, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) != 1) {
        bare_gcm_destroy(bench);
        return NULL;
    }
    return bench;
}

void bare_gcm_destroy(bare_gcm *bench) {
    if (bench == NULL) return;
    EVP_CIPHER_CTX_free(bench->seal);
    EVP_CIPHER_CTX_free(bench->open);
    free(bench);
}

/* RFC 9605 §4.3: config byte, then KID and CTR in the fewest big-endian bytes (0-7 inline). */
static int header(uint64_t kid, uint64_t ctr, unsigned char *out) {
    int k = 0, c = 0, n = 1;
    for (uint64_t v = kid; kid >= 8 && v != 0; v >>= 8) k++;
    for (uint64_t v = ctr; ctr >= 8 && v != 0; v >>= 8) c++;
    out[0] = (unsigned char)((k ? 0x80 | (k - 1) << 4 : kid << 4) | (c ? 0x08 | (c - 1) : ctr));
    for (int b = k - 1; b >= 0; b--) out[n++] = (unsigned char)(kid >> (8 * b));
    for (int b = c - 1; b >= 0; b--) out[n++] = (unsigned char)(ctr >> (8 * b));
    return n;
}

int bare_gcm_frames(bare_gcm *bench, uint64_t kid, const unsigned char *source, const int32_t *lengths, int count,
                    uint64_t *counter, unsigned char *sealed, unsigned char *opened) {
    unsigned char nonce[12];
    int total = 0;
    memcpy(nonce, bench->salt, 12);
    for (int i = 0; i < count; i++) {
        uint64_t ctr = (*counter)++;
        for (int b = 0; b < 8; b++) nonce[4 + b] = bench->salt[4 + b] ^ (unsigned char)(ctr >> (56 - 8 * b));
        int h = header(kid, ctr, sealed);
        unsigned char *body = sealed + h;
        int length = lengths[i], written = 0, tail = 0, ignored = 0;
        if (EVP_EncryptInit_ex(bench->seal, NULL, NULL, NULL, nonce) != 1 ||
            EVP_EncryptUpdate(bench->seal, NULL, &ignored, sealed, h) != 1 ||
            (length > 0 && EVP_EncryptUpdate(bench->seal, body, &written, source, length) != 1) ||
            EVP_EncryptFinal_ex(bench->seal, body + written, &tail) != 1 ||
            EVP_CIPHER_CTX_ctrl(bench->seal, EVP_CTRL_AEAD_GET_TAG, 16, body + length) != 1)
            return -1;
        written = 0;
        if (EVP_DecryptInit_ex(bench->open, NULL, NULL, NULL, nonce) != 1 ||
            EVP_DecryptUpdate(bench->open, NULL, &ignored, sealed, h) != 1 ||
            (length > 0 && EVP_DecryptUpdate(bench->open, opened, &written, body, length) != 1) ||
            EVP_CIPHER_CTX_ctrl(bench->open, EVP_CTRL_AEAD_SET_TAG, 16, body + length) != 1)
            return -1;
        if (EVP_DecryptFinal_ex(bench->open, opened + written, &tail) != 1) return -2;
        total = h + length + 16;
    }
    return total;
}
