// The bare codec loops otbench measures OTKit against: libvpx and libopus called
// directly from C, with the same settings OTKit uses (see docs/benchmarks.md), and
// nothing else. Each call does exactly what a hand-written C program would do per
// frame: no copies, no allocation, no bookkeeping beyond summing output bytes.
#ifndef CBARECODEC_H
#define CBARECODEC_H

#include <stddef.h>
#include <stdint.h>

/// An opaque VP8 realtime encoder (libvpx) plus the vpx_image_t it reuses.
typedef struct bare_vp8 bare_vp8;

/// Creates a VP8 encoder configured like WebRTC's LibvpxVp8Encoder (CBR, realtime,
/// lag 0, Q 2..56, undershoot 100, overshoot 15, buffer 500/600/1000 ms, no frame
/// dropping, static threshold 1, one token partition, max intra 900 %, noise
/// sensitivity 0). Timestamps are in units of timebase_num/timebase_den seconds.
/// Returns NULL on failure (bare_vp8_last_error() says why).
bare_vp8 *bare_vp8_create(int width, int height, int timebase_num, int timebase_den,
                          int bitrate_kbps, int cpu_used, int threads,
                          int error_resilient, int kf_max_dist);

/// Encodes one I420 frame (the planes are read, never copied) with VPX_DL_REALTIME
/// and drains the output. Returns the compressed bytes produced (0 when libvpx held
/// or dropped the frame), or -1 on error.
long bare_vp8_encode(bare_vp8 *encoder, const uint8_t *y, const uint8_t *u, const uint8_t *v,
                     int stride_y, int stride_uv, int64_t pts, unsigned long duration,
                     int force_keyframe);

/// Receives each compressed frame libvpx produced, in place (libvpx's own buffer, valid
/// until the next encode call).
typedef void (*bare_vp8_output)(void *context, const uint8_t *data, size_t length, int keyframe);

/// Encodes like bare_vp8_encode and hands each compressed frame to `output` instead of
/// only counting it (no copy). Returns the compressed bytes, or -1 on error.
long bare_vp8_encode_each(bare_vp8 *encoder, const uint8_t *y, const uint8_t *u, const uint8_t *v,
                          int stride_y, int stride_uv, int64_t pts, unsigned long duration,
                          int force_keyframe, bare_vp8_output output, void *context);

/// Starts hashing the output (FNV-1a 64 over every compressed byte, in order) so a
/// check pass can prove two encoders produced the same bitstream. Off by default.
void bare_vp8_enable_digest(bare_vp8 *encoder);

/// The FNV-1a 64 digest of the output since bare_vp8_enable_digest.
uint64_t bare_vp8_digest(const bare_vp8 *encoder);

/// Destroys the encoder (NULL is fine).
void bare_vp8_destroy(bare_vp8 *encoder);

/// The last libvpx error text of this thread's most recent failed call, or "".
const char *bare_vp8_last_error(void);

/// An opaque Opus encoder (libopus).
typedef struct bare_opus bare_opus;

/// Creates a 48 kHz OPUS_APPLICATION_VOIP encoder with the given bitrate (bits/s) and
/// complexity, VBR on (the default), in-band FEC off, expected loss 0 %, DTX off.
/// Returns NULL on failure.
bare_opus *bare_opus_create(int channels, int bitrate, int complexity);

/// Encodes one frame of interleaved S16 PCM; returns the packet length or a negative
/// libopus error code.
int bare_opus_encode(bare_opus *encoder, const int16_t *pcm, int samples_per_channel,
                     uint8_t *packet, int capacity);

/// Destroys the encoder (NULL is fine).
void bare_opus_destroy(bare_opus *encoder);

/// Allocates and frees one image inside libvpx (vpx_img_alloc / vpx_img_free), so the
/// caller can see whether libvpx's own malloc calls reach an interposer. Returns 0.
int bare_vpx_allocation_probe(void);

/// Creates and destroys an encoder inside libopus (opus_encoder_create /
/// opus_encoder_destroy), for the same reason. Returns 0.
int bare_opus_allocation_probe(void);

#endif
