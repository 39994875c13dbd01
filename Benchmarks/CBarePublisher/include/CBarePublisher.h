// The bare C publisher otbench measures OTKit's PublisherPipeline against: what a
// hand-written C program does to send a camera's VP8 over SRTP, and nothing else. Per
// frame: libvpx encodes (CBareCodec's settings), each compressed frame is cut into
// RTP packets exactly as OTKit's packetizer cuts it (12-byte header plus OTKit's 8-byte
// transport-wide sequence extension, RFC 7741 descriptor with a 15-bit picture ID,
// payloads of at most 1200 bytes in equal fragments, the longer ones first), each packet
// is protected in place with libsrtp2 (AEAD_AES_128_GCM), and the frame's packets leave
// in one sendmmsg to a UDP address on 127.0.0.1, each run of equal sizes as one UDP GSO
// message (UDP_SEGMENT), as OTKit's UDPSocket.sendSegmented sends them. So the packets,
// their bytes and the system calls are OTKit's. One thread, no queue, no pacing, no
// RTCP, no allocation per frame.
#ifndef CBAREPUBLISHER_H
#define CBAREPUBLISHER_H

#include <stdint.h>
#include "CBareCodec.h"

/// An opaque bare publisher: its socket, SRTP session and packet buffers.
typedef struct bare_publisher bare_publisher;

/// Creates a publisher that encodes with `encoder` (not owned) and sends to
/// 127.0.0.1:`port` as `ssrc`, protecting with `key` (28 bytes: AEAD_AES_128_GCM master
/// key || salt). Returns NULL on failure (bare_publisher_last_error() says why).
bare_publisher *bare_publisher_create(bare_vp8 *encoder, const uint8_t *key, uint16_t port, uint32_t ssrc);

/// Encodes one I420 frame and sends its packets. `rtp_timestamp` is the frame's 90 kHz
/// RTP time. Returns the SRTP bytes sent, or -1 on error.
long bare_publisher_send_frame(bare_publisher *publisher, const uint8_t *y, const uint8_t *u, const uint8_t *v,
                               int stride_y, int stride_uv, int64_t pts, unsigned long duration,
                               uint32_t rtp_timestamp);

/// Packets sent since creation.
uint64_t bare_publisher_packets(const bare_publisher *publisher);

/// Closes the socket and frees the session (NULL is fine).
void bare_publisher_destroy(bare_publisher *publisher);

/// Why the last call on this thread failed, or "".
const char *bare_publisher_last_error(void);

#endif
