// Shims for TLS on the signaling server's sockets (OTNet/Server): OpenSSL's SSL_CTX_set_mode,
// SSL_CTX_set_min_proto_version and SSL_CTX_set_options are macros (or take a long where
// Swift would need a cast), and SHA-1 for the WebSocket handshake's accept value.
#ifndef CSSL_TLS_H
#define CSSL_TLS_H
#include <openssl/ssl.h>
#include <openssl/evp.h>

/// A partial SSL_write returns what it took, and a retried write may come from a buffer
/// that has moved (the connection's output buffer grows while it waits).
static inline void cssl_tls_server_modes(SSL_CTX *context) {
    SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
}

/// SHA-1 of `count` bytes at `data` into the 20 bytes at `digest`.
static inline void cssl_sha1(const unsigned char *data, size_t count, unsigned char *digest) {
    EVP_Digest(data, count, digest, NULL, EVP_sha1(), NULL);
}
#endif
