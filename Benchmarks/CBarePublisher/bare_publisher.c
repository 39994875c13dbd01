// The bare C publisher: see include/CBarePublisher.h.
#define _GNU_SOURCE
#include "CBarePublisher.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <pthread.h>
#include <srtp2/srtp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

enum {
    MAX_PAYLOAD = 1200,        // descriptor + VP8 data, as OTKit's VP8Packetizer
    HEADER = 12 + 8,           // RTP fixed header + the transport-wide sequence extension
    EXTENSION_ID = 3,          // OTKit's RTPExtensionID.transportWideSequence
    DESCRIPTOR = 4,            // X=1, I=1 with M=1: a 15-bit picture ID
    SLOT = HEADER + MAX_PAYLOAD + 16 + 16,  // room for the GCM tag
    MAX_PACKETS = 512,         // a 600 KB keyframe at most
    MAX_SEGMENTS = 64,         // UDP GSO: datagrams per message (OTKit's UDPMessageBatch)
    MAX_SEGMENTED_BYTES = 60000,  // UDP GSO: bytes per message (the same)
};

struct bare_publisher {
    bare_vp8 *encoder;
    srtp_t session;
    int fd;
    struct sockaddr_in destination;
    uint32_t ssrc;
    uint16_t sequence;
    uint16_t transport_sequence;
    uint16_t picture_id;
    uint32_t timestamp;
    int count;
    int failed;
    uint64_t packets;
    struct mmsghdr messages[MAX_PACKETS];
    struct iovec vectors[MAX_PACKETS];
    // One UDP_SEGMENT control message per sendmmsg message.
    union { char bytes[CMSG_SPACE(sizeof(uint16_t))]; struct cmsghdr align; } controls[MAX_PACKETS];
    uint8_t slots[MAX_PACKETS][SLOT];
};

static _Thread_local const char *last_error = "";
// srtp_init once, its status ignored: after OTKit initialised libsrtp a second call
// returns bad_param (duplicate debug module) yet the library works; a real failure
// shows up in srtp_create.
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init_library(void) { (void)srtp_init(); }

const char *bare_publisher_last_error(void) { return last_error; }

bare_publisher *bare_publisher_create(bare_vp8 *encoder, const uint8_t *key, uint16_t port, uint32_t ssrc) {
    pthread_once(&init_once, init_library);
    bare_publisher *p = calloc(1, sizeof *p);
    if (p == NULL) { last_error = "out of memory"; return NULL; }
    p->encoder = encoder;
    p->ssrc = ssrc;
    srtp_policy_t policy;
    memset(&policy, 0, sizeof policy);
    srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp);
    srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp);
    policy.ssrc.type = ssrc_any_outbound;
    policy.key = (unsigned char *)key;
    policy.window_size = 1024;
    if (srtp_create(&p->session, &policy) != srtp_err_status_ok) {
        last_error = "srtp_create failed";
        free(p);
        return NULL;
    }
    p->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (p->fd < 0) {
        last_error = "socket failed";
        srtp_dealloc(p->session);
        free(p);
        return NULL;
    }
    int size = 4 << 20;
    setsockopt(p->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    p->destination.sin_family = AF_INET;
    p->destination.sin_port = htons(port);
    p->destination.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < MAX_PACKETS; i++) {
        p->vectors[i].iov_base = p->slots[i];
        p->messages[i].msg_hdr.msg_name = &p->destination;
        p->messages[i].msg_hdr.msg_namelen = sizeof p->destination;
    }
    return p;
}

// Cuts one compressed frame into packets and protects each in its slot.
static void packetize(void *context, const uint8_t *data, size_t length, int keyframe) {
    (void)keyframe;
    bare_publisher *p = context;
    // As OTKit's VP8Packetizer: n = ceil(L / room) fragments of L / n bytes, the first
    // L mod n of them one byte longer (a run of equal sizes ending in a shorter one).
    size_t room = MAX_PAYLOAD - DESCRIPTOR;
    size_t fragments = (length + room - 1) / room;
    if (fragments == 0) return;
    size_t base = length / fragments, longer = length % fragments;
    size_t offset = 0;
    for (size_t index = 0; index < fragments && !p->failed; index++) {
        if (p->count == MAX_PACKETS) { p->failed = 1; last_error = "frame too large"; return; }
        size_t chunk = base + (index < longer ? 1 : 0);
        int first = index == 0;
        int last = index + 1 == fragments;
        uint8_t *packet = p->slots[p->count];
        packet[0] = 0x90;  // V=2, X=1: the transport-wide sequence extension, as OTKit's

        packet[1] = (uint8_t)((last ? 0x80 : 0) | 96);
        packet[2] = (uint8_t)(p->sequence >> 8);
        packet[3] = (uint8_t)p->sequence;
        packet[4] = (uint8_t)(p->timestamp >> 24);
        packet[5] = (uint8_t)(p->timestamp >> 16);
        packet[6] = (uint8_t)(p->timestamp >> 8);
        packet[7] = (uint8_t)p->timestamp;
        packet[8] = (uint8_t)(p->ssrc >> 24);
        packet[9] = (uint8_t)(p->ssrc >> 16);
        packet[10] = (uint8_t)(p->ssrc >> 8);
        packet[11] = (uint8_t)p->ssrc;
        // RFC 8285 one-byte header: 0xBEDE, one word; ID 3, two bytes, one byte of padding.
        packet[12] = 0xBE;
        packet[13] = 0xDE;
        packet[14] = 0;
        packet[15] = 1;
        packet[16] = (uint8_t)(EXTENSION_ID << 4 | 1);
        packet[17] = (uint8_t)(p->transport_sequence >> 8);
        packet[18] = (uint8_t)p->transport_sequence;
        packet[19] = 0;
        uint8_t *descriptor = packet + HEADER;
        descriptor[0] = (uint8_t)(0x80 | (first ? 0x10 : 0));  // X, S on the first
        descriptor[1] = 0x80;                                   // I
        descriptor[2] = (uint8_t)(0x80 | ((p->picture_id >> 8) & 0x7f));  // M, picture ID
        descriptor[3] = (uint8_t)p->picture_id;
        memcpy(descriptor + DESCRIPTOR, data + offset, chunk);
        int size = (int)(HEADER + DESCRIPTOR + chunk);
        if (srtp_protect(p->session, packet, &size) != srtp_err_status_ok) {
            p->failed = 1;
            last_error = "srtp_protect failed";
            return;
        }
        p->vectors[p->count].iov_len = (size_t)size;
        p->count++;
        p->sequence++;
        p->transport_sequence++;
        offset += chunk;
    }
    p->picture_id = (uint16_t)((p->picture_id + 1) & 0x7fff);
}

long bare_publisher_send_frame(bare_publisher *p, const uint8_t *y, const uint8_t *u, const uint8_t *v,
                               int stride_y, int stride_uv, int64_t pts, unsigned long duration,
                               uint32_t rtp_timestamp) {
    p->count = 0;
    p->failed = 0;
    p->timestamp = rtp_timestamp;
    if (bare_vp8_encode_each(p->encoder, y, u, v, stride_y, stride_uv, pts, duration, 0, packetize, p) < 0) {
        last_error = bare_vp8_last_error();
        return -1;
    }
    if (p->failed) return -1;
    long bytes = 0;
    for (int i = 0; i < p->count; i++) bytes += (long)p->vectors[i].iov_len;
    // As OTKit's UDPSocket.sendSegmented: each run of equal sizes (ending in a shorter
    // one; at most MAX_SEGMENTS datagrams and MAX_SEGMENTED_BYTES bytes) is one message
    // with a UDP_SEGMENT control message, and all of a frame's messages go in one sendmmsg.
    int messages = 0;
    for (int first = 0; first < p->count; messages++) {
        size_t size = p->vectors[first].iov_len;
        int most = p->count - first;
        if (most > MAX_SEGMENTS) most = MAX_SEGMENTS;
        if ((size_t)most > MAX_SEGMENTED_BYTES / size) most = (int)(MAX_SEGMENTED_BYTES / size);
        int run = 1;
        while (run < most) {
            size_t next = p->vectors[first + run].iov_len;
            if (next > size) break;
            run++;
            if (next < size) break;
        }
        struct msghdr *header = &p->messages[messages].msg_hdr;
        header->msg_iov = &p->vectors[first];
        header->msg_iovlen = (size_t)run;
        if (run > 1) {
            header->msg_control = p->controls[messages].bytes;
            header->msg_controllen = sizeof p->controls[messages].bytes;
            struct cmsghdr *control = CMSG_FIRSTHDR(header);
            control->cmsg_level = SOL_UDP;
            control->cmsg_type = UDP_SEGMENT;
            control->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            uint16_t segment = (uint16_t)size;
            memcpy(CMSG_DATA(control), &segment, sizeof segment);
        } else {
            header->msg_control = NULL;
            header->msg_controllen = 0;
        }
        first += run;
    }
    int sent = 0;
    while (sent < messages) {
        int n = sendmmsg(p->fd, p->messages + sent, (unsigned)(messages - sent), 0);
        if (n <= 0) { last_error = "sendmmsg (UDP GSO) failed"; return -1; }
        sent += n;
    }
    p->packets += (uint64_t)p->count;
    return bytes;
}

uint64_t bare_publisher_packets(const bare_publisher *p) { return p->packets; }

void bare_publisher_destroy(bare_publisher *p) {
    if (p == NULL) return;
    close(p->fd);
    srtp_dealloc(p->session);
    free(p);
}
