// hiredis (0.14, Debian's libhiredis-dev) for Swift: the router's Redis connections
// (Sources/OTRouter/Cluster). OTKit uses it to open the TCP connection with a connect
// timeout (name resolution, non-blocking connect, TCP_NODELAY) and to set the socket's
// read/write timeouts; replies are parsed by OTKit's own bounded RESP parser.
#ifndef CHIREDIS_H
#define CHIREDIS_H
#include <hiredis/hiredis.h>
#include <sys/time.h>

/// Connects to `host`:`port` giving up after `milliseconds`; the context (check `err`)
/// or NULL when out of memory.
static inline redisContext *chiredis_connect(const char *host, int port, long milliseconds) {
    struct timeval tv = { milliseconds / 1000, (milliseconds % 1000) * 1000 };
    return redisConnectWithTimeout(host, port, tv);
}

/// Sets the socket's send and receive timeouts (SO_SNDTIMEO/SO_RCVTIMEO); 0 on success.
static inline int chiredis_set_timeout(redisContext *c, long milliseconds) {
    struct timeval tv = { milliseconds / 1000, (milliseconds % 1000) * 1000 };
    return redisSetTimeout(c, tv) == REDIS_OK ? 0 : -1;
}

/// The context's socket descriptor.
static inline int chiredis_fd(const redisContext *c) { return c->fd; }

/// The context's error flag (0: none) and its text.
static inline int chiredis_err(const redisContext *c) { return c->err; }
static inline const char *chiredis_errstr(const redisContext *c) { return c->errstr; }
#endif
