// AES-GCM for libsrtp2 on OpenSSL's EVP, installed through libsrtp's own extension
// point (srtp_replace_cipher_type). Why: Debian builds libsrtp2 on NSS, whose AES-GCM
// opens and closes a PKCS#11 session on the shared softoken slot for every packet
// (PK11_Encrypt/PK11_Decrypt). That costs CPU and serialises threads on the slot's
// locks, so two router workers scaled only ~1.6x on two cores. libsrtp2 still does all
// of SRTP (key derivation, replay window, ROC, packet layout); only the AES-GCM
// primitive moves to OpenSSL, with one EVP context per libsrtp cipher, set up once.
#ifndef CSRTPCIPHER_H
#define CSRTPCIPHER_H

/// Replaces libsrtp2's AES-128-GCM and AES-256-GCM cipher types with the OpenSSL ones,
/// process-wide. Call after `srtp_init` and before creating sessions (sessions made
/// before keep the cipher they were made with). libsrtp runs its known-answer tests on
/// each replacement (its own vectors and the GCM specification's) before accepting it.
/// Returns 0 (srtp_err_status_ok) or the libsrtp status of the first type refused, in
/// which case the stock cipher stays in place. Cost: two self-tests, once.
int otk_srtp_install_openssl_aes_gcm(void);

/// How many AES-GCM ciphers the OpenSSL types have allocated in this process (libsrtp2
/// allocates one per direction and stream when a session is created or a new SSRC
/// arrives), self-tests included. It shows that sessions really run on these types.
/// Never per packet.
unsigned long otk_srtp_openssl_aes_gcm_ciphers_allocated(void);

#endif
