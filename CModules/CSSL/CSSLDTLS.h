// Shims for the DTLS-SRTP handshake (OTMedia/DTLS).
#ifndef CSSL_DTLS_H
#define CSSL_DTLS_H
#include <openssl/ssl.h>
#endif
