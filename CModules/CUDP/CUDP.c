#define _GNU_SOURCE
#include "CUDP.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <malloc.h>
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

int CUDP_enable_receive_timestamps(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

unsigned int CUDP_timestamp_control_bytes(void) {
    return CMSG_SPACE(sizeof(struct timespec));
}

int64_t CUDP_receive_timestamp(const struct msghdr *header) {
    for (struct cmsghdr *c = CMSG_FIRSTHDR(header); c != NULL; c = CMSG_NXTHDR((struct msghdr *)header, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS && c->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(c), sizeof ts);
            return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        }
    }
    return -1;
}

int64_t CUDP_realtime_nanoseconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int CUDP_malloc_trim(void) {
    return malloc_trim(0);
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

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif

int CUDP_segmentation_supported(int fd) {
    int size = 0;
    socklen_t length = sizeof size;
    return getsockopt(fd, SOL_UDP, UDP_SEGMENT, &size, &length) == 0 ? 1 : 0;
}

unsigned int CUDP_segment_control_bytes(void) {
    return CMSG_SPACE(sizeof(uint16_t));
}

void CUDP_set_segment_control(struct msghdr *header, void *control, uint16_t size) {
    memset(control, 0, CMSG_SPACE(sizeof(uint16_t)));
    header->msg_control = control;
    header->msg_controllen = CMSG_SPACE(sizeof(uint16_t));
    struct cmsghdr *c = CMSG_FIRSTHDR(header);
    c->cmsg_level = SOL_UDP;
    c->cmsg_type = UDP_SEGMENT;
    c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
    memcpy(CMSG_DATA(c), &size, sizeof size);
}

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

int CUDP_enable_receive_coalescing(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof on);
}

unsigned int CUDP_receive_control_bytes(void) {
    return CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(int));
}

int CUDP_receive_segment_size(const struct msghdr *header) {
    for (struct cmsghdr *c = CMSG_FIRSTHDR(header); c != NULL; c = CMSG_NXTHDR((struct msghdr *)header, c)) {
        if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO && c->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int size;
            memcpy(&size, CMSG_DATA(c), sizeof size);
            return size > 0 ? size : 0;
        }
    }
    return 0;
}
