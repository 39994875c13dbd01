// Linux socket calls Swift cannot see: Glibc's Swift module is built without _GNU_SOURCE,
// which hides struct mmsghdr, recvmmsg/sendmmsg, ppoll, eventfd and pthread_setname_np.
// CUDP.c is compiled with _GNU_SOURCE and forwards to them. Not API: OTMedia wraps it.
#ifndef CUDP_H
#define CUDP_H

#include <stdint.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

/// Same layout as glibc's struct mmsghdr (checked with _Static_assert in CUDP.c), which
/// Swift cannot name because it is declared only under _GNU_SOURCE.
typedef struct CUDPMessage {
    struct msghdr header;
    unsigned int length;
} CUDPMessage;

/// recvmmsg(2) without a timeout; hidden from Swift without _GNU_SOURCE.
int CUDP_recvmmsg(int fd, CUDPMessage *messages, unsigned int count, int flags);

/// sendmmsg(2); hidden from Swift without _GNU_SOURCE.
int CUDP_sendmmsg(int fd, CUDPMessage *messages, unsigned int count, int flags);

/// eventfd(2) with EFD_NONBLOCK | EFD_CLOEXEC; the header sys/eventfd.h is not in Glibc's module.
int CUDP_eventfd(void);

/// ppoll(2) with a nanosecond timeout (negative waits forever); ppoll is _GNU_SOURCE only,
/// and poll(2)'s millisecond timeout is too coarse for packet pacing.
int CUDP_ppoll(struct pollfd *fds, unsigned long count, int64_t timeoutNanoseconds);

/// pthread_setname_np on the calling thread (a GNU extension; names are cut to 15 bytes).
int CUDP_set_thread_name(const char *name);

#endif
