// The bare loops `otbench router` measures MediaRouter against, in plain C:
// - a relay thread with the SFU's shape and none of its work: recvmmsg a batch from one
//   UDP socket (UDP GRO messages cut apart when the socket has it on), then for each of N
//   destinations one sendmmsg of the same bytes from that destination's own socket (no
//   SRTP, no header rewrite, no copy);
// - a blaster thread that sends pre-built datagrams from memory (one UDP GSO send per
//   batch of equal-length datagrams, else sendmmsg);
// - a drain thread that empties receiver sockets with recvmmsg and counts (MSG_TRUNC into
//   no buffer: nothing is copied out).
#ifndef CBARERELAY_H
#define CBARERELAY_H

#include <stdint.h>

typedef struct bare_relay bare_relay;
typedef struct bare_blaster bare_blaster;
typedef struct bare_drain bare_drain;

/// Starts the relay: reads `in_fd`, forwards each datagram to 127.0.0.1:`ports[i]` from
/// `out_fds[i]`, i < n (n ≤ 64). When `in_fd` has UDP_GRO on, it reads coalesced messages
/// into 64 KB slots and sends each datagram cut out of them (no copy), as the router's
/// edge workers read theirs. The descriptors stay the caller's. NULL on failure.
bare_relay *bare_relay_start(int in_fd, const int *out_fds, const uint16_t *ports, int n);

/// Datagrams sent so far (all destinations) and the relay thread's CPU time (ns).
void bare_relay_sample(bare_relay *relay, uint64_t *forwarded, uint64_t *cpu_ns);

/// Stops and joins the relay thread and frees it.
void bare_relay_stop(bare_relay *relay);

/// Starts a thread that sends `count` datagrams to 127.0.0.1:`port` from `fd`: datagram
/// i is `lengths[i]` bytes at `packets + i * stride`, sent in batches of 32: a run of
/// equal lengths as one UDP GSO send (UDP_SEGMENT; a receiving socket without UDP_GRO
/// gets the datagrams one by one, one with it gets the run as one message), anything
/// else with sendmmsg. Flow control: it keeps at most `window` datagrams per destination
/// in flight (checked every batch; when full it naps until about half the window has
/// drained, at the rate measured so far), counting as arrived what `drain` has received
/// (`fanout` copies of each datagram), so no queue overflows and nobody pays for
/// datagrams the kernel drops; if it has waited 20 ms it sends on anyway. The memory must outlive the blaster. NULL on failure.
bare_blaster *bare_blaster_start(int fd, uint16_t port, const uint8_t *packets, int stride, const int32_t *lengths, int count,
                                 bare_drain *drain, int fanout, int window);

/// Waits for the blaster to send everything, joins and frees it; returns datagrams sent.
uint64_t bare_blaster_finish(bare_blaster *blaster);

/// As `bare_blaster_finish`, and stores the blaster thread's CPU time (ns) in `cpu_ns`.
uint64_t bare_blaster_finish_cpu(bare_blaster *blaster, uint64_t *cpu_ns);

/// Starts a thread that drains `fds[0..n)` (n ≤ 64) until stopped. NULL on failure.
bare_drain *bare_drain_start(const int *fds, int n);

/// A sink for `fds[0..n)` (n ≤ 64) without a thread: a socket filter on each drops every
/// datagram as it arrives (the sender's kernel work up to the socket stays; nothing is
/// queued or read), and what arrived is read from the sockets' drop counters
/// (SO_MEMINFO). For measurements where a drain thread's CPU would be taken from the
/// threads measured. `bare_drain_count` and `bare_drain_stop` (which removes the filters)
/// take it as a drain. NULL on failure.
bare_drain *bare_sink_start(const int *fds, int n);

/// Datagrams drained so far.
uint64_t bare_drain_count(bare_drain *drain);

/// Stops, joins and frees the drain.
void bare_drain_stop(bare_drain *drain);

/// Pins the `nth` (0-based, by ascending thread id) thread of this process named `comm`
/// (as /proc/self/task/<tid>/comm shows it) to CPU `cpu`. 0 on success, -1 when no such
/// thread exists or the kernel refuses.
int bare_pin_named_thread(const char *comm, int nth, int cpu);

/// CPU time in nanoseconds (/proc/self/task/<tid>/schedstat) of the `nth` thread named
/// `comm`, or -1 when there is none.
int64_t bare_named_thread_cpu(const char *comm, int nth);

#endif
