// Bare libvpx / libopus loops for otbench: see include/CBareCodec.h.
#include "CBareCodec.h"

#include <stdlib.h>
#include <string.h>
#include <opus/opus.h>
#include <vpx/vp8cx.h>
#include <vpx/vpx_encoder.h>

struct bare_vp8 {
    vpx_codec_ctx_t codec;
    vpx_image_t image;
    int digest_enabled;
    uint64_t digest;
};

static _Thread_local const char *last_error = "";

const char *bare_vp8_last_error(void) { return last_error; }

bare_vp8 *bare_vp8_create(int width, int height, int timebase_num, int timebase_den,
                          int bitrate_kbps, int cpu_used, int threads,
                          int error_resilient, int kf_max_dist) {
    vpx_codec_enc_cfg_t cfg;
    vpx_codec_err_t err = vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &cfg, 0);
    if (err != VPX_CODEC_OK) { last_error = vpx_codec_err_to_string(err); return NULL; }

    cfg.g_w = (unsigned)width;
    cfg.g_h = (unsigned)height;
    cfg.g_timebase.num = timebase_num;
    cfg.g_timebase.den = timebase_den;
    cfg.g_threads = (unsigned)threads;
    cfg.g_lag_in_frames = 0;
    cfg.g_error_resilient = error_resilient ? VPX_ERROR_RESILIENT_DEFAULT : 0;
    cfg.rc_end_usage = VPX_CBR;
    cfg.rc_target_bitrate = (unsigned)bitrate_kbps;
    cfg.rc_min_quantizer = 2;
    cfg.rc_max_quantizer = 56;
    cfg.rc_undershoot_pct = 100;
    cfg.rc_overshoot_pct = 15;
    cfg.rc_buf_initial_sz = 500;
    cfg.rc_buf_optimal_sz = 600;
    cfg.rc_buf_sz = 1000;
    cfg.rc_dropframe_thresh = 0;
    cfg.kf_mode = VPX_KF_AUTO;
    cfg.kf_max_dist = (unsigned)kf_max_dist;

    bare_vp8 *encoder = calloc(1, sizeof *encoder);
    if (encoder == NULL) { last_error = "out of memory"; return NULL; }
    err = vpx_codec_enc_init(&encoder->codec, vpx_codec_vp8_cx(), &cfg, 0);
    if (err != VPX_CODEC_OK) { last_error = vpx_codec_err_to_string(err); free(encoder); return NULL; }

    int ok = vpx_codec_control(&encoder->codec, VP8E_SET_CPUUSED, cpu_used) == VPX_CODEC_OK
        && vpx_codec_control(&encoder->codec, VP8E_SET_STATIC_THRESHOLD, 1u) == VPX_CODEC_OK
        && vpx_codec_control(&encoder->codec, VP8E_SET_TOKEN_PARTITIONS, VP8_ONE_TOKENPARTITION) == VPX_CODEC_OK
        && vpx_codec_control(&encoder->codec, VP8E_SET_MAX_INTRA_BITRATE_PCT, 900u) == VPX_CODEC_OK
        && vpx_codec_control(&encoder->codec, VP8E_SET_NOISE_SENSITIVITY, 0u) == VPX_CODEC_OK;
    if (!ok) {
        last_error = vpx_codec_error(&encoder->codec);
        vpx_codec_destroy(&encoder->codec);
        free(encoder);
        return NULL;
    }

    // The image header is filled once; encode only points it at the caller's planes.
    vpx_img_wrap(&encoder->image, VPX_IMG_FMT_I420, (unsigned)width, (unsigned)height, 1, NULL);
    return encoder;
}

long bare_vp8_encode(bare_vp8 *encoder, const uint8_t *y, const uint8_t *u, const uint8_t *v,
                     int stride_y, int stride_uv, int64_t pts, unsigned long duration,
                     int force_keyframe) {
    return bare_vp8_encode_each(encoder, y, u, v, stride_y, stride_uv, pts, duration, force_keyframe, NULL, NULL);
}

long bare_vp8_encode_each(bare_vp8 *encoder, const uint8_t *y, const uint8_t *u, const uint8_t *v,
                          int stride_y, int stride_uv, int64_t pts, unsigned long duration,
                          int force_keyframe, bare_vp8_output output, void *context) {
    vpx_image_t *image = &encoder->image;
    image->planes[VPX_PLANE_Y] = (unsigned char *)y;
    image->planes[VPX_PLANE_U] = (unsigned char *)u;
    image->planes[VPX_PLANE_V] = (unsigned char *)v;
    image->stride[VPX_PLANE_Y] = stride_y;
    image->stride[VPX_PLANE_U] = stride_uv;
    image->stride[VPX_PLANE_V] = stride_uv;

    vpx_enc_frame_flags_t flags = force_keyframe ? VPX_EFLAG_FORCE_KF : 0;
    if (vpx_codec_encode(&encoder->codec, image, pts, duration, flags, VPX_DL_REALTIME) != VPX_CODEC_OK) {
        last_error = vpx_codec_error(&encoder->codec);
        return -1;
    }
    long bytes = 0;
    vpx_codec_iter_t iter = NULL;
    const vpx_codec_cx_pkt_t *packet;
    while ((packet = vpx_codec_get_cx_data(&encoder->codec, &iter)) != NULL) {
        if (packet->kind != VPX_CODEC_CX_FRAME_PKT) continue;
        bytes += (long)packet->data.frame.sz;
        if (output != NULL) {
            output(context, packet->data.frame.buf, packet->data.frame.sz,
                   (packet->data.frame.flags & VPX_FRAME_IS_KEY) != 0);
        }
        if (encoder->digest_enabled) {
            const uint8_t *p = packet->data.frame.buf;
            uint64_t h = encoder->digest;
            for (size_t i = 0; i < packet->data.frame.sz; i++) { h ^= p[i]; h *= 1099511628211ull; }
            encoder->digest = h;
        }
    }
    return bytes;
}

void bare_vp8_enable_digest(bare_vp8 *encoder) {
    encoder->digest_enabled = 1;
    encoder->digest = 14695981039346656037ull;
}

uint64_t bare_vp8_digest(const bare_vp8 *encoder) { return encoder->digest; }

void bare_vp8_destroy(bare_vp8 *encoder) {
    if (encoder == NULL) return;
    vpx_codec_destroy(&encoder->codec);
    free(encoder);
}

// A bare_opus is the OpusEncoder itself: no wrapper struct, no extra indirection.
bare_opus *bare_opus_create(int channels, int bitrate, int complexity) {
    int err = OPUS_OK;
    OpusEncoder *opus = opus_encoder_create(48000, channels, OPUS_APPLICATION_VOIP, &err);
    if (opus == NULL || err != OPUS_OK) return NULL;
    int ok = opus_encoder_ctl(opus, OPUS_SET_BITRATE(bitrate)) == OPUS_OK
        && opus_encoder_ctl(opus, OPUS_SET_COMPLEXITY(complexity)) == OPUS_OK
        && opus_encoder_ctl(opus, OPUS_SET_INBAND_FEC(0)) == OPUS_OK
        && opus_encoder_ctl(opus, OPUS_SET_PACKET_LOSS_PERC(0)) == OPUS_OK
        && opus_encoder_ctl(opus, OPUS_SET_DTX(0)) == OPUS_OK;
    if (!ok) { opus_encoder_destroy(opus); return NULL; }
    return (bare_opus *)opus;
}

int bare_opus_encode(bare_opus *encoder, const int16_t *pcm, int samples_per_channel,
                     uint8_t *packet, int capacity) {
    return opus_encode((OpusEncoder *)encoder, pcm, samples_per_channel, packet, capacity);
}

void bare_opus_destroy(bare_opus *encoder) {
    if (encoder != NULL) opus_encoder_destroy((OpusEncoder *)encoder);
}

int bare_vpx_allocation_probe(void) {
    vpx_image_t *image = vpx_img_alloc(NULL, VPX_IMG_FMT_I420, 64, 64, 32);
    vpx_img_free(image);
    return 0;
}

int bare_opus_allocation_probe(void) {
    int err = OPUS_OK;
    OpusEncoder *opus = opus_encoder_create(48000, 1, OPUS_APPLICATION_VOIP, &err);
    opus_encoder_destroy(opus);
    return 0;
}
