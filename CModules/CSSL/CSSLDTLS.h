// Shims for the DTLS-SRTP handshake (OTMedia/DTLS): OpenSSL 3's function-like macros,
// which Swift cannot call, as static inline functions of the same meaning.
#ifndef CSSL_DTLS_H
#define CSSL_DTLS_H
#include <openssl/bio.h>
#include <openssl/ssl.h>

/// SSL_OP_NO_QUERY_MTU: a memory BIO cannot answer BIO_CTRL_DGRAM_QUERY_MTU, so the
/// link MTU is set by hand instead.
static const uint64_t cssl_op_no_query_mtu = SSL_OP_NO_QUERY_MTU;
/// SSL_OP_NO_TICKET: no session tickets (useless for WebRTC; shrinks the last flight).
static const uint64_t cssl_op_no_ticket = SSL_OP_NO_TICKET;
/// SSL_OP_NO_RENEGOTIATION: WebRTC never renegotiates, and an unauthenticated epoch-0
/// handshake record after the handshake must not put the association back into init.
static const uint64_t cssl_op_no_renegotiation = SSL_OP_NO_RENEGOTIATION;

static inline int cssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

static inline int cssl_ctx_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}

static inline int cssl_dtls_set_link_mtu(SSL *ssl, long mtu) {
    return (int)DTLS_set_link_mtu(ssl, mtu);
}

/// DTLSv1_get_timeout: 1 and the time left in `out` when a retransmission timer runs, else 0.
static inline int cssl_dtls_get_timeout(SSL *ssl, struct timeval *out) {
    return (int)DTLSv1_get_timeout(ssl, out);
}

/// DTLSv1_handle_timeout: 1 when the timer had expired and the flight was resent, 0 when
/// nothing was due, -1 on error.
static inline int cssl_dtls_handle_timeout(SSL *ssl) {
    return (int)DTLSv1_handle_timeout(ssl);
}

static inline int cssl_bio_set_mem_eof_return(BIO *bio, int value) {
    return (int)BIO_set_mem_eof_return(bio, value);
}

static inline int cssl_bio_reset(BIO *bio) {
    return (int)BIO_reset(bio);
}
#endif
