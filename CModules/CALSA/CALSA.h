// ALSA (alsa-lib) for Swift.
//
// Almost all of alsa-lib imports as is (snd_pcm_t* becomes OpaquePointer). What does not:
// the library's error reporting, which calls a variadic printf-style handler that Swift
// cannot implement. The wrappers below install a C handler that formats each message
// into a per-thread buffer instead of printing it to stderr, so the engine can put the
// text into its own errors and a machine without a sound card stays quiet.
#ifndef CALSA_H
#define CALSA_H
#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/// Size of the per-thread buffer that keeps alsa-lib's last error message.
#define CALSA_ERROR_CAPACITY 512

// Exists because the buffer must be per thread (alsa-lib reports on the caller's thread)
// and Swift has no thread-local storage of its own.
static inline char *calsa_error_buffer(void) {
    static _Thread_local char message[CALSA_ERROR_CAPACITY];
    return message;
}

// Exists because snd_lib_error_handler_t is variadic: only C can receive the arguments.
// Keeps "function: message[: strerror]" as the calling thread's last error.
static void calsa_error_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file;
    (void)line;
    char *out = calsa_error_buffer();
    int used = snprintf(out, CALSA_ERROR_CAPACITY, "%s: ", function ? function : "alsa-lib");
    if (used < 0 || used >= CALSA_ERROR_CAPACITY) used = 0;
    va_list args;
    va_start(args, fmt);
    int more = vsnprintf(out + used, (size_t)(CALSA_ERROR_CAPACITY - used), fmt, args);
    va_end(args);
    if (more > 0) used += more;
    if (err != 0 && used < CALSA_ERROR_CAPACITY - 1) {
        snprintf(out + used, (size_t)(CALSA_ERROR_CAPACITY - used), ": %s", snd_strerror(err));
    }
}

// Exists so Swift can install the variadic C handler above (it cannot name its type).
// Process-wide; call once before the first snd_* call.
static inline int calsa_install_error_handler(void) {
    return snd_lib_error_set_handler(calsa_error_handler);
}

// Exists because the per-thread buffer is only reachable from C.
// The calling thread's last alsa-lib message, "" when none since calsa_clear_last_error.
static inline const char *calsa_last_error(void) {
    return calsa_error_buffer();
}

// Exists for the same reason: forgets the calling thread's last message.
static inline void calsa_clear_last_error(void) {
    calsa_error_buffer()[0] = '\0';
}

#endif
