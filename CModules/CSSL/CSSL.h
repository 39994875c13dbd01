// OpenSSL's libssl for Swift: TLS and DTLS. The shims for OpenSSL's function-like macros
// (SSL_set_options, DTLS_set_link_mtu, ...) that Swift cannot call live in one header per
// user: CSSLDTLS.h (the DTLS-SRTP handshake on the media path) and CSSLTLS.h (TLS on the
// signaling server's sockets).
#ifndef CSSL_H
#define CSSL_H
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include "CSSLDTLS.h"
#include "CSSLTLS.h"
#endif
