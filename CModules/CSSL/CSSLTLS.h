// Shims for TLS on the signaling server's sockets (OTNet).
#ifndef CSSL_TLS_H
#define CSSL_TLS_H
#include <openssl/ssl.h>
#endif
