// libopus for Swift. opus_encoder_ctl / opus_decoder_ctl are variadic: one wrapper each.
#ifndef COPUS_H
#define COPUS_H
#include <opus/opus.h>

// opus_encoder_ctl is variadic: OPUS_SET_BITRATE (bits/s).
static inline int copus_enc_set_bitrate(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_BITRATE(v)); }
// opus_encoder_ctl is variadic: OPUS_SET_COMPLEXITY (0-10).
static inline int copus_enc_set_complexity(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_COMPLEXITY(v)); }
// opus_encoder_ctl is variadic: OPUS_SET_INBAND_FEC (0/1).
static inline int copus_enc_set_inband_fec(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_INBAND_FEC(v)); }
// opus_encoder_ctl is variadic: OPUS_SET_PACKET_LOSS_PERC (0-100).
static inline int copus_enc_set_packet_loss_perc(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_PACKET_LOSS_PERC(v)); }
// opus_encoder_ctl is variadic: OPUS_SET_DTX (0/1).
static inline int copus_enc_set_dtx(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_DTX(v)); }
// opus_encoder_ctl is variadic: OPUS_SET_VBR (0/1).
static inline int copus_enc_set_vbr(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_VBR(v)); }
// opus_encoder_ctl is variadic: OPUS_GET_LOOKAHEAD (samples of codec delay).
static inline int copus_enc_get_lookahead(OpusEncoder *e, opus_int32 *v) { return opus_encoder_ctl(e, OPUS_GET_LOOKAHEAD(v)); }
// opus_decoder_ctl is variadic: OPUS_GET_LAST_PACKET_DURATION (samples per channel).
static inline int copus_dec_get_last_packet_duration(OpusDecoder *d, opus_int32 *v) { return opus_decoder_ctl(d, OPUS_GET_LAST_PACKET_DURATION(v)); }
#endif
