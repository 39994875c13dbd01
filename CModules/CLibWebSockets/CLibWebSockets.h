// libwebsockets 4.1 (Debian 12), which also brings in OpenSSL's headers.
#include <libwebsockets.h>
#include <pthread.h>

// LWS_PRE expands through a function-like macro Swift does not import.
static const size_t clws_pre = LWS_PRE;

// pthread_setname_np is declared only under _GNU_SOURCE, which Swift's Glibc module is
// built without; declaring it here lets OTNet name its service threads (top -H, gdb).
extern int pthread_setname_np(pthread_t thread, const char *name);
static inline void clws_name_current_thread(const char *name) {
    pthread_setname_np(pthread_self(), name);
}
