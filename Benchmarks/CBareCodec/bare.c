#include "CBareCodec.h"
int bare_codec_placeholder(void) { return 0; }
