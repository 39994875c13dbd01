// The bare OpenSSL AES-128-GCM frame loop otbench's `e2ee` scenario measures OTKit's
// SFrame against: per frame, the same cryptographic work as SFrame and nothing more —
// the nonce (a 12-byte salt XOR the 64-bit frame counter, big-endian), the same bytes of
// AAD (the frame's SFrame header, written by a few lines of C), one EVP encrypt on a
// context keyed once (IV, AAD, data, final, 16-byte tag) into `header ‖ ciphertext ‖
// tag`, then one EVP decrypt of that on a second context (IV, AAD, data, tag, final with
// the tag check). No header parse, key lookup, replay window or error mapping: that is
// what the ratio charges to OTKit. Its output is byte-identical to OTKit's.
// (Lives beside the bare DTLS loop: both are plain OpenSSL, and this needs no target of its own.)
#ifndef CBAREAESGCM_H
#define CBAREAESGCM_H
#include <stdint.h>

/// An encrypting and a decrypting AES-128-GCM context under one key and salt.
typedef struct bare_gcm bare_gcm;

/// Keys both contexts with the 16-byte `key`; `salt` is 12 bytes. NULL on failure.
bare_gcm *bare_gcm_create(const unsigned char *key, const unsigned char *salt);

/// Frees both contexts (NULL is fine).
void bare_gcm_destroy(bare_gcm *bench);

/// Seals and opens `count` frames under KID `kid`: frame i is the first `lengths[i]` bytes
/// of `source`, sealed into `sealed` (room for the longest frame + 33) as header ‖
/// ciphertext ‖ tag with counter `*counter`, which then goes up by one; the result is
/// opened into `opened`. Returns the last frame's sealed length, or -1 when OpenSSL
/// refused a step, -2 when a tag did not verify.
int bare_gcm_frames(bare_gcm *bench, uint64_t kid, const unsigned char *source, const int32_t *lengths, int count,
                    uint64_t *counter, unsigned char *sealed, unsigned char *opened);
#endif
