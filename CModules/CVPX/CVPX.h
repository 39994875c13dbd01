// libvpx (VP8) for Swift. vpx_codec_enc_init / dec_init are macros and
// vpx_codec_control is variadic: Swift can call neither, hence the wrappers.
#ifndef CVPX_H
#define CVPX_H
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>
#endif
