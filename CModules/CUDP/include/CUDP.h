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

/// Turns on kernel receive timestamps (SO_TIMESTAMPNS): each datagram then carries the
/// CLOCK_REALTIME moment the kernel queued it, in a control message. 0 on success.
int CUDP_enable_receive_timestamps(int fd);

/// Bytes of control buffer one received message needs for its timestamp
/// (CMSG_SPACE(sizeof(struct timespec))).
unsigned int CUDP_timestamp_control_bytes(void);

/// The SCM_TIMESTAMPNS time (CLOCK_REALTIME nanoseconds) in a received message's control
/// data, or -1 when it carries none. Walks the control messages; no system call.
int64_t CUDP_receive_timestamp(const struct msghdr *header);

/// CLOCK_REALTIME now, nanoseconds (a vDSO read): to turn a kernel receive timestamp into
/// an age.
int64_t CUDP_realtime_nanoseconds(void);

/// Whether the kernel does UDP generic segmentation offload on `fd` (Linux ≥ 4.18: the
/// socket accepts a `UDP_SEGMENT` control message, one send of several equal datagrams
/// to one destination). 1 yes, 0 no. Cost: one getsockopt.
int CUDP_segmentation_supported(int fd);

/// Bytes of control buffer a message needs for its UDP_SEGMENT size
/// (CMSG_SPACE(sizeof(uint16_t))).
unsigned int CUDP_segment_control_bytes(void);

/// Writes one UDP_SEGMENT control message (segment size `size`) at `control` and points
/// `header`'s msg_control/msg_controllen at it; `control` must hold
/// `CUDP_segment_control_bytes()` bytes, 8-aligned. No system call.
void CUDP_set_segment_control(struct msghdr *header, void *control, uint16_t size);

/// Turns on UDP generic receive offload (UDP_GRO, Linux ≥ 5.0) on `fd`: a run of
/// equal-sized datagrams of one flow that the kernel coalesced (or that a local sender
/// sent as one GSO message) is read as one message, with its segment size in a control
/// message (`CUDP_receive_segment_size`). 0 on success, -1 when the kernel refuses.
int CUDP_enable_receive_coalescing(int fd);

/// Bytes of control buffer one received message needs for a timestamp and a UDP_GRO
/// segment size together (CMSG_SPACE(timespec) + CMSG_SPACE(int)).
unsigned int CUDP_receive_control_bytes(void);

/// The UDP_GRO segment size in a received message's control data: the length of every
/// datagram in the message but the last (which may be shorter); 0 when it carries none
/// (one datagram). Walks the control messages; no system call.
int CUDP_receive_segment_size(const struct msghdr *header);

/// pthread_setname_np on the calling thread (a GNU extension; names are cut to 15 bytes).
int CUDP_set_thread_name(const char *name);

/// malloc_trim(0) (malloc.h is not in Glibc's Swift module): gives the pages of freed heap
/// memory back to the kernel. Returns 1 if any memory was released.
int CUDP_malloc_trim(void);

#endif
