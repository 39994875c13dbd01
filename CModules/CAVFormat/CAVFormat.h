// libavformat/libavcodec (FFmpeg 5.1) for Swift: OTRecording's WebM muxer.
// Wrappers for what Swift cannot import: function-like macros and variadic calls.
#ifndef CAVFORMAT_H
#define CAVFORMAT_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/frame.h>

// AVERROR(e) is a macro: the negative error code libav* returns for errno `e`.
static inline int cav_averror(int e) { return AVERROR(e); }
// AVERROR_EOF is a macro built from FFERRTAG.
static inline int cav_averror_eof(void) { return AVERROR_EOF; }
// av_channel_layout_default fills a native-order layout of `channels` channels.
static inline void cav_set_channels(AVCodecParameters *par, int channels) {
    av_channel_layout_default(&par->ch_layout, channels);
}
// The I/O context's sticky error (ENOSPC, EFBIG…), 0 when none: a write that failed
// inside avio's buffer surfaces here rather than from the write call.
static inline int cav_io_error(AVFormatContext *ctx) { return ctx->pb ? ctx->pb->error : 0; }
// The composer's encoders (H.264, AAC): a codec context's channel layout, and the flag
// MP4 needs for codec headers in the container (a macro).
static inline void cav_set_context_channels(AVCodecContext *ctx, int channels) {
    av_channel_layout_default(&ctx->ch_layout, channels);
}
static inline int cav_codec_flag_global_header(void) { return AV_CODEC_FLAG_GLOBAL_HEADER; }
// AVERROR(EAGAIN): an encoder wants more input before it gives a packet.
static inline int cav_averror_eagain(void) { return AVERROR(EAGAIN); }
#endif
