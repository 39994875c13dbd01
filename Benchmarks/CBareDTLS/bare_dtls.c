#include "CBareDTLS.h"

#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

struct bare_dtls {
    SSL_CTX *client;
    SSL_CTX *server;
    unsigned char client_fingerprint[32];
    unsigned char server_fingerprint[32];
};

static int accept_any(int ok, X509_STORE_CTX *store) {
    (void)ok;
    (void)store;
    return 1;
}

static unsigned int timer_cb(SSL *ssl, unsigned int previous) {
    (void)ssl;
    if (previous == 0) return 50000;
    return previous * 2 > 3000000 ? 3000000 : previous * 2;
}

static SSL_CTX *make_context(unsigned char fingerprint[32]) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *pctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (pctx == NULL || EVP_PKEY_keygen_init(pctx) != 1 || EVP_PKEY_CTX_set_group_name(pctx, "P-256") != 1 ||
        EVP_PKEY_generate(pctx, &key) != 1) {
        EVP_PKEY_CTX_free(pctx);
        return NULL;
    }
    EVP_PKEY_CTX_free(pctx);
    X509 *x = X509_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set_uint64(X509_get_serialNumber(x), 1234567);
    X509_gmtime_adj(X509_getm_notBefore(x), -86400);
    X509_gmtime_adj(X509_getm_notAfter(x), 30L * 86400);
    X509_set_pubkey(x, key);
    X509_NAME *name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"bare", 4, -1, 0);
    X509_set_issuer_name(x, name);
    X509_sign(x, key, EVP_sha256());
    unsigned int length = 0;
    X509_digest(x, EVP_sha256(), fingerprint, &length);

    SSL_CTX *ctx = SSL_CTX_new(DTLS_method());
    int ok = ctx != NULL && SSL_CTX_use_certificate(ctx, x) == 1 && SSL_CTX_use_PrivateKey(ctx, key) == 1 &&
             SSL_CTX_check_private_key(ctx) == 1 && SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION) == 1 &&
             SSL_CTX_set_max_proto_version(ctx, DTLS1_2_VERSION) == 1 &&
             SSL_CTX_set_tlsext_use_srtp(ctx, "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80") == 0;
    X509_free(x);
    EVP_PKEY_free(key);
    if (!ok) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_options(ctx, SSL_OP_NO_QUERY_MTU | SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, accept_any);
    return ctx;
}

bare_dtls *bare_dtls_create(void) {
    bare_dtls *bench = calloc(1, sizeof *bench);
    if (bench == NULL) return NULL;
    bench->client = make_context(bench->client_fingerprint);
    bench->server = make_context(bench->server_fingerprint);
    if (bench->client == NULL || bench->server == NULL) {
        bare_dtls_destroy(bench);
        return NULL;
    }
    return bench;
}

void bare_dtls_destroy(bare_dtls *bench) {
    if (bench == NULL) return;
    SSL_CTX_free(bench->client);
    SSL_CTX_free(bench->server);
    free(bench);
}

static SSL *make_ssl(SSL_CTX *ctx, int client) {
    SSL *ssl = SSL_new(ctx);
    BIO *rbio = BIO_new(BIO_s_mem()), *wbio = BIO_new(BIO_s_mem());
    if (ssl == NULL || rbio == NULL || wbio == NULL) {
        SSL_free(ssl);
        BIO_free(rbio);
        BIO_free(wbio);
        return NULL;
    }
    BIO_set_mem_eof_return(rbio, -1);
    BIO_set_mem_eof_return(wbio, -1);
    SSL_set_bio(ssl, rbio, wbio);
    DTLS_set_link_mtu(ssl, 1200);
    DTLS_set_timer_cb(ssl, timer_cb);
    if (client) SSL_set_connect_state(ssl); else SSL_set_accept_state(ssl);
    return ssl;
}

/// Moves everything `from` wrote into `to`'s read BIO, one datagram's worth at a time.
static void move_bytes(SSL *from, SSL *to, unsigned char *buffer) {
    BIO *wbio = SSL_get_wbio(from), *rbio = SSL_get_rbio(to);
    size_t pending;
    while ((pending = BIO_ctrl_pending(wbio)) > 0) {
        int n = BIO_read(wbio, buffer, (int)(pending > 16384 ? 16384 : pending));
        if (n <= 0) break;
        BIO_write(rbio, buffer, n);
    }
}

static int check(SSL *ssl, const unsigned char expected[32], unsigned char *keys) {
    X509 *peer = SSL_get1_peer_certificate(ssl);
    if (peer == NULL) return -3;
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    int ok = X509_digest(peer, EVP_sha256(), digest, &length) == 1 && length == 32 && memcmp(digest, expected, 32) == 0;
    X509_free(peer);
    if (!ok) return -3;
    SRTP_PROTECTION_PROFILE *profile = SSL_get_selected_srtp_profile(ssl);
    if (profile == NULL || profile->id != SRTP_AEAD_AES_128_GCM) return -4;
    if (SSL_export_keying_material(ssl, keys, 56, "EXTRACTOR-dtls_srtp", 19, NULL, 0, 0) != 1) return -5;
    return 0;
}

static int one_handshake(bare_dtls *bench, unsigned char *buffer) {
    SSL *client = make_ssl(bench->client, 1), *server = make_ssl(bench->server, 0);
    int result = -1;
    if (client == NULL || server == NULL) goto done;
    int client_done = 0, server_done = 0;
    result = -2;
    for (int round = 0; round < 32 && !(client_done && server_done); round++) {
        if (!client_done) {
            int r = SSL_do_handshake(client);
            if (r == 1) client_done = 1;
            else if (SSL_get_error(client, r) != SSL_ERROR_WANT_READ) goto done;
        }
        move_bytes(client, server, buffer);
        if (!server_done) {
            int r = SSL_do_handshake(server);
            if (r == 1) server_done = 1;
            else if (SSL_get_error(server, r) != SSL_ERROR_WANT_READ) goto done;
        }
        move_bytes(server, client, buffer);
    }
    if (!(client_done && server_done)) goto done;
    unsigned char client_keys[56], server_keys[56];
    if ((result = check(client, bench->server_fingerprint, client_keys)) != 0) goto done;
    if ((result = check(server, bench->client_fingerprint, server_keys)) != 0) goto done;
    result = memcmp(client_keys, server_keys, sizeof client_keys) == 0 ? 0 : -6;
done:
    SSL_free(client);
    SSL_free(server);
    return result;
}

int bare_dtls_handshakes(bare_dtls *bench, int count) {
    unsigned char *buffer = malloc(16384);
    if (buffer == NULL) return -1;
    int result = 0;
    for (int i = 0; i < count && result == 0; i++) result = one_handshake(bench, buffer);
    free(buffer);
    return result;
}
