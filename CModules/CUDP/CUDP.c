#define _GNU_SOURCE
#include "CUDP.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>

_Static_assert(sizeof(CUDPMessage) == sizeof(struct mmsghdr), "CUDPMessage must match struct mmsghdr");
_Static_assert(offsetof(CUDPMessage, length) == offsetof(struct mmsghdr, msg_len), "msg_len offset differs");

int CUDP_recvmmsg(int fd, CUDPMessage *messages, unsigned int count, int flags) {
    return recvmmsg(fd, (struct mmsghdr *)messages, count, flags, NULL);
}

int CUDP_sendmmsg(int fd, CUDPMessage *messages, unsigned int count, int flags) {
    return sendmmsg(fd, (struct mmsghdr *)messages, count, flags);
}

int CUDP_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

int CUDP_ppoll(struct pollfd *fds, unsigned long count, int64_t timeoutNanoseconds) {
    if (timeoutNanoseconds < 0) {
        return ppoll(fds, (nfds_t)count, NULL, NULL);
    }
    struct timespec ts = {
        .tv_sec = (time_t)(timeoutNanoseconds / 1000000000),
        .tv_nsec = (long)(timeoutNanoseconds % 1000000000),
    };
    return ppoll(fds, (nfds_t)count, &ts, NULL);
}

int CUDP_set_thread_name(const char *name) {
    char shortName[16];
    strncpy(shortName, name, sizeof shortName - 1);
    shortName[sizeof shortName - 1] = 0;
    return pthread_setname_np(pthread_self(), shortName);
}
