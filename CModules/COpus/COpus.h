// libopus for Swift. opus_encoder_ctl / opus_decoder_ctl are variadic: one wrapper each.
#ifndef COPUS_H
#define COPUS_H
#include <opus/opus.h>
#endif
