#ifndef CBARECODEC_H
#define CBARECODEC_H
int bare_codec_placeholder(void);
#endif
