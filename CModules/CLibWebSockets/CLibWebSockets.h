// libwebsockets 4.1 (Debian 12), which also brings in OpenSSL's headers.
#include <libwebsockets.h>

// LWS_PRE expands through a function-like macro Swift does not import.
static const size_t clws_pre = LWS_PRE;
