// libvpx (VP8) for Swift. vpx_codec_enc_init / dec_init are macros and
// vpx_codec_control is variadic: Swift can call neither, hence the wrappers.
#ifndef CVPX_H
#define CVPX_H
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

// vpx_codec_enc_init is a macro over vpx_codec_enc_init_ver (ABI version argument).
static inline vpx_codec_err_t cvpx_vp8_enc_init(vpx_codec_ctx_t *ctx, const vpx_codec_enc_cfg_t *cfg) {
    return vpx_codec_enc_init(ctx, vpx_codec_vp8_cx(), cfg, 0);
}

// vpx_codec_dec_init is a macro over vpx_codec_dec_init_ver (ABI version argument).
static inline vpx_codec_err_t cvpx_vp8_dec_init(vpx_codec_ctx_t *ctx, unsigned int threads) {
    vpx_codec_dec_cfg_t cfg = { threads, 0, 0 };
    return vpx_codec_dec_init(ctx, vpx_codec_vp8_dx(), &cfg, 0);
}

// vpx_codec_control is variadic: VP8E_SET_CPUUSED (int).
static inline vpx_codec_err_t cvpx_set_cpuused(vpx_codec_ctx_t *c, int v) {
    return vpx_codec_control(c, VP8E_SET_CPUUSED, v);
}

// vpx_codec_control is variadic: VP8E_SET_STATIC_THRESHOLD (unsigned int).
static inline vpx_codec_err_t cvpx_set_static_threshold(vpx_codec_ctx_t *c, unsigned int v) {
    return vpx_codec_control(c, VP8E_SET_STATIC_THRESHOLD, v);
}

// vpx_codec_control is variadic: VP8E_SET_TOKEN_PARTITIONS (int, log2 of the count).
static inline vpx_codec_err_t cvpx_set_token_partitions(vpx_codec_ctx_t *c, int v) {
    return vpx_codec_control(c, VP8E_SET_TOKEN_PARTITIONS, v);
}

// vpx_codec_control is variadic: VP8E_SET_MAX_INTRA_BITRATE_PCT (unsigned int).
static inline vpx_codec_err_t cvpx_set_max_intra_bitrate_pct(vpx_codec_ctx_t *c, unsigned int v) {
    return vpx_codec_control(c, VP8E_SET_MAX_INTRA_BITRATE_PCT, v);
}

// vpx_codec_control is variadic: VP8E_SET_NOISE_SENSITIVITY (unsigned int).
static inline vpx_codec_err_t cvpx_set_noise_sensitivity(vpx_codec_ctx_t *c, unsigned int v) {
    return vpx_codec_control(c, VP8E_SET_NOISE_SENSITIVITY, v);
}

// vpx_codec_control is variadic: VP8E_SET_TEMPORAL_LAYER_ID (int), per frame.
static inline vpx_codec_err_t cvpx_set_temporal_layer_id(vpx_codec_ctx_t *c, int v) {
    return vpx_codec_control(c, VP8E_SET_TEMPORAL_LAYER_ID, v);
}

// vpx_codec_control is variadic: VP8D_GET_FRAME_CORRUPTED (int *).
static inline vpx_codec_err_t cvpx_get_frame_corrupted(vpx_codec_ctx_t *c, int *corrupted) {
    return vpx_codec_control(c, VP8D_GET_FRAME_CORRUPTED, corrupted);
}

// vpx_image_t's planes and strides are C arrays (Swift tuples): point an I420 image
// descriptor at caller-owned planes in place, without allocating (vpx_img_wrap would
// derive strides from the width; ours are 32-byte aligned per plane).
static inline void cvpx_wrap_i420(vpx_image_t *img, unsigned int w, unsigned int h,
                                  unsigned char *y, unsigned char *u, unsigned char *v,
                                  int stride_y, int stride_uv) {
    vpx_img_wrap(img, VPX_IMG_FMT_I420, w, h, 1, y);
    img->planes[VPX_PLANE_Y] = y;
    img->planes[VPX_PLANE_U] = u;
    img->planes[VPX_PLANE_V] = v;
    img->planes[VPX_PLANE_ALPHA] = 0;
    img->stride[VPX_PLANE_Y] = stride_y;
    img->stride[VPX_PLANE_U] = stride_uv;
    img->stride[VPX_PLANE_V] = stride_uv;
    img->stride[VPX_PLANE_ALPHA] = 0;
}

// vpx_image_t's planes / strides are C arrays (Swift tuples): read one by index.
static inline const unsigned char *cvpx_plane(const vpx_image_t *img, int plane) { return img->planes[plane]; }

// vpx_image_t's strides are a C array (Swift tuple): read one by index.
static inline int cvpx_stride(const vpx_image_t *img, int plane) { return img->stride[plane]; }

// vpx_codec_cx_pkt_t holds its payload in a union: the compressed-frame fields, or NULL
// when the packet is not a frame (stats, PSNR).
static inline const void *cvpx_pkt_frame(const vpx_codec_cx_pkt_t *pkt, size_t *size,
                                         vpx_codec_frame_flags_t *flags) {
    if (pkt->kind != VPX_CODEC_CX_FRAME_PKT) return 0;
    *size = pkt->data.frame.sz;
    *flags = pkt->data.frame.flags;
    return pkt->data.frame.buf;
}
#endif
