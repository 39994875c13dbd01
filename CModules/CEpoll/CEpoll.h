// epoll and eventfd for OTNet's server loop: Glibc's Swift module has neither
// sys/epoll.h nor sys/eventfd.h, and struct epoll_event is packed (Swift cannot lay it out),
// so events are passed as two plain arrays.
#ifndef CEPOLL_H
#define CEPOLL_H
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

static const uint32_t CEPOLL_IN = EPOLLIN;
static const uint32_t CEPOLL_OUT = EPOLLOUT;
static const uint32_t CEPOLL_ERR = EPOLLERR;
static const uint32_t CEPOLL_HUP = EPOLLHUP;

/// epoll_create1(EPOLL_CLOEXEC).
static inline int cepoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/// epoll_ctl with `key` as the event's data (EPOLL_CTL_ADD = 1, DEL = 2, MOD = 3).
static inline int cepoll_control(int epfd, int op, int fd, uint32_t events, uint64_t key) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = key;
    return epoll_ctl(epfd, op, fd, &event);
}

/// epoll_wait for at most `max` (≤ 256) events, unpacked into `keys` and `events`.
static inline int cepoll_wait(int epfd, uint64_t *keys, uint32_t *events, int max, int timeoutMilliseconds) {
    struct epoll_event list[256];
    if (max > 256) max = 256;
    int count = epoll_wait(epfd, list, max, timeoutMilliseconds);
    for (int i = 0; i < count; i++) {
        keys[i] = list[i].data.u64;
        events[i] = list[i].events;
    }
    return count;
}

/// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC).
static inline int cepoll_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

#endif
