// The bare OpenSSL DTLS-SRTP handshake loop otbench measures OTKit's DTLSTransport
// against: a client and a server SSL over memory BIOs in one thread, configured as
// OTKit's DTLSContext configures them (DTLS 1.2 pinned, self-signed ECDSA P-256
// certificates, use_srtp "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80", peer
// certificate required, no tickets, no MTU query, link MTU 1200, 50 ms first timer),
// and per handshake the same work OTKit's pair does: two SSL_new with their BIOs, the
// flights moved between them, each side's peer certificate hashed and compared with
// the expected fingerprint, the profile read, the keys exported on both sides and
// compared, both SSLs freed. Nothing else.
#ifndef CBAREDTLS_H
#define CBAREDTLS_H

/// Two contexts (client, server), each with its own P-256 key and certificate.
typedef struct bare_dtls bare_dtls;

/// Makes the keys, certificates and contexts. NULL on failure.
bare_dtls *bare_dtls_create(void);

/// Frees everything (NULL is fine).
void bare_dtls_destroy(bare_dtls *bench);

/// `count` full handshakes. Returns 0 when every one completed with matching
/// fingerprints, a GCM profile and identical keys on both sides; else a negative step
/// number (-1 SSL_new, -2 handshake stuck or failed, -3 fingerprint, -4 profile,
/// -5 export, -6 keys differ).
int bare_dtls_handshakes(bare_dtls *bench, int count);
#include "CBareAESGCM.h"
#endif
