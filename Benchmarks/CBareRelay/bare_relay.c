// See include/CBareRelay.h. Written like the plain C a relay author would write.
#define _GNU_SOURCE
#include "CBareRelay.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>
#include <time.h>

enum { BATCH = 32, MAX_DEST = 64, SLOT = 2048 };

struct bare_relay {
    pthread_t thread;
    clockid_t clock;
    int in_fd;
    int n;
    int out_fds[MAX_DEST];
    struct sockaddr_in dests[MAX_DEST];
    atomic_int stop;
    atomic_uint_fast64_t forwarded;
};

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

// Whether `fd` has UDP_GRO on (the caller's choice, to match the path it is measured against).
static int coalescing(int fd) {
    int on = 0;
    socklen_t length = sizeof on;
    return getsockopt(fd, SOL_UDP, UDP_GRO, &on, &length) == 0 && on;
}

// The UDP_GRO segment size a received message carries, 0 for one datagram.
static int segment_size(struct msghdr *header) {
    for (struct cmsghdr *c = CMSG_FIRSTHDR(header); c != NULL; c = CMSG_NXTHDR(header, c)) {
        if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO && c->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int size;
            memcpy(&size, CMSG_DATA(c), sizeof size);
            return size > 0 ? size : 0;
        }
    }
    return 0;
}

enum { MAX_SEGMENTS = 64, GRO_SLOT = 65536 };

static void *relay_main(void *raw) {
    struct bare_relay *relay = raw;
    pthread_setname_np(pthread_self(), "bare-relay");  // perf and top -H tell the threads apart
    // With UDP_GRO on the input socket a message may carry up to 64 datagrams: 64 KB
    // slots, and each datagram is cut out (pointed at, not copied) for the sends.
    const int gro = coalescing(relay->in_fd);
    const size_t slot = gro ? GRO_SLOT : SLOT;
    const int most = gro ? BATCH * MAX_SEGMENTS : BATCH;
    uint8_t *buffers = malloc(slot * BATCH);
    struct mmsghdr *out = calloc((size_t)most, sizeof *out);
    struct iovec *out_vec = calloc((size_t)most, sizeof *out_vec);
    if (!buffers || !out || !out_vec) {
        free(buffers); free(out); free(out_vec);
        return NULL;
    }
    struct mmsghdr in[BATCH];
    struct iovec in_vec[BATCH];
    // Room for the segment size and a receive timestamp (the socket may ask for one, and
    // the kernel writes it first: without room for both the size would be cut off).
    union { char bytes[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct timespec))]; struct cmsghdr align; } controls[BATCH];
    for (int i = 0; i < most; i++) {
        out[i].msg_hdr.msg_iov = &out_vec[i];
        out[i].msg_hdr.msg_iovlen = 1;
        out[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_in);
    }
    struct pollfd entry = {.fd = relay->in_fd, .events = POLLIN};
    while (!atomic_load_explicit(&relay->stop, memory_order_relaxed)) {
        if (poll(&entry, 1, 20) <= 0) continue;
        for (int round = 0; round < 8; round++) {
            for (int i = 0; i < BATCH; i++) {
                in_vec[i].iov_base = buffers + (size_t)i * slot;
                in_vec[i].iov_len = slot;
                memset(&in[i], 0, sizeof in[i]);
                in[i].msg_hdr.msg_iov = &in_vec[i];
                in[i].msg_hdr.msg_iovlen = 1;
                if (gro) {
                    in[i].msg_hdr.msg_control = controls[i].bytes;
                    in[i].msg_hdr.msg_controllen = sizeof controls[i].bytes;
                }
            }
            int got = recvmmsg(relay->in_fd, in, BATCH, MSG_DONTWAIT, NULL);
            if (got <= 0) break;
            int datagrams = 0;
            for (int i = 0; i < got; i++) {
                uint8_t *base = buffers + (size_t)i * slot;
                size_t length = in[i].msg_len;
                size_t size = gro ? (size_t)segment_size(&in[i].msg_hdr) : 0;
                if (size == 0 || size >= length) size = length;
                for (size_t offset = 0; offset < length && datagrams < most; offset += size) {
                    out_vec[datagrams].iov_base = base + offset;
                    out_vec[datagrams].iov_len = length - offset < size ? length - offset : size;
                    datagrams++;
                }
            }
            uint64_t sent_total = 0;
            for (int d = 0; d < relay->n; d++) {
                for (int i = 0; i < datagrams; i++) out[i].msg_hdr.msg_name = &relay->dests[d];
                int done = 0;
                while (done < datagrams) {
                    int sent = sendmmsg(relay->out_fds[d], out + done, (unsigned)(datagrams - done), 0);
                    if (sent > 0) { done += sent; continue; }
                    if (sent < 0 && errno == EINTR) continue;
                    break;
                }
                sent_total += done;
            }
            atomic_fetch_add_explicit(&relay->forwarded, sent_total, memory_order_relaxed);
            if (got < BATCH) break;
        }
    }
    free(buffers);
    free(out);
    free(out_vec);
    return NULL;
}

bare_relay *bare_relay_start(int in_fd, const int *out_fds, const uint16_t *ports, int n) {
    if (n < 1 || n > MAX_DEST) return NULL;
    struct bare_relay *relay = calloc(1, sizeof *relay);
    if (!relay) return NULL;
    relay->in_fd = in_fd;
    relay->n = n;
    for (int i = 0; i < n; i++) {
        relay->out_fds[i] = out_fds[i];
        relay->dests[i].sin_family = AF_INET;
        relay->dests[i].sin_port = htons(ports[i]);
        relay->dests[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    if (pthread_create(&relay->thread, NULL, relay_main, relay) != 0) {
        free(relay);
        return NULL;
    }
    pthread_getcpuclockid(relay->thread, &relay->clock);
    return relay;
}

void bare_relay_sample(bare_relay *relay, uint64_t *forwarded, uint64_t *cpu_ns) {
    struct timespec ts;
    clock_gettime(relay->clock, &ts);
    *cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    *forwarded = atomic_load_explicit(&relay->forwarded, memory_order_relaxed);
}

void bare_relay_stop(bare_relay *relay) {
    atomic_store(&relay->stop, 1);
    pthread_join(relay->thread, NULL);
    free(relay);
}

struct bare_drain {
    pthread_t thread;
    int n;
    int fds[MAX_DEST];
    atomic_int stop;
    atomic_uint_fast64_t count;
    // A sink (`bare_sink_start`): no thread; the sockets' filters drop every datagram and
    // the kernel's drop counters, less these at the start, are what arrived.
    int filtered;
    uint64_t drops_at_start;
};

// Datagrams the kernel dropped at `fds[0..n)` so far (SO_MEMINFO), filter drops included.
static uint64_t socket_drops(const int *fds, int n) {
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        uint32_t info[SK_MEMINFO_VARS] = {0};
        socklen_t length = sizeof info;
        if (getsockopt(fds[i], SOL_SOCKET, SO_MEMINFO, info, &length) == 0 && length > SK_MEMINFO_DROPS * sizeof(uint32_t))
            total += info[SK_MEMINFO_DROPS];
    }
    return total;
}

// Datagrams that reached the drain's sockets so far.
static uint64_t drain_arrived(struct bare_drain *drain) {
    if (drain->filtered) return socket_drops(drain->fds, drain->n) - drain->drops_at_start;
    return atomic_load_explicit(&drain->count, memory_order_relaxed);
}

struct bare_blaster {
    pthread_t thread;
    struct bare_drain *drain;
    uint64_t drained_at_start;
    int fanout;
    int window;
    int fd;
    struct sockaddr_in dest;
    const uint8_t *packets;
    int stride;
    const int32_t *lengths;
    int count;
    uint64_t sent;
    uint64_t cpu_ns;
    uint64_t drain_rate;  // datagrams arrived per microsecond × 1024, 0 until measured
    int gso;
};

static uint64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// Waits (at most 20 ms) while more than the window is in flight. Each nap lasts about as
// long as half the window takes to drain at the rate the last naps saw, so the window
// refills in a run of sends and the blaster wakes about once per half window rather than
// several times per batch: each wake-up costs CPU (a timer, two context switches; several
// microseconds on a virtual machine) taken from the cores the router runs on. Half the
// window always stays queued, so the router never waits for the generator.
static void wait_for_window(struct bare_blaster *blaster) {
    uint64_t window = (uint64_t)blaster->window * (uint64_t)blaster->fanout;
    uint64_t launched = blaster->sent * (uint64_t)blaster->fanout;
    uint64_t arrived = drain_arrived(blaster->drain) - blaster->drained_at_start;
    uint64_t start = monotonic_ns(), before = start;
    while (launched > arrived + window && before - start < 20000000u) {
        uint64_t excess = launched - arrived - window / 2;
        uint64_t nap = 100000;
        if (blaster->drain_rate > 0) {  // datagrams per microsecond, times 1024
            nap = excess * 1024u * 1000u / blaster->drain_rate;
            if (nap < 20000) nap = 20000;
            if (nap > 2000000) nap = 2000000;
        }
        struct timespec pause = {0, (long)nap};
        nanosleep(&pause, NULL);
        uint64_t after = monotonic_ns();
        uint64_t now_arrived = drain_arrived(blaster->drain) - blaster->drained_at_start;
        uint64_t elapsed_us = (after - before) / 1000u;
        if (elapsed_us > 0 && now_arrived > arrived) {
            uint64_t rate = (now_arrived - arrived) * 1024u / elapsed_us;
            blaster->drain_rate = blaster->drain_rate ? (blaster->drain_rate + rate) / 2 : rate;
        }
        arrived = now_arrived;
        before = after;
    }
}

static void *blaster_main(void *raw) {
    struct bare_blaster *blaster = raw;
    pthread_setname_np(pthread_self(), "bare-blaster");
    struct mmsghdr messages[BATCH];
    struct iovec vectors[BATCH];
    int next = 0;
    while (next < blaster->count) {
        if (blaster->drain) wait_for_window(blaster);
        int n = blaster->count - next < BATCH ? blaster->count - next : BATCH;
        // Equal-length datagrams go as one UDP GSO send (UDP_SEGMENT): one syscall, one
        // route lookup and one trip through loopback for the batch, cut into datagrams at
        // the receiving socket, so the generator takes less of the cores it shares with
        // the router. Anything else (or a kernel without GSO) goes with sendmmsg.
        int same = 1;
        while (same < n && blaster->lengths[next + same] == blaster->lengths[next]) same++;
        if (blaster->gso && same > 1) {
            for (int i = 0; i < same; i++) {
                vectors[i].iov_base = (void *)(blaster->packets + (size_t)(next + i) * blaster->stride);
                vectors[i].iov_len = blaster->lengths[next + i];
            }
            union { char bytes[CMSG_SPACE(sizeof(uint16_t))]; struct cmsghdr align; } control;
            memset(&control, 0, sizeof control);
            struct msghdr message = {.msg_name = &blaster->dest, .msg_namelen = sizeof blaster->dest,
                                     .msg_iov = vectors, .msg_iovlen = same,
                                     .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
            struct cmsghdr *header = CMSG_FIRSTHDR(&message);
            header->cmsg_level = SOL_UDP;
            header->cmsg_type = UDP_SEGMENT;
            header->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            uint16_t segment = (uint16_t)blaster->lengths[next];
            memcpy(CMSG_DATA(header), &segment, sizeof segment);
            if (sendmsg(blaster->fd, &message, 0) >= 0) {
                next += same;
                blaster->sent += same;
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
                struct pollfd entry = {.fd = blaster->fd, .events = POLLOUT};
                poll(&entry, 1, 5);
                continue;
            }
            if (errno == EINTR) continue;
            blaster->gso = 0;  // refused (no GSO here): plain sends from now on
        }
        for (int i = 0; i < n; i++) {
            vectors[i].iov_base = (void *)(blaster->packets + (size_t)(next + i) * blaster->stride);
            vectors[i].iov_len = blaster->lengths[next + i];
            memset(&messages[i], 0, sizeof messages[i]);
            messages[i].msg_hdr.msg_iov = &vectors[i];
            messages[i].msg_hdr.msg_iovlen = 1;
            messages[i].msg_hdr.msg_name = &blaster->dest;
            messages[i].msg_hdr.msg_namelen = sizeof blaster->dest;
        }
        int sent = sendmmsg(blaster->fd, messages, n, 0);
        if (sent > 0) {
            next += sent;
            blaster->sent += sent;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
            struct pollfd entry = {.fd = blaster->fd, .events = POLLOUT};
            poll(&entry, 1, 5);
        } else if (errno != EINTR) {
            next += 1;  // a datagram the kernel refuses: skip it
        }
    }
    struct timespec cpu;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    blaster->cpu_ns = (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec;
    return NULL;
}

bare_blaster *bare_blaster_start(int fd, uint16_t port, const uint8_t *packets, int stride, const int32_t *lengths, int count,
                                 bare_drain *drain, int fanout, int window) {
    struct bare_blaster *blaster = calloc(1, sizeof *blaster);
    if (!blaster) return NULL;
    blaster->drain = drain;
    blaster->drained_at_start = drain ? drain_arrived(drain) : 0;
    blaster->fanout = fanout > 0 ? fanout : 1;
    blaster->window = window > 0 ? window : 1;
    blaster->fd = fd;
    blaster->dest.sin_family = AF_INET;
    blaster->dest.sin_port = htons(port);
    blaster->dest.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    blaster->packets = packets;
    blaster->stride = stride;
    blaster->lengths = lengths;
    blaster->count = count;
    blaster->gso = 1;
    if (pthread_create(&blaster->thread, NULL, blaster_main, blaster) != 0) {
        free(blaster);
        return NULL;
    }
    return blaster;
}

uint64_t bare_blaster_finish_cpu(bare_blaster *blaster, uint64_t *cpu_ns) {
    pthread_join(blaster->thread, NULL);
    uint64_t sent = blaster->sent;
    if (cpu_ns) *cpu_ns = blaster->cpu_ns;
    free(blaster);
    return sent;
}

uint64_t bare_blaster_finish(bare_blaster *blaster) { return bare_blaster_finish_cpu(blaster, NULL); }

static void *drain_main(void *raw) {
    struct bare_drain *drain = raw;
    pthread_setname_np(pthread_self(), "bare-drain");
    // Zero-length buffers with MSG_TRUNC: the kernel dequeues and frees each datagram
    // without copying it out (only the count matters), the cheapest drain there is.
    struct mmsghdr messages[BATCH];
    struct pollfd entries[MAX_DEST];
    for (int i = 0; i < drain->n; i++) {
        entries[i].fd = drain->fds[i];
        entries[i].events = POLLIN;
    }
    while (!atomic_load_explicit(&drain->stop, memory_order_relaxed)) {
        // Passes over every socket while any has datagrams; poll only once all are empty.
        uint64_t pass = 0;
        for (int f = 0; f < drain->n; f++) {
            memset(messages, 0, sizeof messages);
            int got = recvmmsg(drain->fds[f], messages, BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);
            if (got > 0) pass += (uint64_t)got;
        }
        if (pass > 0) {
            atomic_fetch_add_explicit(&drain->count, pass, memory_order_relaxed);
            continue;
        }
        poll(entries, drain->n, 20);
    }
    return NULL;
}

bare_drain *bare_drain_start(const int *fds, int n) {
    if (n < 1 || n > MAX_DEST) return NULL;
    struct bare_drain *drain = calloc(1, sizeof *drain);
    if (!drain) return NULL;
    drain->n = n;
    memcpy(drain->fds, fds, sizeof(int) * (size_t)n);
    if (pthread_create(&drain->thread, NULL, drain_main, drain) != 0) {
        free(drain);
        return NULL;
    }
    return drain;
}

bare_drain *bare_sink_start(const int *fds, int n) {
    if (n < 1 || n > MAX_DEST) return NULL;
    struct bare_drain *drain = calloc(1, sizeof *drain);
    if (!drain) return NULL;
    drain->n = n;
    drain->filtered = 1;
    memcpy(drain->fds, fds, sizeof(int) * (size_t)n);
    struct sock_filter drop_all = BPF_STMT(BPF_RET | BPF_K, 0);
    struct sock_fprog program = {.len = 1, .filter = &drop_all};
    for (int i = 0; i < n; i++) {
        if (setsockopt(fds[i], SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program) != 0) {
            for (int j = 0; j < i; j++) setsockopt(fds[j], SOL_SOCKET, SO_DETACH_FILTER, NULL, 0);
            free(drain);
            return NULL;
        }
    }
    drain->drops_at_start = socket_drops(drain->fds, n);
    return drain;
}

uint64_t bare_drain_count(bare_drain *drain) { return drain_arrived(drain); }

void bare_drain_stop(bare_drain *drain) {
    if (drain->filtered) {
        for (int i = 0; i < drain->n; i++) setsockopt(drain->fds[i], SOL_SOCKET, SO_DETACH_FILTER, NULL, 0);
    } else {
        atomic_store(&drain->stop, 1);
        pthread_join(drain->thread, NULL);
    }
    free(drain);
}

// The `nth` thread id (ascending) of this process whose comm is `comm`, or -1.
static pid_t named_thread(const char *comm, int nth) {
    DIR *dir = opendir("/proc/self/task");
    if (!dir) return -1;
    pid_t found[256];
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL && count < 256) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        char path[64], name[32] = {0};
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", entry->d_name);
        FILE *file = fopen(path, "r");
        if (!file) continue;
        if (fgets(name, sizeof name, file)) {
            name[strcspn(name, "\n")] = 0;
            if (strcmp(name, comm) == 0) found[count++] = (pid_t)atoi(entry->d_name);
        }
        fclose(file);
    }
    closedir(dir);
    for (int i = 1; i < count; i++)  // insertion sort: a handful of threads
        for (int j = i; j > 0 && found[j - 1] > found[j]; j--) { pid_t t = found[j]; found[j] = found[j - 1]; found[j - 1] = t; }
    return nth < count ? found[nth] : -1;
}

int bare_pin_named_thread(const char *comm, int nth, int cpu) {
    pid_t tid = named_thread(comm, nth);
    if (tid < 0) return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(tid, sizeof set, &set) == 0 ? 0 : -1;
}

int64_t bare_named_thread_cpu(const char *comm, int nth) {
    pid_t tid = named_thread(comm, nth);
    if (tid < 0) return -1;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)tid);
    FILE *file = fopen(path, "r");
    if (!file) return -1;
    long long ns = -1;
    if (fscanf(file, "%lld", &ns) != 1) ns = -1;
    fclose(file);
    return ns;
}
