// libsrtp2's crypto primitives on OpenSSL, installed through libsrtp's own extension
// points (srtp_replace_cipher_type, srtp_replace_auth_type): AES-GCM, AES-128 counter
// mode and HMAC-SHA1. Why: Debian builds libsrtp2 on NSS, which per packet opens a
// PKCS#11 session (AES-GCM) or creates a context (AES-CM) on the one shared softoken
// slot and allocates: it cost CPU (2.6 us per GCM protect + unprotect of 1,212 bytes,
// 12 us with AES-CM + HMAC-SHA1) and serialised threads on the slot's locks, so two
// router workers scaled only ~1.6x on two cores. libsrtp2 still does all of SRTP (key
// derivation, replay window, ROC, packet layout); only the primitives move, each with
// its OpenSSL state set up once per libsrtp cipher or auth function.
#ifndef CSRTPCIPHER_H
#define CSRTPCIPHER_H

/// Replaces libsrtp2's AES-128-GCM and AES-256-GCM cipher types with the OpenSSL ones,
/// process-wide. Call after `srtp_init` and before creating sessions (sessions made
/// before keep the cipher they were made with). libsrtp runs its known-answer tests on
/// each replacement (its own vectors and the GCM specification's) before accepting it.
/// Returns 0 (srtp_err_status_ok) or the libsrtp status of the first type refused, in
/// which case the stock cipher stays in place. Cost: two self-tests, once.
int otk_srtp_install_openssl_aes_gcm(void);

/// Replaces libsrtp2's AES-128 counter-mode cipher type (the AES-CM profiles' cipher and
/// the key derivation of every 128-bit profile) with one on OpenSSL's AES-CTR. As above:
/// after `srtp_init`, known-answer tested by libsrtp first (RFC 3711 B.2 and libsrtp's
/// vectors); 0 or the libsrtp status. Cost: a self-test, once.
int otk_srtp_install_openssl_aes_icm_128(void);

/// Replaces libsrtp2's HMAC-SHA1 authentication type with one on OpenSSL's SHA-1 that
/// hashes the key pads once and copies that state per packet (no allocation). As above;
/// tested on RFC 2202 and libsrtp's vectors first. 0 or the libsrtp status.
int otk_srtp_install_openssl_hmac_sha1(void);

/// How many AES-128 counter-mode ciphers the OpenSSL type has allocated (one per key
/// derivation and per AES-CM stream direction), self-tests included. Never per packet.
unsigned long otk_srtp_openssl_aes_icm_ciphers_allocated(void);

/// How many HMAC-SHA1 functions the OpenSSL type has allocated (per AES-CM stream
/// direction), self-tests included. Never per packet.
unsigned long otk_srtp_openssl_hmac_sha1_allocated(void);

/// How many AES-GCM ciphers the OpenSSL types have allocated in this process (libsrtp2
/// allocates one per direction and stream when a session is created or a new SSRC
/// arrives), self-tests included. It shows that sessions really run on these types.
/// Never per packet.
unsigned long otk_srtp_openssl_aes_gcm_ciphers_allocated(void);

#endif
